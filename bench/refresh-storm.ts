import { Agent, request } from 'undici';
import { percentile, spread, type Spread } from './support/stats.ts';
import { signIn, startStack, trpcInput, type BenchDb } from './support/stack.ts';

/**
 * 6. Refresh storm: 200 procedure calls sent at once with one session whose access token has expired
 * (the API issues 6-second tokens here). Counted at the API: how many refreshes reached it (must be
 * exactly one per storm); at the client: failures (must be zero) and latency percentiles.
 */
export interface RefreshStormResult {
  calls: number;
  storms: number;
  refreshesAtApi: number[];
  failures: number;
  latencyMs: { p50: Spread; p99: Spread; max: Spread };
}

export async function runRefreshStorm(db: BenchDb, opts: { calls?: number; storms?: number } = {}): Promise<RefreshStormResult> {
  const calls = opts.calls ?? 200;
  const storms = opts.storms ?? 3;
  // Long enough that the refreshed token outlives a storm on a loaded machine (else the late calls of the
  // storm would meet an expired token again and rightly refresh once more), short enough to wait for.
  const ttl = 6;
  const stack = await startStack(db, { accessTtlSeconds: ttl });
  const dispatcher = new Agent({ connections: calls });
  try {
    const refreshesAtApi: number[] = [];
    const p50: number[] = [];
    const p99: number[] = [];
    const max: number[] = [];
    let failures = 0;
    for (let storm = 0; storm < storms; storm++) {
      const cookie = await signIn(stack.target);
      await new Promise((resolve) => setTimeout(resolve, ttl * 1000 + 600));
      await stack.upstream.ask('resetCounts');
      const url = `${stack.target}/trpc/companies.list?input=${trpcInput({ page: 1, page_size: 25 })}`;
      const latencies = await Promise.all(
        Array.from({ length: calls }, async () => {
          const started = performance.now();
          try {
            const res = await request(url, { headers: { cookie }, dispatcher });
            await res.body.dump();
            if (res.statusCode !== 200) failures++;
          } catch {
            failures++;
          }
          return performance.now() - started;
        }),
      );
      const counts = await stack.upstream.ask<Record<string, number>>('counts');
      refreshesAtApi.push(counts['POST /api/account/refresh-token'] ?? 0);
      p50.push(percentile(latencies, 50));
      p99.push(percentile(latencies, 99));
      max.push(Math.max(...latencies));
    }
    return { calls, storms, refreshesAtApi, failures, latencyMs: { p50: spread(p50, 1), p99: spread(p99, 1), max: spread(max, 1) } };
  } finally {
    await dispatcher.close();
    await stack.stop();
  }
}
