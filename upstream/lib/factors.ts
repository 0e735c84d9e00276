import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';
import type { Db } from '../db.ts';
import { hashToken } from './tokens.ts';

/**
 * Second factors (issue 32, ADR 068): authenticator apps (TOTP, RFC 6238 through otplib), recovery codes and
 * the Admin policy naming the roles that must have one. Passkeys are in `passkeys.ts`.
 */

/** Codes of the step before and after the current one are accepted too (a phone's clock drifts). */
const TOTP_TOLERANCE_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
export const ISSUER = 'Bike Buddy';

function keyOf(secret: string, purpose: string): Buffer {
  return createHash('sha256').update(`${purpose}:${secret}`).digest();
}

/** AES-GCM under a key derived from the API's secret for `purpose`: a sealed value of one purpose never opens as another's. */
export function seal(secret: string, purpose: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret, purpose), iv);
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

export function unseal(secret: string, purpose: string, sealed: string): string | null {
  try {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !body || !tag) return null;
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret, purpose), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

export function newTotpSecret(): { secret: string; uri: (label: string) => string } {
  const secret = generateSecret();
  return { secret, uri: (label) => generateURI({ issuer: ISSUER, label, secret }) };
}

/** The time step of a code that matches `secret`, later than `afterStep`; null when it does not match (or was used). */
export function totpStep(secret: string, code: string, afterStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const result = verifySync({ secret, token: code, epochTolerance: TOTP_TOLERANCE_SECONDS, ...(afterStep === null ? {} : { afterTimeStep: afterStep }) });
    // A TOTP check's result carries its time step (the union also has HOTP's, which does not).
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  } catch {
    return null;
  }
}

/** Recovery codes: 10 characters of an alphabet without look-alikes, shown as `xxxxx-xxxxx` (50 bits). */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code as typed: case, spaces and the dash do not matter. */
export function normaliseRecoveryCode(code: string): string | null {
  const plain = code.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z0-9]{10}$/.test(plain) ? `${plain.slice(0, 5)}-${plain.slice(5)}` : null;
}

/** Replaces the user's recovery codes with new ones (hashes at rest) and returns them, to be shown once. */
export async function replaceRecoveryCodes(tx: Db, userId: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await tx.query('delete from recovery_codes where user_id = $1', [userId]);
  await tx.query('insert into recovery_codes (user_id, code_hash) select $1, unnest($2::text[])', [userId, codes.map((c) => hashToken(c))]);
  return codes;
}

export interface TotpFactor {
  id: number;
  secret: string;
  lastStep: number | null;
  confirmed: boolean;
}

export async function totpFactorOf(db: Db, sealKey: string, userId: number): Promise<TotpFactor | null> {
  const { rows } = await db.query<{ id: number; secret: string; last_step: string | null; confirmed: boolean }>(
    "select id, secret, last_step, confirmed_at is not null as confirmed from user_factors where user_id = $1 and kind = 'totp'",
    [userId],
  );
  const row = rows[0];
  const secret = row && unseal(sealKey, 'totp-secret', row.secret);
  if (!row || !secret) return null;
  return { id: Number(row.id), secret, lastStep: row.last_step === null ? null : Number(row.last_step), confirmed: row.confirmed };
}

/** Whether the user has a confirmed second factor (an authenticator app or a passkey). */
export async function hasSecondFactor(db: Db, userId: number): Promise<boolean> {
  const { rows } = await db.query('select 1 from user_factors where user_id = $1 and confirmed_at is not null limit 1', [userId]);
  return rows.length > 0;
}

export type SecondFactorMethod = 'totp' | 'recovery';

/**
 * Checks a code of the user's second factor: a TOTP code (accepted once: its time step is stored in the
 * statement that accepts it, so two requests with the same code cannot both pass) or an unused recovery code
 * (marked used in the statement that accepts it). Returns the method that accepted it, or null.
 */
export async function acceptSecondFactorCode(db: Db, sealKey: string, userId: number, code: string): Promise<SecondFactorMethod | null> {
  const trimmed = code.trim();
  if (/^\d{6}$/.test(trimmed)) {
    const factor = await totpFactorOf(db, sealKey, userId);
    if (!factor?.confirmed) return null;
    const step = totpStep(factor.secret, trimmed, factor.lastStep);
    if (step === null) return null;
    const { rows } = await db.query('update user_factors set last_step = $2, last_used_at = now() where id = $1 and (last_step is null or last_step < $2) returning id', [
      factor.id,
      step,
    ]);
    return rows.length > 0 ? 'totp' : null;
  }
  const recovery = normaliseRecoveryCode(trimmed);
  if (!recovery) return null;
  const { rows } = await db.query(
    `update recovery_codes set used_at = now()
      where id = (select id from recovery_codes where user_id = $1 and code_hash = $2 and used_at is null limit 1) and used_at is null
      returning id`,
    [userId, hashToken(recovery)],
  );
  return rows.length > 0 ? 'recovery' : null;
}

/** The Admin policy (settings row `second_factor_roles`): the roles that must have a second factor. Default: Admin. */
export const DEFAULT_POLICY_ROLES = ['Admin'];
export async function policyRoles(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ value: string }>("select value from settings where key = 'second_factor_roles'");
  if (!rows[0]) return DEFAULT_POLICY_ROLES;
  try {
    const parsed: unknown = JSON.parse(rows[0].value);
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : DEFAULT_POLICY_ROLES;
  } catch {
    return DEFAULT_POLICY_ROLES;
  }
}

export async function setPolicyRoles(db: Db, roles: readonly string[]): Promise<void> {
  await db.query("insert into settings (key, value) values ('second_factor_roles', $1) on conflict (key) do update set value = excluded.value", [
    JSON.stringify([...new Set(roles)].sort()),
  ]);
}

/** Whether the policy requires a second factor of a user with these roles. */
export async function policyRequires(db: Db, roles: readonly string[]): Promise<boolean> {
  const required = await policyRoles(db);
  return roles.some((role) => required.includes(role));
}
