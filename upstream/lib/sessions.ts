import type { Db } from '../db.ts';
import { randomToken } from './tokens.ts';

/**
 * Sign-in sessions (ADR 017): a row per refresh-token family, named in each access token (`sid`) with the
 * user's session version at issue (`sv`). Revoking the row, deactivating the user or bumping the version
 * ends every access token of it at once, not when the token expires.
 */

export type SessionCheck = 'ok' | 'ended' | 'stale';

/** Where a sign-in came from, as the sessions page shows it (issue 32). */
export interface SessionOrigin {
  ip?: string;
  userAgent?: string;
}

export async function createSession(db: Db, userId: number, origin: SessionOrigin = {}): Promise<string> {
  const id = randomToken(12);
  await db.query('insert into sessions (id, user_id, ip, user_agent, last_seen_at) values ($1, $2, $3, $4, now())', [
    id,
    userId,
    origin.ip ?? null,
    origin.userAgent?.slice(0, 300) ?? null,
  ]);
  return id;
}

/** Ends every sign-in of a user but one (a factor changed: the session that changed it stays). */
export async function revokeOtherSessions(db: Db, userId: number, keep: string): Promise<void> {
  await db.query('update sessions set revoked_at = now() where user_id = $1 and id <> $2 and revoked_at is null', [userId, keep]);
  await db.query('update refresh_tokens set revoked_at = now() where user_id = $1 and family_id <> $2 and revoked_at is null', [userId, keep]);
}

/**
 * One indexed lookup per authenticated request. `ended`: revoked, unknown, another user's, or the user is
 * deactivated — refreshing cannot help. `stale`: the user's roles changed since the token was issued — a
 * refresh issues a token with the new roles.
 */
export async function checkSession(db: Db, sessionId: string, userId: number, version: number): Promise<SessionCheck> {
  const { rows } = await db.query<{ user_id: number; revoked: boolean; is_active: boolean; session_version: number }>(
    `select s.user_id, s.revoked_at is not null as revoked, u.is_active, u.session_version
       from sessions s join users u on u.id = s.user_id where s.id = $1`,
    [sessionId],
    // Every authenticated request runs it: prepared once per connection (ADR 052).
    { name: 'session-check' },
  );
  const row = rows[0];
  if (!row || Number(row.user_id) !== userId || row.revoked || !row.is_active) return 'ended';
  return Number(row.session_version) === version ? 'ok' : 'stale';
}

/** Ends one sign-in: its refresh tokens and its access tokens. */
export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db.query('update sessions set revoked_at = now() where id = $1 and revoked_at is null', [sessionId]);
  await db.query('update refresh_tokens set revoked_at = now() where family_id = $1 and revoked_at is null', [sessionId]);
}

/** Ends every sign-in of a user (deactivation, password reset). */
export async function revokeUserSessions(db: Db, userId: number): Promise<void> {
  await db.query('update sessions set revoked_at = now() where user_id = $1 and revoked_at is null', [userId]);
  await db.query('update refresh_tokens set revoked_at = now() where user_id = $1 and revoked_at is null', [userId]);
}

/** The user's roles changed: every access token issued before is refused, so the next call refreshes. */
export async function bumpSessionVersion(db: Db, userId: number): Promise<void> {
  await db.query('update users set session_version = session_version + 1 where id = $1', [userId]);
}
