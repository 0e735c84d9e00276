import { cpus, totalmem } from 'node:os';

/**
 * `npm run bench`: the benchmarks that exist so far, printed as JSON. They need the production build
 * (`npm run build`) and a PostgreSQL database in BENCH_DATABASE_URL (PGlite serialises every query and
 * would measure itself). Results and how they were taken: bench/RESULTS.md.
 */
process.env.NODE_ENV ??= 'production';
if (!process.env.BENCH_DATABASE_URL) {
  process.stderr.write('Set BENCH_DATABASE_URL=postgres://… (an empty database; it is seeded on first use).\n');
  process.exit(2);
}
process.env.BENCH_SEED ??= 'true';
const { runLoad } = await import('./load.ts');
const { runExport } = await import('./export.ts');

const machine = { cpus: cpus().length, model: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version, date: new Date().toISOString() };
const load = await runLoad({ connections: 200, duration: Number(process.env.DURATION ?? 60), label: '200 VUs × 1 req/s, mixed reads and writes' });
process.env.BENCH_SEED = 'false';
const exportResult = await runExport(Number(process.env.ROWS ?? 100_000));
process.stdout.write(JSON.stringify({ machine, load: { ...load, rssMb: { ...load.rssMb, samples: undefined } }, export: exportResult }, null, 2) + '\n');
