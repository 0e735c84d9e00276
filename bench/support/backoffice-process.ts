import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { peakRssMb, resetPeakRss, serveCommands } from './ipc.ts';

// React's production build, as `npm start` runs it (set before React loads: the imports are dynamic).
process.env.NODE_ENV = 'production';
const { buildApp } = await import('../../server/app.ts');
const { registerPlainBicycles } = await import('./plain-page.ts');

/**
 * The back office on the production build, in a process of its own, for the benchmarks. It records
 * what only the server sees: time per request (onRequest → onResponse), the SSR render's own time,
 * event-loop delay and peak RSS, and answers them over IPC.
 */
const root = join(import.meta.dirname, '..', '..');
const requestMs: Record<string, number[]> = {};
const renderMs: Record<string, number[]> = {};
const prefetchMs: Record<string, number[]> = {};
const renderCpuMs: Record<string, number[]> = {};
const app = await buildApp({
  upstreamUrl: process.env.BENCH_UPSTREAM_URL!,
  // The API's shared secret: forwarded addresses are believed, and live updates are on (ADR 028, 037).
  upstreamForwardedSecret: process.env.BENCH_FORWARDED_SECRET || undefined,
  cookieSecrets: ['bench-cookie-secret-bench-cookie-secret-0001'],
  secureCookies: false,
  ssr: {
    kind: 'production',
    clientDir: join(root, 'dist', 'client'),
    entryServerPath: join(root, 'dist', 'server', 'entry-server.js'),
    renderWorkers: Number(process.env.BENCH_SSR_WORKERS ?? 1),
    // Unset: what production runs with (ADR 053); a number tries another young generation for the workers.
    ...(process.env.BENCH_SSR_WORKER_SEMI_SPACE_MB ? { workerSemiSpaceMb: Number(process.env.BENCH_SSR_WORKER_SEMI_SPACE_MB) } : {}),
  },
  version: 'bench',
  logger: false,
  loginLimits: { perIpPerMinute: 100_000, perAccountPer15Minutes: 100_000 },
  // A benchmark drives the server to saturation on purpose: shedding would hide what it measures.
  pressure: { maxEventLoopDelayMs: 60_000 },
  onSsrRender: (route, timings) => {
    (renderMs[route] ??= []).push(timings.renderMs);
    (prefetchMs[route] ??= []).push(timings.prefetchMs);
    (renderCpuMs[route] ??= []).push(timings.renderCpuMs);
  },
});
app.addHook('onResponse', async (req, reply) => {
  const key = `${req.method} ${req.routeOptions.url === '/*' ? req.url.split('?')[0] : (req.routeOptions.url ?? 'unmatched')}`;
  (requestMs[key] ??= []).push(reply.elapsedTime);
});
registerPlainBicycles(
  app,
  (ms) => {
    (renderMs['plain:/bicycles'] ??= []).push(ms);
    (renderCpuMs['plain:/bicycles'] ??= []).push(ms); // synchronous string building: wall time is its CPU time
  },
  (ms) => (prefetchMs['plain:/bicycles'] ??= []).push(ms),
);
await app.listen({ port: 0, host: '127.0.0.1' });

const loop = monitorEventLoopDelay({ resolution: 10 });
serveCommands({
  /** Starts a measurement window: event-loop delay and peak RSS from now on, timings cleared. */
  startWindow: () => {
    for (const key of Object.keys(requestMs)) delete requestMs[key];
    for (const key of Object.keys(renderMs)) delete renderMs[key];
    for (const key of Object.keys(prefetchMs)) delete prefetchMs[key];
    for (const key of Object.keys(renderCpuMs)) delete renderCpuMs[key];
    loop.reset();
    loop.enable();
    global.gc?.();
    resetPeakRss();
    return { rssMb: Math.round(process.memoryUsage().rss / 1048576) };
  },
  /** CPU time so far, in ms (user + system): the process, its main thread, and its render threads together. */
  threadCpuMs: async () => {
    const all = process.cpuUsage();
    const main = process.threadCpuUsage();
    const workers = await Promise.all(app.renderThreads().map((w) => w.cpuUsage()));
    const ms = (u: { user: number; system: number }) => (u.user + u.system) / 1000;
    return { process: ms(all), main: ms(main), workers: workers.reduce((sum, u) => sum + ms(u), 0) };
  },
  /** This process's CPU time so far, in ms (user + system). */
  cpuMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
  /** Where the resting memory is (ADR 049): RSS by kind, the main isolate's heap, each render worker's heap. */
  memory: async () => {
    global.gc?.();
    const mb = (n: number) => Math.round(n / 1048576);
    const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    const status = readFileSync('/proc/self/status', 'utf8');
    const st = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    const heap = getHeapStatistics();
    const usage = process.memoryUsage();
    const workers = await Promise.all(app.renderThreads().map((w) => w.getHeapStatistics()));
    return {
      rssMb: mb(usage.rss),
      rssAnonMb: Math.round(st('RssAnon') / 1024),
      rssFileMb: Math.round(st('RssFile') / 1024),
      pssMb: Math.round(kb('Pss') / 1024),
      mainHeap: {
        totalMb: mb(heap.total_heap_size),
        usedMb: mb(heap.used_heap_size),
        externalMb: mb(usage.external),
        arrayBuffersMb: mb(usage.arrayBuffers),
        mallocedMb: mb(heap.malloced_memory),
        unusedMb: mb(heap.total_heap_size - heap.used_heap_size),
      },
      workers: workers.map((h) => ({ totalMb: mb(h.total_heap_size), usedMb: mb(h.used_heap_size), mallocedMb: mb(h.malloced_memory), limitMb: mb(h.heap_size_limit) })),
      spaces: getHeapSpaceStatistics().map((s) => ({ name: s.space_name, sizeMb: mb(s.space_size), usedMb: mb(s.space_used_size) })),
    };
  },
  endWindow: () => {
    loop.disable();
    return {
      eventLoopDelayMs: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      peakRssMb: peakRssMb(),
      rssMb: Math.round(process.memoryUsage().rss / 1048576),
      requestMs: { ...requestMs },
      renderMs: { ...renderMs },
      prefetchMs: { ...prefetchMs },
      renderCpuMs: { ...renderCpuMs },
      refreshes: { ...app.refreshStats },
    };
  },
});
process.on('SIGTERM', () => void app.close().finally(() => process.exit(0)));
const port = (app.server.address() as { port: number }).port;
process.send!({ ready: { url: `http://127.0.0.1:${port}` } });
