import { cpus, loadavg, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run bench`: the benchmarks of issue 7 (and 8, the dashboard tallies of issue 14) on the production build, results in bench/results.json
 * and the generated section of bench/RESULTS.md. PostgreSQL: BENCH_DATABASE_URL, else a throw-away server
 * from Debian's binaries on bench/.data/pg, else PGlite only (said in the results). Data sets are generated
 * once and kept under bench/.data/ (git-ignored). BENCH_ONLY=ssr,export,… runs a subset (the other sections are kept from the last
 * run, marked with their date); BENCH_QUICK=1
 * shortens every run (to try the harness, not for figures).
 */
process.env.NODE_ENV = 'production';
const root = join(import.meta.dirname, '..');
const { ensureBuild } = await import('../scripts/ensure-build.ts');
ensureBuild();
const { startBenchPostgres } = await import('./support/postgres.ts');
const { prepareDataSet } = await import('./support/databases.ts');
const { describeDb } = await import('./support/stack.ts');
const { BUNDLE_BUDGETS, readClientBuild, routeBundle } = await import('./bundles.ts');
const { budgetRouteModules } = await import('./route-modules.ts');
const { runSsr } = await import('./ssr.ts');
const { runLighthouse } = await import('./lighthouse.ts');
const { runOverhead } = await import('./overhead.ts');
const { runExport } = await import('./export.ts');
const { runRefreshStorm } = await import('./refresh-storm.ts');
const { runDataScale } = await import('./data-scale.ts');
const { runTallies } = await import('./tallies.ts');
const { runHistoryCost } = await import('./history.ts');
const { runLive } = await import('./live.ts');
const { runWire } = await import('./wire.ts');
const { SECTIONS, carryForward, renderResults, writeResultsSection } = await import('./report.ts');

const ALL = SECTIONS;
const only = new Set((process.env.BENCH_ONLY ?? ALL.join(',')).split(',').map((s) => s.trim()));
const quick = process.env.BENCH_QUICK === '1';
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const started = Date.now();

const gitCommit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();
const results: Record<string, unknown> = {
  machine: {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadavg().map((v) => Number(v.toFixed(2))),
  },
  date: new Date().toISOString(),
  commit: gitCommit,
  quick,
};

async function step<T>(name: string, fn: () => Promise<T>): Promise<void> {
  if (!only.has(name)) return;
  const t = Date.now();
  log(`${name}…`);
  try {
    results[name] = await fn();
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? error.stack : String(error)}`);
    results[name] = { error: error instanceof Error ? error.message : String(error) };
  }
  log(`${name} took ${Math.round((Date.now() - t) / 1000)} s`);
}

const postgres = await startBenchPostgres();
results.postgres = postgres
  ? postgres.description
  : 'none: BENCH_DATABASE_URL unset and no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql); PGlite only';
