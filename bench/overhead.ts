import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { request, Agent } from 'undici';
import { startChild } from './support/ipc.ts';
import { median, spread, type Spread } from './support/stats.ts';
import { apiToken, signIn, startStack, trpcInput, type BenchDb } from './support/stack.ts';

/**
 * 4. Server overhead: the bicycles list (page 1, 25 rows) as a tRPC query through the back office, and
 * the same GET sent to the API directly with a bearer token, alternating in one run. Throughput under
 * autocannon (ratio back office ÷ direct), and latency one request at a time: the three sides in turn
 * (back office, API, and the reference below), so each difference is taken between requests made moments
 * apart, then its median.
 *
 * The reference (bench/support/bare-forwarder.ts) is the bare extra hop: Fastify and undici in front of the
 * API, nothing else. What it adds is the floor of any back office in Node; what the back office adds beyond
 * it is ours (tRPC, the session, CSRF, metrics, logging).
 *
 * Beside the latencies, the CPU each server spends per request in the same one-at-a-time loop (issue 38):
 * each process's CPU time (user + system, `process.cpuUsage()`) read over IPC before and after the measured
 * requests, divided by their number; the ratio back office ÷ bare forwarder is taken per round. Both see the
 * same number of requests, so the ratio does not depend on how many. Latency on a loaded machine includes
 * waiting for a core; CPU time does not, so the ratio of CPU is the steadier of the two.
 */
export interface OverheadResult {
  connections: number;
  seconds: number;
  rounds: number;
  rps: { backOffice: Spread; direct: Spread };
  throughputRatio: Spread;
  sequentialP50Ms: { backOffice: Spread; direct: Spread; bareHop?: Spread };
  addedP50Ms: Spread;
  /** The bare hop's added p50 over the API (the floor), and the back office's beyond it. */
  bareHopAddedP50Ms?: Spread;
  beyondBareHopP50Ms?: Spread;
  /** The back office's added p50 ÷ the bare forwarder's (issue 38: ≤ 1.5). */
  addedP50RatioToBareHop?: Spread;
  /** CPU time per request one at a time (ms, user + system of the process): back office, bare forwarder, the API (its CPU over all three sides' requests). */
  cpuPerRequestMs?: { backOffice: Spread; bareHop: Spread; api: Spread };
  /** Back office ÷ bare forwarder CPU over the same requests, per round. */
  cpuRatioToBareHop?: Spread;
  /** The 1-minute load average at the end of each round (the machine is shared). */
  loadAverage?: number[];
}

interface Side {
  url: string;
  headers: Record<string, string>;
}

/**
 * One request at a time, the sides in turn (the order rotating): each side's p50, and each side's p50 difference
 * from the first. `window` is called when the measured requests start and again when they end (CPU readings).
 */
