import { createHash } from 'node:crypto';

/**
 * The signed-in user as the shell shows them (name, avatar), kept for a short while per access token
 * (ADR 024). Every server-rendered page shows the header, and asking the API for the profile on every page
 * doubled the API calls of a list page. Changes made through this process drop the user's entries at
 * once; changes made elsewhere show within `ttlMs` (the browser keeps the same answer for a minute
 * anyway, client/session.ts). Keyed by a hash of the token: a new token (refresh, another sign-in)
 * asks again, and the token itself is not kept.
 */
export interface ProfileCache<T> {
  get(accessToken: string): T | undefined;
  set(accessToken: string, userId: string | null, profile: T): void;
  /** A user's profile changed through this process: their next page asks the API again. */
  forget(userId: string | number): void;
  /** A change whose user is not known here (an e-mail address confirmed by link). */
  forgetAll(): void;
}

interface Entry<T> {
  userId: string | null;
  profile: T;
  expires: number;
}

export function createProfileCache<T>({ ttlMs = 30_000, max = 10_000, now = () => Date.now() } = {}): ProfileCache<T> {
  const entries = new Map<string, Entry<T>>();
  const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');
  return {
    get(accessToken) {
      const key = keyOf(accessToken);
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires > now()) return entry.profile;
      entries.delete(key);
      return undefined;
    },
    set(accessToken, userId, profile) {
      const key = keyOf(accessToken);
      entries.delete(key);
      entries.set(key, { userId, profile, expires: now() + ttlMs });
      // Oldest first: a Map iterates in insertion order.
      for (const oldest of entries.keys()) {
        if (entries.size <= max) break;
        entries.delete(oldest);
      }
    },
    forget(userId) {
      for (const [key, entry] of entries) if (entry.userId === String(userId)) entries.delete(key);
    },
    forgetAll() {
      entries.clear();
    },
  };
}
