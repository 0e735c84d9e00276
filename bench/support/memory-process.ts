import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { serveCommands } from './ipc.ts';

// React's production build, as `npm start` runs it (set before React loads: the imports are dynamic).
process.env.NODE_ENV = 'production';
const { buildApp } = await import('../../server/app.ts');
const { startUpstream } = await import('../../upstream/start.ts');

/**
 * `npm start` in one process, as the memory bench measures it (ADR 029): the reference API on PGlite
 * (a fresh data directory, demo data seeded) and the back office with its render workers, both here.
 * Answers a breakdown of where the memory is over IPC.
 */
const root = join(import.meta.dirname, '..', '..');
const upstream = await startUpstream({
  port: 0,
  host: '127.0.0.1',
  dataDir: process.env.BENCH_PGLITE_DIR!,
  demoPassword: 'bench-password',
  logger: false,
  config: { logMailLinks: false },
});
const workers = process.env.SSR_WORKERS ? Number(process.env.SSR_WORKERS) : Math.min(4, Math.max(1, availableParallelism() - 1));
const heapMb = process.env.SSR_WORKER_HEAP_MB ? Number(process.env.SSR_WORKER_HEAP_MB) : undefined;
const app = await buildApp({
  upstreamUrl: upstream.url,
  cookieSecrets: ['bench-cookie-secret-bench-cookie-secret-0001'],
  secureCookies: false,
  ssr: {
    kind: 'production',
    clientDir: join(root, 'dist', 'client'),
    entryServerPath: join(root, 'dist', 'server', 'entry-server.js'),
    renderWorkers: workers,
    ...(heapMb ? { workerHeapMb: heapMb } : {}),
  },
  version: 'bench',
  logger: false,
  loginLimits: { perIpPerMinute: 100_000, perAccountPer15Minutes: 100_000 },
  // The bench watches memory grow; shedding at the default limits is what it informs, not what it tests.
  pressure: { maxEventLoopDelayMs: 60_000, maxRssBytes: 8 * 1024 ** 3, maxHeapUsedBytes: 8 * 1024 ** 3 },
  uploadOrigin: upstream.origin,
});
await app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

const mb = (bytes: number) => Math.round(bytes / 1048576);
function status(): Record<string, number> {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { rssAnon: Math.round(kb('RssAnon') / 1024), rssFile: Math.round(kb('RssFile') / 1024), peakRss: Math.round(kb('VmHWM') / 1024), threads: kb('Threads') };
}

serveCommands({
  sample: async () => {
    const usage = process.memoryUsage();
    const main = getHeapStatistics();
    const threads = await Promise.all(app.renderThreads().map((worker) => worker.getHeapStatistics()));
    return {
      rss: mb(usage.rss),
      ...status(),
      mainHeapUsed: mb(usage.heapUsed),
      mainHeapTotal: mb(usage.heapTotal),
      mainHeapLimit: mb(main.heap_size_limit),
      external: mb(usage.external),
      arrayBuffers: mb(usage.arrayBuffers),
      workerHeapUsed: threads.map((h) => mb(h.used_heap_size)),
      workerHeapTotal: threads.map((h) => mb(h.total_heap_size)),
      workerHeapLimit: threads.map((h) => mb(h.heap_size_limit)),
      pgliteWasm: mb(upstream.db.wasmMemoryBytes?.() ?? 0),
    };
  },
  gc: () => {
    global.gc?.();
    return true;
  },
});
process.send!({ ready: { url } });
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => upstream.close())
    .then(() => process.exit(0));
});
