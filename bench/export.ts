import { Agent, request } from 'undici';
import { percentile, spread, type Spread } from './support/stats.ts';
import { signIn, startStack, type BenchDb } from './support/stack.ts';

/**
 * 5. CSV export of every bicycle end to end (API → back office → client), counted as the bytes arrive:
 * rows/s, time to first byte, the back office's peak RSS (VmHWM, reset when the export starts) and its
 * event-loop delay p99 while exporting, and the latency of a parallel request (a tRPC query every
 * 100 ms) that must stay fast. The client runs in this process, the back office and API in their own.
 * After each export the API measures its database's own rate at the same rows and columns (COPY of the
 * export's select as CSV, read and dropped: `copyBaseline`), and the run reports the ratio of the two (ADR 061).
 */
export interface ExportRun {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  mb: number;
  ttfbMs: number;
  serverPeakRssMb: number;
  serverRssBeforeMb: number;
  eventLoopDelayP99Ms: number;
  parallelRequestMs: { p50: number; p99: number; max: number; n: number };
  /** The database's own rate at the same rows and columns, measured right after the export (ADR 061). */
  database: { rows: number; seconds: number; rowsPerSecond: number; mb: number };
  /** rowsPerSecond / database.rowsPerSecond: the target is ≥ 0.5. */
  ratio: number;
}
export interface ExportResult {
  runs: ExportRun[];
  rowsPerSecond: Spread;
  ttfbMs: Spread;
  serverPeakRssMb: Spread;
  eventLoopDelayP99Ms: Spread;
  parallelP99Ms: Spread;
  databaseRowsPerSecond: Spread;
  ratio: Spread;
}

export async function runExport(db: BenchDb, opts: { repeats?: number; execArgv?: string[] } = {}): Promise<ExportResult> {
  const stack = await startStack(db, { execArgv: opts.execArgv });
  const runs: ExportRun[] = [];
  try {
    const cookie = await signIn(stack.target);
    for (let i = 0; i < (opts.repeats ?? 1); i++) {
      const { rssMb } = await stack.backOffice.ask<{ rssMb: number }>('startWindow');
      const probes: number[] = [];
      let probing = true;
      const probeAgent = new Agent({ connections: 1 });
      const probe = (async () => {
        while (probing) {
          const started = performance.now();
          const res = await request(`${stack.target}/trpc/session.me`, { headers: { cookie }, dispatcher: probeAgent });
          await res.body.dump();
          probes.push(performance.now() - started);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const started = performance.now();
      const res = await request(`${stack.target}/export/bicycles.csv`, { headers: { cookie, 'x-backoffice-csrf': '1' }, bodyTimeout: 600_000 });
      if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}: ${await res.body.text()}`);
      let ttfb = 0;
      let lines = 0;
      let bytes = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (!ttfb) ttfb = performance.now() - started;
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      }
      const seconds = (performance.now() - started) / 1000;
      probing = false;
      await probe;
      await probeAgent.close();
      const window = await stack.backOffice.ask<{ eventLoopDelayMs: { p99: number }; peakRssMb: number }>('endWindow');
      const database = await stack.upstream.ask<ExportRun['database']>('copyBaseline', 'bicycles');
      const rowsPerSecond = Math.round((lines - 1) / seconds);
      runs.push({
        rows: lines - 1,
        seconds: Number(seconds.toFixed(2)),
        rowsPerSecond,
        mb: Number((bytes / 1048576).toFixed(1)),
        ttfbMs: Number(ttfb.toFixed(1)),
        serverPeakRssMb: window.peakRssMb,
        serverRssBeforeMb: rssMb,
        eventLoopDelayP99Ms: Number(window.eventLoopDelayMs.p99.toFixed(1)),
        parallelRequestMs: {
          p50: Number(percentile(probes, 50).toFixed(1)),
          p99: Number(percentile(probes, 99).toFixed(1)),
          max: Number(Math.max(...probes).toFixed(1)),
          n: probes.length,
        },
        database,
        ratio: Number((rowsPerSecond / database.rowsPerSecond).toFixed(2)),
      });
    }
  } finally {
    await stack.stop();
  }
  return {
    runs,
    rowsPerSecond: spread(
      runs.map((r) => r.rowsPerSecond),
      0,
    ),
    ttfbMs: spread(
      runs.map((r) => r.ttfbMs),
      1,
    ),
    serverPeakRssMb: spread(
      runs.map((r) => r.serverPeakRssMb),
      0,
    ),
    eventLoopDelayP99Ms: spread(
      runs.map((r) => r.eventLoopDelayP99Ms),
      1,
    ),
    parallelP99Ms: spread(
      runs.map((r) => r.parallelRequestMs.p99),
      1,
    ),
    databaseRowsPerSecond: spread(
      runs.map((r) => r.database.rowsPerSecond),
      0,
    ),
    ratio: spread(
      runs.map((r) => r.ratio),
      2,
    ),
  };
}