async function pairedP50(sides: Side[], n: number, window?: () => Promise<void>): Promise<{ p50: number[]; diffFromFirst: number[]; measured: number }> {
  const dispatchers = sides.map(() => new Agent({ connections: 1 }));
  const times = sides.map(() => [] as number[]);
  const once = async (i: number) => {
    const started = performance.now();
    const res = await request(sides[i]!.url, { headers: sides[i]!.headers, dispatcher: dispatchers[i] });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${sides[i]!.url} answered ${res.statusCode}`);
    return performance.now() - started;
  };
  // The first tenth warms the connections and the JIT.
  const warm = Math.ceil(n / 10);
  for (let k = 0; k < n; k++) {
    if (k === warm) await window?.();
    const row: number[] = [];
    for (let j = 0; j < sides.length; j++) {
      const i = (k + j) % sides.length;
      row[i] = await once(i);
    }
    if (k >= warm) row.forEach((t, i) => times[i]!.push(t));
  }
  await window?.();
  await Promise.all(dispatchers.map((d) => d.close()));
  const diffs = sides.map((_, i) => median(times[i]!.map((t, k) => t - times[0]![k]!)));
  return { p50: times.map((t) => median(t)), diffFromFirst: diffs, measured: n - warm };
}

export async function runOverhead(db: BenchDb, opts: { rounds?: number; seconds?: number; connections?: number } = {}): Promise<OverheadResult> {
  const { rounds = 3, seconds = 5, connections = 8 } = opts;
  const stack = await startStack(db);
  let bare: Awaited<ReturnType<typeof startChild>> | null = null;
  try {
    const cookie = await signIn(stack.target);
    const token = await apiToken(stack.api);
    bare = await startChild(join(import.meta.dirname, 'support', 'bare-forwarder.ts'), { BENCH_API_URL: stack.api, BENCH_API_TOKEN: token });
    const viaServer = { url: `${stack.target}/trpc/bicycles.list?input=${trpcInput({ page: 1, page_size: 25 })}`, headers: { cookie } };
    const direct = { url: `${stack.api}bicycles/?page=1&page_size=25`, headers: { authorization: `Bearer ${token}` } };
    const bareHop = { url: `${String(bare.ready.url)}/bicycles?page=1&page_size=25`, headers: {} };
    for (const side of [viaServer, direct, bareHop]) await autocannon({ url: side.url, connections, duration: 1, headers: side.headers });
    const rps = { backOffice: [] as number[], direct: [] as number[] };
    const seq = { backOffice: [] as number[], direct: [] as number[], bareHop: [] as number[] };
    const added = { backOffice: [] as number[], bareHop: [] as number[], beyond: [] as number[], ratio: [] as number[] };
    const cpu = { backOffice: [] as number[], bareHop: [] as number[], api: [] as number[], ratio: [] as number[] };
    const servers = { backOffice: stack.backOffice, bareHop: bare, api: stack.upstream };
    const load: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const [name, side] of [
        ['backOffice', viaServer],
        ['direct', direct],
      ] as const) {
        const result = await autocannon({ url: side.url, connections, duration: seconds, headers: side.headers });
        if (result.non2xx || result.errors) throw new Error(`${side.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        rps[name].push(result.requests.average);
      }
      const readings: Record<keyof typeof servers, number>[] = [];
      const readCpu = async () => {
        const entries = await Promise.all(Object.entries(servers).map(async ([name, child]) => [name, await child.ask<number>('cpuMs')] as const));
        readings.push(Object.fromEntries(entries) as Record<keyof typeof servers, number>);
      };
      const paired = await pairedP50([direct, viaServer, bareHop], 400, readCpu);
      const used = (name: keyof typeof servers) => readings[1]![name] - readings[0]![name];
      cpu.backOffice.push(used('backOffice') / paired.measured);
      cpu.bareHop.push(used('bareHop') / paired.measured);
      cpu.api.push(used('api') / (3 * paired.measured));
      cpu.ratio.push(used('backOffice') / used('bareHop'));
      seq.direct.push(paired.p50[0]!);
      seq.backOffice.push(paired.p50[1]!);
      seq.bareHop.push(paired.p50[2]!);
      added.backOffice.push(paired.diffFromFirst[1]!);
      added.bareHop.push(paired.diffFromFirst[2]!);
      added.beyond.push(paired.diffFromFirst[1]! - paired.diffFromFirst[2]!);
      added.ratio.push(paired.diffFromFirst[1]! / paired.diffFromFirst[2]!);
      load.push(Number(loadavg()[0]!.toFixed(2)));
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
      sequentialP50Ms: { backOffice: spread(seq.backOffice, 2), direct: spread(seq.direct, 2), bareHop: spread(seq.bareHop, 2) },
      addedP50Ms: spread(added.backOffice, 2),
      bareHopAddedP50Ms: spread(added.bareHop, 2),
      beyondBareHopP50Ms: spread(added.beyond, 2),
      addedP50RatioToBareHop: spread(added.ratio, 2),
      cpuPerRequestMs: { backOffice: spread(cpu.backOffice, 3), bareHop: spread(cpu.bareHop, 3), api: spread(cpu.api, 3) },
      cpuRatioToBareHop: spread(cpu.ratio, 2),
      loadAverage: load,
    };
  } finally {
    await bare?.stop();
    await stack.stop();
  }
}
