import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Environment fields the reference API reads both alone (`npm run upstream`) and in-process (`npm start`):
 * one definition, so the two cannot accept different values.
 */

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const isProxyEntry = (entry: string) => PROXY_NAMES.includes(entry) || isIP(entry) !== 0 || /^[\d.]+\/\d{1,2}$|^[\da-f:]+\/\d{1,3}$/i.test(entry);

/** `loopback`, addresses and CIDRs, comma-separated; `none` trusts nobody's X-Forwarded-For. */
export const trustedProxiesField = z
  .string()
  .transform((value) => (value.trim() === 'none' ? [] : value.split(',').map((s) => s.trim()).filter(Boolean)))
  .refine((entries) => entries.every(isProxyEntry), 'must be `none` or comma-separated addresses, CIDRs or loopback');

/** Absolute lifetime of a sign-in, in days (ADR 017). */
export const sessionMaxAgeDaysField = z.coerce.number().positive().max(365);

/**
 * The back office's `TRUST_PROXY`: `false`; `true` = one reverse proxy in front (the address it appends to
 * X-Forwarded-For is the client's — trusting every hop would let a client pick its address by sending the
 * header itself, and with it dodge sign-in throttling); a number of proxies; or their addresses/CIDRs.
 */
export const backOfficeTrustProxyField = z
  .string()
  .transform((value): boolean | number | string[] => {
    const v = value.trim();
    if (v === 'false' || v === '0') return false;
    if (v === 'true') return 1;
    if (/^\d+$/.test(v)) return Number(v);
    return v.split(',').map((s) => s.trim()).filter(Boolean);
  })
  .refine((trust) => !Array.isArray(trust) || (trust.length > 0 && trust.every(isProxyEntry)), 'must be true, false, a number of proxies, or their addresses/CIDRs');