const where = postgres ? { postgres } : ('pglite' as const);
try {
  const needs = (...names: string[]) => names.some((n) => only.has(n));
  const small = needs('ssr', 'lighthouse', 'overhead', 'refresh', 'live', 'wire') ? await prepareDataSet('small', where, log) : null;
  const k100 = needs('export') ? await prepareDataSet('k100', where, log) : null;
  const scale = needs('export', 'scale', 'tallies') ? await prepareDataSet('scale', where, log) : null;
  const pgliteScale = needs('scale', 'export') && postgres ? await prepareDataSet('scale', 'pglite', log) : null;
  // The export on PGlite too, beside PostgreSQL's (ADR 061: each against its own database's speed).
  const pgliteK100 = needs('export') && postgres ? await prepareDataSet('k100', 'pglite', log) : null;
  results.dataSets = {
    small: small && describeDb(small.db),
    k100: k100 && describeDb(k100.db),
    scale: scale && describeDb(scale.db),
    pgliteScale: pgliteScale && describeDb(pgliteScale.db),
    pgliteK100: pgliteK100 && describeDb(pgliteK100.db),
  };

  await step('bundles', async () => {
    const clientDir = join(root, 'dist', 'client');
    const build = readClientBuild(clientDir);
    return Object.entries(BUNDLE_BUDGETS).map(([route, budget]) => ({ ...routeBundle(clientDir, build, route, budgetRouteModules(route)), budget }));
  });
  await step('ssr', () => runSsr(small!.db, quick ? { rounds: 1, seconds: 2 } : {}).then((r) => ({ ...r, db: describeDb(small!.db) })));
  await step('lighthouse', () => runLighthouse(small!.db, { runs: quick ? 1 : Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3) }));
  await step('overhead', () => runOverhead(small!.db, quick ? { rounds: 1, seconds: 2 } : {}).then((r) => ({ ...r, db: describeDb(small!.db) })));
  await step('export', async () => ({
    k100: { db: describeDb(k100!.db), ...(await runExport(k100!.db, { repeats: quick ? 1 : 3 })) },
    m1: { db: describeDb(scale!.db), ...(await runExport(scale!.db, { repeats: 1 })) },
    ...(pgliteK100 ? { k100Pglite: { db: describeDb(pgliteK100.db), ...(await runExport(pgliteK100.db, { repeats: quick ? 1 : 3 })) } } : {}),
    ...(pgliteScale ? { m1Pglite: { db: describeDb(pgliteScale.db), ...(await runExport(pgliteScale.db, { repeats: 1 })) } } : {}),
  }));
  await step('refresh', () => runRefreshStorm(small!.db, { storms: quick ? 1 : 3 }).then((r) => ({ ...r, db: describeDb(small!.db) })));
  await step('scale', async () => {
    const runs = [await runDataScale(scale!.db, scale!.report, { samples: quick ? 10 : 100 })];
    if (pgliteScale) runs.push(await runDataScale(pgliteScale.db, pgliteScale.report, { samples: quick ? 5 : 40 }));
    return runs;
  });
  await step('tallies', async () => {
    if (!postgres) throw new Error('needs PostgreSQL (BENCH_DATABASE_URL or Debian binaries)');
    return runTallies(postgres.url, scale?.db.kind === 'postgres' ? scale.db.url : null, quick ? { rounds: 1, n: 200, bulkRows: 10_000, seconds: 1 } : {});
  });
  await step('live', () => runLive(small!.db, quick ? { streams: 100, changes: 5 } : {}).then((r) => ({ ...r, db: describeDb(small!.db) })));
  await step('wire', () => runWire(small!.db, quick ? { runs: 1 } : {}).then((r) => ({ ...r, db: describeDb(small!.db) })));
  await step('history', () => runHistoryCost(postgres?.url ?? null, quick ? { rounds: 1, writes: 50 } : {}));
} finally {
  await postgres?.stop();
}

results.machine = { ...(results.machine as object), loadAverageAtEnd: loadavg().map((v) => Number(v.toFixed(2))) };
results.totalSeconds = Math.round((Date.now() - started) / 1000);
const resultsPath = join(import.meta.dirname, 'results.json');
// A subset run keeps the other sections of the last full figures (never from a quick run).
const previous = !quick && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, 'utf8')) : null;
const merged = carryForward(
  previous?.quick ? null : previous,
  results,
  ALL.filter((name) => only.has(name)),
);
if (quick) {
  mkdirSync(join(import.meta.dirname, '.data'), { recursive: true });
  writeFileSync(join(import.meta.dirname, '.data', 'results-quick.json'), JSON.stringify(results, null, 2) + '\n');
} else {
  writeFileSync(resultsPath, JSON.stringify(merged, null, 2) + '\n');
  writeResultsSection(join(import.meta.dirname, 'RESULTS.md'), renderResults(merged));
}
process.stdout.write(renderResults(merged) + '\n');
log(`done in ${results.totalSeconds} s; ${quick ? 'bench/.data/results-quick.json' : 'bench/results.json and bench/RESULTS.md'} written`);
