import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { percentile, spread, type Spread } from './support/stats.ts';
import { signIn, startStack, type BenchDb } from './support/stack.ts';

/**
 * 1. SSR: /login (anonymous) and /bicycles (admin, 25 rows prefetched from the API) rendered by the real
 * server on loopback with the API running, under autocannon; beside them, in the same run, the same 25
 * rows fetched by the same API call and rendered as plain HTML strings (bench/support/plain-page.ts).
 * Rounds alternate the three pages so machine noise hits them alike. Figures per page: throughput
 * (pages/s), client latency p50, and from inside the server the render time (data already fetched) p50.
 */
interface PageFigures {
  rps: Spread;
  latencyP50Ms: Spread;
  renderP50Ms: Spread;
  /** Time to fetch the page's data (tRPC prefetch through the API) before rendering. */
  prefetchP50Ms: Spread;
  requestP50Ms: Spread;
}

/** One request at a time: the render's own cost, without queueing behind other requests. */
interface SequentialFigures {
  renderP50Ms: number;
  /** The page's data fetch (for the plain page: its API call). */
  prefetchP50Ms: number;
  renderCpuP50Ms: number;
  requestP50Ms: number;
  requests: number;
  /**
   * The back office's CPU per page, in ms: the whole process, its main thread, its render threads (their whole
   * time, not only the render), and the rest (V8's collector and compiler threads, zlib's pool). Load moves it far
   * less than pages/s, so it is what the SSR ratio is read against.
   */
  cpuPerPageMs?: { process: number; main: number; renderThreads: number; other: number };
}

export interface SsrResult {
  db: string;
  connections: number;
  seconds: number;
  rounds: number;
  pages: Record<string, PageFigures>;
  sequential: Record<string, SequentialFigures>;
  /** React render time ÷ plain-string render time of the same rows (per round, then median). */
  renderRatio: Spread;
  /** Plain-string pages/s ÷ React pages/s, end to end through the same server and API call. */
  throughputRatio: Spread;
  /** React pages/s ÷ plain-string pages/s, per round (issue 22: ≥ 0.5). */
  reactShareOfPlain?: Spread;
  /** The React page's data fetch minus the plain page's API call, under load (per round, p50s). Issue 14: ≤ 2 ms. */
  fetchGapMs: Spread;
  renderCpuRatio: number;
  bytes: Record<string, number>;
}

