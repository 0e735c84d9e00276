import pg from 'pg';

/**
 * CSV export of N bicycles end to end (API → back office → client): rows/s, time to first byte, the
 * back office's peak RSS, and the event-loop delay a parallel request sees while the export runs.
 * Needs BENCH_DATABASE_URL (rows are generated there with generate_series).
 */
process.env.NODE_ENV ??= 'production';
const { startBackOffice, startUpstreamProcess } = await import('./load.ts');
const { monitorEventLoopDelay } = await import('node:perf_hooks');

export async function runExport(rows: number) {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) throw new Error('BENCH_DATABASE_URL is required for the export benchmark');
  const upstream = await startUpstreamProcess();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows: existing } = await client.query<{ n: number }>("select count(*)::int as n from bicycles where serial_number like 'XB-%'");
  if (existing[0]!.n < rows) {
    await client.query(
      `insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, insurance_company)
       select 'Export ' || g, 'XB-' || g, 'Shimano', 'chain', 'disc', 'Abus', '35', '622', 'presta', 'used, "fine"', date '2024-01-01', '=formula'
       from generate_series($1::int + 1, $2::int) g`,
      [existing[0]!.n, rows],
    );
  }
  await client.end();

  const { app, target, cookie } = await startBackOffice(upstream.url);

  global.gc?.();
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  // A parallel request every 100 ms while the export runs: it must stay fast.
  const probes: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      await fetch(`${target}/healthz`).then((r) => r.arrayBuffer());
      probes.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const started = performance.now();
  const res = await fetch(`${target}/export/bicycles.csv?search=export`, { headers: { cookie, 'x-backoffice-csrf': '1' } });
  const reader = res.body!.getReader();
  let ttfb = 0;
  let lines = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!ttfb) ttfb = performance.now() - started;
    bytes += value.length;
    for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  probing = false;
  await probe;
  clearInterval(sampler);
  loop.disable();
  await app.close();
  upstream.child.kill('SIGTERM');
  const sorted = probes.sort((a, b) => a - b);
  return {
    rows: lines - 1,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round((lines - 1) / seconds),
    mb: Number((bytes / 1024 / 1024).toFixed(1)),
    ttfbMs: Math.round(ttfb),
    serverRssMb: { start: Math.round(rssStart / 1048576), peak: Math.round(rssPeak / 1048576) },
    eventLoopDelayP99Ms: Number((loop.percentile(99) / 1e6).toFixed(1)),
    parallelRequestMs: { p50: Number(sorted[Math.floor(sorted.length / 2)]?.toFixed(1)), max: Number(sorted[sorted.length - 1]?.toFixed(1)) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify(await runExport(Number(process.env.ROWS ?? 100_000)), null, 2) + '\n');
}
