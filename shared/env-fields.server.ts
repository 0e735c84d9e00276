import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_OPERATION_RANGE } from './geo.ts';

/**
 * Environment fields that both the back office (server/env.ts) and the reference API on its own
 * (upstream/env.ts) read: one definition each, so the two cannot accept different values (ADR 030).
 */

/** A switch: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`. */
export const flagField = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => ['true', '1', 'yes', 'on'].includes(v));

export const portField = z.coerce.number().int().min(0).max(65535);

export const logLevelField = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** PostgreSQL for the reference API; unset: embedded PGlite. */
export const databaseUrlField = z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres://');

/** The demo accounts' password (unset: random, printed once). */
export const demoPasswordField = z.string().min(3);

/** The operation range (§9, ADR 011): services outside it are refused, maps draw it. */
export const operationRangeFields = {
  OPERATION_CENTRE_LAT: z.coerce.number().min(-90).max(90).default(DEFAULT_OPERATION_RANGE.centre.lat),
  OPERATION_CENTRE_LNG: z.coerce.number().min(-180).max(180).default(DEFAULT_OPERATION_RANGE.centre.lng),
  OPERATION_RADIUS_METRES: z.coerce.number().positive().max(100_000).default(DEFAULT_OPERATION_RANGE.radiusMetres),
};

/**
 * Parses the environment once, at start. An empty value counts as unset (`FOO=` in a compose file);
 * a bad value throws one error naming every variable that is wrong.
 */
export function parseEnv<T extends z.ZodType>(schema: T, source: NodeJS.ProcessEnv, what: string): z.infer<T> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${String(issue.path[0] ?? '(env)')}: ${issue.message}`);
    throw new Error(`${what}:\n${lines.join('\n')}`);
  }
  return result.data;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const isProxyEntry = (entry: string) => PROXY_NAMES.includes(entry) || isIP(entry) !== 0 || /^[\d.]+\/\d{1,2}$|^[\da-f:]+\/\d{1,3}$/i.test(entry);

/** `loopback`, addresses and CIDRs, comma-separated; `none` trusts nobody's X-Forwarded-For. */
export const trustedProxiesField = z
  .string()
  .transform((value) =>
    value.trim() === 'none'
      ? []
      : value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
  )
  .refine((entries) => entries.every(isProxyEntry), 'must be `none` or comma-separated addresses, CIDRs or loopback');

/** The change history's HMAC key (ADR 035); unset, the API keeps a generated one in its database and warns. */
export const auditKeyField = z.string().min(32, 'must be at least 32 characters');

/** Where the change history's signed head is kept outside the database (ADR 059): a file path. */
export const auditHeadFileField = z.string().min(1);

/** How long the change history keeps an entry, in days (ADR 038); unset: for ever. */
export const auditRetentionDaysField = z.coerce.number().int('must be a whole number of days').min(1).max(36_500);

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
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  })
  .refine((trust) => !Array.isArray(trust) || (trust.length > 0 && trust.every(isProxyEntry)), 'must be true, false, a number of proxies, or their addresses/CIDRs');
