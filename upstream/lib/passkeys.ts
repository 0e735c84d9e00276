import { createHash } from 'node:crypto';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
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

export type CeremonyKind = 'register' | 'authenticate';

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
 * The user handle the authenticator keeps with a passkey: derived from the user's id and the API's secret,
 * so it names nobody outside this API and needs no column.
 */
export function userHandle(config: UpstreamConfig, userId: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(`webauthn-user:${config.jwtSecret}:${userId}`).digest());
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
