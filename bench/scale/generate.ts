import { openDatabase } from '../../upstream/db.ts';
import { migrate } from '../../upstream/migrate.ts';
import { seedDemo } from '../../upstream/seed.ts';
import { compactTallies } from '../../upstream/dashboard-tallies.ts';
import { generateScaleData, type GenerateReport } from './tables.ts';

/**
 * Prepares a data-scale database: migrations, the demo accounts (password `bench-password`), then the
 * million-row tables of tables.ts. Idempotent and resumable: a second run finds the rows and returns.
 * `node bench/scale/generate.ts` alone uses BENCH_DATABASE_URL, or the PGlite directory in BENCH_PGLITE_DIR.
 */
export async function prepareScaleDatabase(
  target: { databaseUrl?: string; dataDir?: string },
  log: (line: string) => void = () => undefined,
  counts: Partial<Record<string, number>> = {},
): Promise<GenerateReport[]> {
  const db = await openDatabase(target);
  try {
    await migrate(db);
    await seedDemo(db, 'bench-password', 1024);
    const report = await generateScaleData(db, log, counts);
    // The generator's inserts left their dashboard deltas (ADR 025) unfolded: fold them before measuring.
    const started = performance.now();
    const folded = await compactTallies(db);
    if (folded > 0) log(`  dashboard tallies: ${folded.toLocaleString('en')} deltas folded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return report;
  } finally {
    await db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.env.BENCH_DATABASE_URL ? { databaseUrl: process.env.BENCH_DATABASE_URL } : { dataDir: process.env.BENCH_PGLITE_DIR ?? 'bench/.data/pglite-scale' };
  const report = await prepareScaleDatabase(target, (line) => process.stderr.write(line + '\n'));
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
}
