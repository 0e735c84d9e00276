import autocannon from 'autocannon';
import { request, Agent } from 'undici';
import { median, spread, type Spread } from './support/stats.ts';
import { apiToken, signIn, startStack, trpcInput, type BenchDb } from './support/stack.ts';

/**
 * 4. Server overhead: the bicycles list (page 1, 25 rows) as a tRPC query through the back office, and
 * the same GET sent to the API directly with a bearer token, alternating in one run. Throughput under
 * autocannon (ratio back office ÷ direct), and latency one request at a time (added p50 = difference).
 */
export interface OverheadResult {
  connections: number;
  seconds: number;
  rounds: number;
  rps: { backOffice: Spread; direct: Spread };
  throughputRatio: Spread;
  sequentialP50Ms: { backOffice: Spread; direct: Spread };
  addedP50Ms: Spread;
}

async function sequentialP50(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const dispatcher = new Agent({ connections: 1 });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await request(url, { headers, dispatcher });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    times.push(performance.now() - started);
  }
  await dispatcher.close();
  return median(times.slice(Math.floor(n / 10)));
}

export async function runOverhead(db: BenchDb, opts: { rounds?: number; seconds?: number; connections?: number } = {}): Promise<OverheadResult> {
  const { rounds = 3, seconds = 5, connections = 8 } = opts;
  const stack = await startStack(db);
  try {
    const cookie = await signIn(stack.target);
    const token = await apiToken(stack.api);
    const viaServer = { url: `${stack.target}/trpc/bicycles.list?input=${trpcInput({ page: 1, page_size: 25 })}`, headers: { cookie } };
    const direct = { url: `${stack.api}bicycles/?page=1&page_size=25`, headers: { authorization: `Bearer ${token}` } };
    for (const side of [viaServer, direct]) await autocannon({ url: side.url, connections, duration: 1, headers: side.headers });
    const rps = { backOffice: [] as number[], direct: [] as number[] };
    const seq = { backOffice: [] as number[], direct: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const [name, side] of [
        ['backOffice', viaServer],
        ['direct', direct],
      ] as const) {
        const result = await autocannon({ url: side.url, connections, duration: seconds, headers: side.headers });
        if (result.non2xx || result.errors) throw new Error(`${side.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rps[name].push(result.requests.average);
        seq[name].push(await sequentialP50(side.url, side.headers, 300));
      }
    }
    return {
      connections,
      seconds,
      rounds,
      rps: { backOffice: spread(rps.backOffice, 0), direct: spread(rps.direct, 0) },
      throughputRatio: spread(
        rps.backOffice.map((v, i) => v / rps.direct[i]!),
        2,
      ),
      sequentialP50Ms: { backOffice: spread(seq.backOffice, 2), direct: spread(seq.direct, 2) },
      addedP50Ms: spread(
        seq.backOffice.map((v, i) => v - seq.direct[i]!),
        2,
      ),
    };
  } finally {
    await stack.stop();
  }
}
