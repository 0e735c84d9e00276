import { createHash } from 'node:crypto';
import { UpstreamError, type UpstreamClient } from '../upstream/client.ts';
import { isTokenPair, type TokenPair } from './tokens.ts';

export type RefreshOutcome = { kind: 'refreshed'; pair: TokenPair } | { kind: 'rejected' };

export interface RefreshCoordinator {
  /**
   * At most one refresh per refresh token at a time in this process: concurrent callers share the
   * promise. A pair obtained in the last few seconds is handed to late arrivals that still carry
   * the old cookie. Throws UpstreamError (retryable) on timeouts and 5xx: the session is kept.
   */
  refresh(refreshToken: string): Promise<RefreshOutcome>;
  readonly stats: { refreshes: number; rejected: number; failures: number };
}

const REJECTING_CODES = new Set(['invalid_refresh_token', 'token_does_not_exist', 'unauthorized', 'token_expired', 'validation_error']);

export function createRefreshCoordinator(upstream: UpstreamClient, opts: { reuseWindowMs?: number; onRefresh?: (outcome: string) => void } = {}): RefreshCoordinator {
  const reuseWindowMs = opts.reuseWindowMs ?? 10_000;
  const inflight = new Map<string, Promise<RefreshOutcome>>();
  const recent = new Map<string, { outcome: RefreshOutcome; at: number }>();
  const stats = { refreshes: 0, rejected: 0, failures: 0 };

  const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');

  function remember(key: string, outcome: RefreshOutcome) {
    const now = Date.now();
    recent.set(key, { outcome, at: now });
    for (const [k, v] of recent) {
      if (now - v.at > reuseWindowMs) recent.delete(k);
      else break; // insertion order: the rest are newer
    }
  }

  async function run(refreshToken: string): Promise<RefreshOutcome> {
    stats.refreshes++;
    try {
      const data = await upstream.call<unknown>({ method: 'POST', path: 'account/refresh-token', body: { refresh_token: refreshToken } });
      if (!isTokenPair(data)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response', undefined, true);
      opts.onRefresh?.('refreshed');
      return { kind: 'refreshed', pair: { token: data.token, refresh_token: data.refresh_token } };
    } catch (error) {
      if (error instanceof UpstreamError && error.status >= 400 && error.status < 500 && REJECTING_CODES.has(error.code)) {
        stats.rejected++;
        opts.onRefresh?.('rejected');
        return { kind: 'rejected' };
      }
      stats.failures++;
      opts.onRefresh?.('failed');
      throw error instanceof UpstreamError ? new UpstreamError(503, error.code, error.message, undefined, true) : error;
    }
  }

  return {
    stats,
    refresh(refreshToken) {
      const key = keyOf(refreshToken);
      const done = recent.get(key);
      if (done && Date.now() - done.at <= reuseWindowMs) return Promise.resolve(done.outcome);
      const pending = inflight.get(key);
      if (pending) return pending;
      const promise = run(refreshToken)
        .then((outcome) => {
          remember(key, outcome);
          return outcome;
        })
        .finally(() => inflight.delete(key));
      inflight.set(key, promise);
      return promise;
    },
  };
}
