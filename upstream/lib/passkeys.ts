import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError } from './api-error.ts';
import { seal, unseal } from './factors.ts';
import { hashToken } from './tokens.ts';

/**
 * Passkeys (issue 32, ADR 075): WebAuthn through `@simplewebauthn/server`. The relying party comes from the
 * config; a challenge is sealed by the API (purpose, user, expiry) and is itself the WebAuthn challenge, so
 * handing one out writes nothing; a verified challenge is recorded by hash until it expires and never passes again.
 */

/** How long a passkey ceremony may take, from its options to its answer. */
export const PASSKEY_CHALLENGE_SECONDS = 300;
const PURPOSE = 'webauthn-challenge';
export const RP_NAME = 'Bike Buddy';

/** A registration, a sign-in, or a signed-in user confirming it is them before a factor change (`confirm`, bound to the user). */
export type CeremonyKind = 'register' | 'authenticate' | 'confirm';

export function relyingParty(config: UpstreamConfig): { rpId: string; origins: string[] } {
  if (config.webauthn) return config.webauthn;
  const url = new URL(config.appUrl);
  return { rpId: url.hostname, origins: [url.origin] };
}

/** A new challenge for one ceremony: sealed {kind, user, expiry}, as the text the authenticator signs. */
export function newChallenge(config: UpstreamConfig, kind: CeremonyKind, userId: number | null): string {
  return seal(config.jwtSecret, PURPOSE, JSON.stringify({ k: kind, u: userId, e: Date.now() + PASSKEY_CHALLENGE_SECONDS * 1000 }));
}

/**
 * Opens a challenge as the browser's client data carries it (base64url of the text handed out): its user
 * when it is of this kind (and this user, for a registration) and not expired; undefined otherwise.
 */
export function openChallenge(config: UpstreamConfig, kind: CeremonyKind, fromClient: string, userId?: number): { userId: number | null } | undefined {
  const opened = unseal(config.jwtSecret, PURPOSE, Buffer.from(fromClient, 'base64url').toString('utf8'));
  if (!opened) return undefined;
  const value = JSON.parse(opened) as { k: CeremonyKind; u: number | null; e: number };
  if (value.k !== kind || value.e <= Date.now()) return undefined;
  if (userId !== undefined && value.u !== userId) return undefined;
  return { userId: value.u };
}

/**
 * Marks a verified challenge used, in the caller's transaction: false when it was used before (a replayed
 * answer). Expired rows go in the same statement: nothing else sweeps the table.
 */
export async function spendChallenge(tx: Db, fromClient: string): Promise<boolean> {
  await tx.query('delete from webauthn_challenges_used where expires_at < now()');
  const { rows } = await tx.query(
    `insert into webauthn_challenges_used (challenge_hash, expires_at) values ($1, now() + make_interval(secs => $2))
     on conflict (challenge_hash) do nothing returning challenge_hash`,
    [hashToken(fromClient), PASSKEY_CHALLENGE_SECONDS],
  );
  return rows.length > 0;
}

/**
 * The user handle as it was derived before migration 100 (from the user's id and the API's JWT secret): the
 * handle of passkeys registered then, as long as the secret has not been rotated since.
 */
function derivedHandle(config: UpstreamConfig, userId: number): Buffer {
  return createHash('sha256').update(`webauthn-user:${config.jwtSecret}:${userId}`).digest();
}

/** The user's stored user handle (`webauthn_user_handles`), or null when none was made yet. */
export async function storedHandle(db: Db, userId: number): Promise<Buffer | null> {
  const { rows } = await db.query<{ handle: Uint8Array }>('select handle from webauthn_user_handles where user_id = $1', [userId]);
  return rows[0] ? Buffer.from(rows[0].handle) : null;
}

/**
 * The user handle the authenticator keeps with a user's passkeys (ADR 075): 32 random bytes made at the user's
 * first registration and stored, so it names nobody outside this API and no secret's rotation changes it. A user
 * whose passkeys predate the table gets the handle those were registered with as it was derived then (all of a
 * user's passkeys share one handle). Made with `on conflict do nothing`: two registrations at once keep one.
 */
export async function userHandleOf(db: Db, config: UpstreamConfig, userId: number): Promise<Uint8Array<ArrayBuffer>> {
  const stored = await storedHandle(db, userId);
  if (stored) return new Uint8Array(stored);
  const older = (await passkeysOf(db, userId)).length > 0;
  await db.query('insert into webauthn_user_handles (user_id, handle) values ($1, $2) on conflict (user_id) do nothing', [
    userId,
    older ? derivedHandle(config, userId) : randomBytes(32),
  ]);
  return new Uint8Array((await storedHandle(db, userId))!);
}

/**
 * Whether the handle an authenticator returned (base64url; absent when it returns none) is the passkey's user's:
 * their stored handle, or — none stored yet (a passkey registered before migration 100) — any, which the caller
 * keeps once the signature verified (`adoptHandle`).
 */
export function handleMatches(stored: Buffer | null, returned: string | undefined): boolean {
  return !returned || !stored || stored.toString('base64url') === returned;
}

