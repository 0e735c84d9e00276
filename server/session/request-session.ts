import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLEAR_SITE_DATA, IDEMPOTENCY_HEADER, isIdempotencyKey } from '../../shared/http-headers.ts';
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
  return { access: `${prefix}bo_at`, refresh: `${prefix}bo_rt`, challenge: `${prefix}bo_2fa` } as const;
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
  /** Stores a fresh pair in the cookies of this reply (and drops a second-factor challenge). */
  set(pair: TokenPair): void;
  /**
   * The second step of a sign-in (ADR 068): the API's sealed challenge, kept in its own sealed HttpOnly cookie
   * for the challenge's five minutes, between the password page and the code page.
   */
  setChallenge(challenge: string): void;
  challenge(): string | null;
  clearChallenge(): void;
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

/** The API's challenge lives five minutes (upstream/routes/account.ts). */
const CHALLENGE_COOKIE_SECONDS = 300;

/** Refresh a little before expiry (clock skew, time in flight): 5 s, or a tenth of a short token's life. */
const MAX_EXPIRY_SKEW_MS = 5_000;

/** The sealed token cookies of one request: the pair they hold, and writing or clearing them on the reply. */
function tokenCookies(req: FastifyRequest, reply: FastifyReply, deps: Deps) {
  const names = cookieNames(deps.config.secure);
  const options = tokenCookieOptions(deps.config);
  const access = deps.sealer.open(names.access, req.cookies[names.access]);
  const refresh = deps.sealer.open(names.refresh, req.cookies[names.refresh]);
  return {
    pair: refresh ? { token: access?.value ?? '', refresh_token: refresh.value } : null,
    /** Sealed under a retired key. */
    stale: Boolean(access?.stale || refresh?.stale),
    write(pair: TokenPair) {
      reply.setCookie(names.access, deps.sealer.seal(names.access, pair.token), options);
      reply.setCookie(names.refresh, deps.sealer.seal(names.refresh, pair.refresh_token), options);
    },
    clear() {
      const { maxAge: _maxAge, ...attributes } = options;
      reply.clearCookie(names.access, attributes);
      reply.clearCookie(names.refresh, attributes);
    },
  };
}

/**
 * A call made for this browser request: from the browser's address, under the request's id. A write of a
 * request that carries an Idempotency-Key (ADR 042) carries it too, numbered from the request's second write
 * on (`key.2`), so a replayed request names each of its writes as the first time and the API answers each
 * from what it stored. The route refuses such a key on a batch of several calls (`server/app.ts`), whose
 * writes would not come in a fixed order.
 */
function browserCalls(req: FastifyRequest) {
  const browserKey = req.headers[IDEMPOTENCY_HEADER];
  let writes = 0;
  return <C extends Omit<UpstreamCall, 'token'>>(call: C): C => {
    if (call.method === 'GET' || !isIdempotencyKey(browserKey)) return { clientIp: req.ip, requestId: String(req.id), ...call };
    writes += 1;
    return { clientIp: req.ip, requestId: String(req.id), idempotencyKey: writes === 1 ? browserKey : `${browserKey}.${writes}`, ...call };
  };
}

export function createRequestSession(req: FastifyRequest, reply: FastifyReply, deps: Deps): RequestSession {
  const cookies = tokenCookies(req, reply, deps);
  let tokens: TokenPair | null = cookies.pair;
  let info: SessionInfo | null = tokens?.token ? sessionInfoOf(tokens.token) : null;

  function set(pair: TokenPair) {
    tokens = pair;
    info = sessionInfoOf(pair.token);
    cookies.write(pair);
    if (req.cookies[challengeCookie]) clearChallenge();
  }

  const challengeCookie = cookieNames(deps.config.secure).challenge;
  const { maxAge: _maxAge, ...challengeAttributes } = tokenCookieOptions(deps.config);
  function clearChallenge() {
    reply.clearCookie(challengeCookie, challengeAttributes);
  }

  function clear() {
    tokens = null;
    info = null;
    cookies.clear();
  }

  // Cookies sealed under a retired key are re-issued under the current one.
  if (tokens && cookies.stale) set(tokens);

  async function refreshNow(): Promise<void> {
    const current = tokens;
    if (!current) throw new SessionExpiredError();
    const outcome = await deps.coordinator.refresh(current.refresh_token);
    // Another call of this same request may have refreshed already; keep the newest pair.
    if (tokens !== current) return;
    if (outcome.kind === 'rejected') {
      clear();
      // The session ended other than by a sign-out: the browser drops its HTTP cache; the page drops its copy
      // of the day, keeping the (sealed) offline queue for the same user's next sign-in (ADR 067).
      if (!reply.sent) reply.header('clear-site-data', CLEAR_SITE_DATA.sessionEnded);
      throw new SessionExpiredError();
    }
    set(outcome.pair);
  }

  const accessExpired = () => isExpired(tokens, info);
  const fromBrowser = browserCalls(req);

  /** The pair to call with, refreshed first when its access token has expired. */
  async function usableTokens(): Promise<TokenPair> {
    if (!tokens) throw new SessionExpiredError();
    if (accessExpired()) await refreshNow();
    return tokens!;
  }

  /** The pair to retry with after `used` was refused (a parallel call of this request may have refreshed meanwhile). */
  async function retryTokens(used: TokenPair): Promise<TokenPair> {
    if (tokens === used) await refreshNow();
    if (!tokens) throw new SessionExpiredError();
    return tokens;
  }

  return {
    info: () => info,
    isAuthenticated: () => tokens !== null,
    refreshToken: () => tokens?.refresh_token ?? null,
    accessToken: () => tokens?.token || null,
    set,
    clear,
    setChallenge(challenge) {
      reply.setCookie(challengeCookie, deps.sealer.seal(challengeCookie, challenge), { ...challengeAttributes, maxAge: CHALLENGE_COOKIE_SECONDS });
    },
    challenge: () => deps.sealer.open(challengeCookie, req.cookies[challengeCookie])?.value ?? null,
    clearChallenge,
    async ensureFresh() {
      if (tokens && accessExpired()) await refreshNow();
    },
    async call<T>(given: Omit<UpstreamCall, 'token'>): Promise<T> {
      const call = fromBrowser(given);
      const used = await usableTokens();
      try {
        return await deps.upstream.call<T>({ ...call, token: used.token });
      } catch (error) {
        if (!(error instanceof UpstreamError) || error.status !== 401) throw error;
      }
      return deps.upstream.call<T>({ ...call, token: (await retryTokens(used)).token });
    },
    async stream(given) {
      const call = fromBrowser(given);
      const used = await usableTokens();
      const first = await deps.upstream.stream({ ...call, token: used.token });
      if (first.statusCode !== 401) return first;
      await first.body.dump();
      return deps.upstream.stream({ ...call, token: (await retryTokens(used)).token });
    },
  };
}

function isExpired(tokens: TokenPair | null, info: SessionInfo | null): boolean {
  if (!tokens?.token) return true;
  const exp = info?.exp;
  const skew = Math.min(MAX_EXPIRY_SKEW_MS, (info?.lifetime ?? Infinity) * 100);
  return typeof exp === 'number' && exp * 1000 - skew <= Date.now();
}