export async function runSsr(db: BenchDb, opts: { rounds?: number; seconds?: number; connections?: number; sequential?: number } = {}): Promise<SsrResult> {
  const { rounds = 3, seconds = 5, connections = 8 } = opts;
  const stack = await startStack(db);
  try {
    const cookie = await signIn(stack.target);
    // As a browser asks: the pages come back gzip-compressed, and that cost is part of what is measured.
    const browser = { 'accept-encoding': 'gzip, deflate, br' };
    const pages: { name: string; path: string; headers: Record<string, string>; renderKey: string }[] = [
      { name: '/login', path: '/login', headers: browser, renderKey: '/login' },
      { name: '/bicycles', path: '/bicycles', headers: { ...browser, cookie }, renderKey: '/bicycles' },
      { name: 'plain /bicycles', path: '/__bench/plain/bicycles', headers: { ...browser, cookie }, renderKey: 'plain:/bicycles' },
    ];
    const bytes: Record<string, number> = {};
    for (const page of pages) {
      const res = await fetch(stack.target + page.path, { headers: { cookie: page.headers.cookie ?? '' }, redirect: 'manual' });
      if (res.status !== 200) throw new Error(`${page.path} answered ${res.status}`);
      bytes[page.name] = (await res.text()).length;
      // Warm-up: JIT, connection pools, the API's caches.
      await autocannon({ url: stack.target + page.path, connections, duration: 1, headers: page.headers });
    }
    const raw: Record<string, { rps: number[]; lat: number[]; render: number[]; prefetch: number[]; request: number[] }> = {};
    for (let round = 0; round < rounds; round++) {
      for (const page of pages) {
        await stack.backOffice.ask('startWindow');
        const result = await autocannon({ url: stack.target + page.path, connections, duration: seconds, headers: page.headers });
        const window = await stack.backOffice.ask<{ renderMs: Record<string, number[]>; prefetchMs: Record<string, number[]>; requestMs: Record<string, number[]> }>('endWindow');
        if (result.non2xx || result.errors) throw new Error(`${page.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const r = (raw[page.name] ??= { rps: [], lat: [], render: [], prefetch: [], request: [] });
        r.rps.push(result.requests.average);
        r.lat.push(result.latency.p50);
        r.render.push(percentile(window.renderMs[page.renderKey] ?? [], 50));
        r.prefetch.push(percentile(window.prefetchMs[page.renderKey] ?? [NaN], 50));
        r.request.push(percentile(window.requestMs[`GET ${page.path}`] ?? [], 50));
      }
    }
    // One at a time: render wall and CPU time per page, without the queueing of the load rounds.
    const sequential: Record<string, SequentialFigures> = {};
    const agent = new Agent({ connections: 1 });
    for (const page of pages) {
      await stack.backOffice.ask('startWindow');
      const n = opts.sequential ?? 150;
      type Cpu = { process: number; main: number; workers: number };
      const cpuBefore = await stack.backOffice.ask<Cpu>('threadCpuMs');
      for (let i = 0; i < n; i++) {
        const res = await request(stack.target + page.path, { headers: page.headers, dispatcher: agent });
        await res.body.dump();
      }
      const cpuAfter = await stack.backOffice.ask<Cpu>('threadCpuMs');
      const perPage = (key: keyof Cpu) => (cpuAfter[key] - cpuBefore[key]) / n;
      const window = await stack.backOffice.ask<{
        renderMs: Record<string, number[]>;
        renderCpuMs: Record<string, number[]>;
        prefetchMs: Record<string, number[]>;
        requestMs: Record<string, number[]>;
      }>('endWindow');
      sequential[page.name] = {
        renderP50Ms: Number(percentile(window.renderMs[page.renderKey] ?? [], 50).toFixed(2)),
        prefetchP50Ms: Number(percentile(window.prefetchMs[page.renderKey] ?? [NaN], 50).toFixed(2)),
        renderCpuP50Ms: Number(percentile(window.renderCpuMs[page.renderKey] ?? [], 50).toFixed(2)),
        requestP50Ms: Number(percentile(window.requestMs[`GET ${page.path}`] ?? [], 50).toFixed(2)),
        requests: n,
        cpuPerPageMs: {
          process: Number(perPage('process').toFixed(2)),
          main: Number(perPage('main').toFixed(2)),
          renderThreads: Number(perPage('workers').toFixed(2)),
          other: Number((perPage('process') - perPage('main') - perPage('workers')).toFixed(2)),
        },
      };
    }
    await agent.close();
    const figures = Object.fromEntries(
      Object.entries(raw).map(([name, r]) => [
        name,
        { rps: spread(r.rps, 0), latencyP50Ms: spread(r.lat, 1), renderP50Ms: spread(r.render, 2), prefetchP50Ms: spread(r.prefetch, 2), requestP50Ms: spread(r.request, 2) },
      ]),
    );
    const react = raw['/bicycles']!;
    const plain = raw['plain /bicycles']!;
    return {
      db: '',
      connections,
      seconds,
      rounds,
      pages: figures,
      sequential,
      /** The render-cost ratio from the one-at-a-time phase (CPU time, immune to other processes). */
      renderCpuRatio: Number((sequential['/bicycles']!.renderCpuP50Ms / sequential['plain /bicycles']!.renderCpuP50Ms).toFixed(1)),
      renderRatio: spread(
        react.render.map((v, i) => v / plain.render[i]!),
        1,
      ),
      throughputRatio: spread(
        plain.rps.map((v, i) => v / react.rps[i]!),
        2,
      ),
      reactShareOfPlain: spread(
        react.rps.map((v, i) => v / plain.rps[i]!),
        2,
      ),
      fetchGapMs: spread(
        react.prefetch.map((v, i) => v - plain.prefetch[i]!),
        2,
      ),
      bytes,
    };
  } finally {
    await stack.stop();
  }
}