/** A verified passkey's returned handle becomes its user's when none is stored (passkeys older than migration 100). */
export async function adoptHandle(tx: Db, userId: number, returned: string | undefined): Promise<void> {
  if (!returned) return;
  await tx.query('insert into webauthn_user_handles (user_id, handle) values ($1, $2) on conflict do nothing', [userId, Buffer.from(returned, 'base64url')]);
}

export interface StoredPasskey {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  signCount: number;
  transports: string[];
}

export async function passkeyByCredential(db: Db, credentialId: string): Promise<StoredPasskey | null> {
  const { rows } = await db.query<{ id: string; user_id: string; credential_id: string; public_key: string; sign_count: string; transports: string[] | null }>(
    "select id, user_id, credential_id, public_key, sign_count, transports from user_factors where kind = 'passkey' and credential_id = $1 and confirmed_at is not null",
    [credentialId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    credentialId: row.credential_id,
    publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
    signCount: Number(row.sign_count),
    transports: row.transports ?? [],
  };
}

export async function passkeysOf(db: Db, userId: number): Promise<{ credential_id: string; transports: string[] | null }[]> {
  const { rows } = await db.query<{ credential_id: string; transports: string[] | null }>(
    "select credential_id, transports from user_factors where user_id = $1 and kind = 'passkey' and confirmed_at is not null order by id",
    [userId],
  );
  return rows;
}

const b64url = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[A-Za-z0-9_-]+$/);
/** The browser's answer, as `@simplewebauthn/browser` sends it; the library checks the rest. */
export const credentialBase = {
  id: b64url,
  rawId: b64url,
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};
export const authenticationResponse = z.object({
  ...credentialBase,
  response: z.looseObject({ clientDataJSON: b64url, authenticatorData: b64url, signature: b64url, userHandle: b64url.optional() }),
});
export type AuthenticationAnswer = z.infer<typeof authenticationResponse>;

/**
 * The WebAuthn library, loaded at the first passkey call: its import takes ~0.6 s (X.509 and ASN.1 parsers for
 * attestation formats), which every start of the API — and every test stack — would otherwise pay.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | null = null;
export const webauthn = () => (library ??= import('@simplewebauthn/server'));

/** The challenge as the browser's client data carries it (checked by the library against `expectedChallenge`). */
export function clientChallenge(clientDataJSON: string): string {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : '';
  } catch {
    return '';
  }
}

/** The library's verdict on a browser's answer: any refusal (thrown, or not verified) is `passkey_invalid`, after `refused`. */
export async function verdict<T extends { verified: boolean }>(
  req: FastifyRequest,
  ceremony: string,
  check: (lib: Awaited<ReturnType<typeof webauthn>>) => Promise<T>,
  refused?: () => Promise<unknown>,
): Promise<T> {
  let result: T;
  try {
    result = await check(await webauthn());
  } catch (error) {
    req.log.warn({ err: error }, `passkey ${ceremony} refused`);
    await refused?.();
    throw new ApiError(400, 'passkey_invalid');
  }
  if (!result.verified) {
    await refused?.();
    throw new ApiError(400, 'passkey_invalid');
  }
  return result;
}

/**
 * Checks a passkey's answer to a challenge of ours of this kind (for `confirm`, this user's): the user handle, the
 * signature, user verification, the relying party and origin; then, in one transaction, the challenge is spent and
 * the counter stored — only if it is still the one checked (two answers racing with one counter: one passes).
 * Refusals are `passkey_invalid` (after `refused`, for a wrong answer of a known passkey).
 */
export async function checkAssertion(
  db: Db,
  config: UpstreamConfig,
  req: FastifyRequest,
  answer: AuthenticationAnswer,
  passkey: StoredPasskey,
  kind: 'authenticate' | 'confirm',
  refused?: () => Promise<unknown>,
): Promise<void> {
  const returned = answer.response.userHandle;
  if (!handleMatches(await storedHandle(db, passkey.userId), returned)) throw new ApiError(400, 'passkey_invalid');
  const rp = relyingParty(config);
  const challenge = clientChallenge(answer.response.clientDataJSON);
  const verified = await verdict(
    req,
    kind === 'confirm' ? 'confirmation' : 'sign-in',
    (lib) =>
      lib.verifyAuthenticationResponse({
        response: answer as AuthenticationResponseJSON,
        expectedChallenge: (c) => openChallenge(config, kind, c, kind === 'confirm' ? passkey.userId : undefined) !== undefined,
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpId,
        credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.signCount, transports: passkey.transports },
        requireUserVerification: true,
      }),
    refused,
  );
  const { newCounter } = verified.authenticationInfo;
  await db.transaction(async (tx) => {
    if (!(await spendChallenge(tx, challenge))) throw new ApiError(400, 'passkey_invalid');
    // The counter read before the check must still be the stored one: two answers racing both pass the check, one updates.
    const { rows } = await tx.query('update user_factors set sign_count = $2, last_used_at = now() where id = $1 and sign_count = $3 returning id', [
      passkey.id,
      newCounter,
      passkey.signCount,
    ]);
    if (rows.length === 0) throw new ApiError(400, 'passkey_invalid');
    await adoptHandle(tx, passkey.userId, returned);
  });
}
