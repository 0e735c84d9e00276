import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Dispatcher } from 'undici';
import { UpstreamError, type UpstreamCall, type UpstreamClient } from '../upstream/client.ts';
import type { CookieSealer } from './cookie-crypto.ts';
import type { RefreshCoordinator } from './refresh-coordinator.ts';
import { sessionInfoOf, type SessionInfo, type TokenPair } from './tokens.ts';

export interface SessionConfig {
  secure: boolean;
  /** Lifetime of both token cookies; the refresh token bounds the real session. */
  maxAgeSeconds: number;
}

export function cookieNames(secure: boolean) {
  // `__Host-` needs Secure, so plain-HTTP development uses unprefixed names.
  const prefix = secure ? '__Host-' : '';
  return { access: `${prefix}bo_at`, refresh: `${prefix}bo_rt` } as const;
}

export function tokenCookieOptions(config: SessionConfig): CookieSerializeOptions {
  return { httpOnly: true, secure: config.secure, sameSite: 'lax', path: '/', maxAge: config.maxAgeSeconds };
}

/** Thrown when the refresh token was definitely rejected: the session is over. */
export class SessionExpiredError extends Error {
  constructor() {
    super('Your session has ended. Please sign in again.');
    this.name = 'SessionExpiredError';
  }
}

export interface RequestSession {
  info(): SessionInfo | null;
  isAuthenticated(): boolean;
  /** Stores a fresh pair in the cookies of this reply. */
  set(pair: TokenPair): void;
  clear(): void;
  refreshToken(): string | null;
  /** The current access token, as the key of per-token caches (server/session/profile-cache.ts); never sent anywhere. */
  accessToken(): string | null;
  /** Refreshes up front when the access token has already expired (saves one 401 round trip). */
  ensureFresh(): Promise<void>;
  /** Calls the upstream as the signed-in user: one refresh and one retry on 401. */
  call<T>(call: Omit<UpstreamCall, 'token'>): Promise<T>;
  /** The same for a streamed answer (exports); the caller owns the body. */
  stream(call: Omit<UpstreamCall, 'token'>): Promise<Dispatcher.ResponseData>;
}

interface Deps {
  upstream: UpstreamClient;
  sealer: CookieSealer;
  coordinator: RefreshCoordinator;
  config: SessionConfig;
}

/** Refresh a little before expiry (clock skew, time in flight): 5 s, or a tenth of a short token's life. */
const MAX_EXPIRY_SKEW_MS = 5_000;

export function createRequestSession(req: FastifyRequest, reply: FastifyReply, deps: Deps): RequestSession {
  const names = cookieNames(deps.config.secure);
  const options = tokenCookieOptions(deps.config);
  const access = deps.sealer.open(names.access, req.cookies[names.access]);
  const refresh = deps.sealer.open(names.refresh, req.cookies[names.refresh]);
  let tokens: TokenPair | null = refresh ? { token: access?.value ?? '', refresh_token: refresh.value } : null;
  let info: SessionInfo | null = tokens?.token ? sessionInfoOf(tokens.token) : null;

  function set(pair: TokenPair) {
    tokens = pair;
    info = sessionInfoOf(pair.token);
    reply.setCookie(names.access, deps.sealer.seal(names.access, pair.token), options);
    reply.setCookie(names.refresh, deps.sealer.seal(names.refresh, pair.refresh_token), options);
  }

  function clear() {
    tokens = null;
    info = null;
    const { maxAge: _maxAge, ...attributes } = options;
    reply.clearCookie(names.access, attributes);
    reply.clearCookie(names.refresh, attributes);
  }

  // Cookies sealed under a retired key are re-issued under the current one.
  if (tokens && (access?.stale || refresh?.stale)) set(tokens);

  async function refreshNow(): Promise<void> {
    const current = tokens;
    if (!current) throw new SessionExpiredError();
    const outcome = await deps.coordinator.refresh(current.refresh_token);
    // Another call of this same request may have refreshed already; keep the newest pair.
    if (tokens !== current) return;
    if (outcome.kind === 'rejected') {
      clear();
      throw new SessionExpiredError();
    }
    set(outcome.pair);
  }

  function accessExpired(): boolean {
    if (!tokens?.token) return true;
    const exp = info?.exp;
    const skew = Math.min(MAX_EXPIRY_SKEW_MS, (info?.lifetime ?? Infinity) * 100);
    return typeof exp === 'number' && exp * 1000 - skew <= Date.now();
  }

  return {
    info: () => info,
    isAuthenticated: () => tokens !== null,
    refreshToken: () => tokens?.refresh_token ?? null,
    accessToken: () => tokens?.token || null,
    set,
    clear,
    async ensureFresh() {
      if (tokens && accessExpired()) await refreshNow();
    },
    async call<T>(call: Omit<UpstreamCall, 'token'>): Promise<T> {
      if (!tokens) throw new SessionExpiredError();
      if (accessExpired()) await refreshNow();
      const used = tokens!;
      try {
        return await deps.upstream.call<T>({ ...call, token: used.token });
      } catch (error) {
        if (!(error instanceof UpstreamError) || error.status !== 401) throw error;
      }
      // A parallel call of this request may have refreshed meanwhile: then just retry.
      if (tokens === used) await refreshNow();
      if (!tokens) throw new SessionExpiredError();
      return deps.upstream.call<T>({ ...call, token: tokens.token });
    },
    async stream(call) {
      if (!tokens) throw new SessionExpiredError();
      if (accessExpired()) await refreshNow();
      const used = tokens!;
      const first = await deps.upstream.stream({ ...call, token: used.token });
      if (first.statusCode !== 401) return first;
      await first.body.dump();
      if (tokens === used) await refreshNow();
      if (!tokens) throw new SessionExpiredError();
      return deps.upstream.stream({ ...call, token: tokens.token });
    },
  };
}
