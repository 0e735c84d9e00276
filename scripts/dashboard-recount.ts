import { isDeepStrictEqual } from 'node:util';
import { openDatabase, type Db } from '../upstream/db.ts';
import { adminDashboard, buddyDashboard, statistics } from '../upstream/resources/dashboard.ts';
import { recountAdminCounters, recountBuddyCounters, recountSeries, recountStatistics } from '../upstream/resources/dashboard-recount.ts';

/**
 * `node scripts/dashboard-recount.ts`: checks the dashboard's maintained figures (ADR 025) against a
 * recount from the tables on a real database — after a bulk load, a restore, or to see it at scale — and
 * times both. Reads only. DATABASE_URL, else the PGlite directory UPSTREAM_DATA_DIR (default ./data/pglite).
 * BUDDIES=n checks the n buddies with the most services too (default 3). Exit code 1 on any difference;
 * `select dashboard_rebuild()` then recounts the tallies.
 */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

async function main(db: Db) {
  const today = new Date();
  const buddyCount = Number(process.env.BUDDIES ?? 3);
  const checks: { name: string; maintained: () => Promise<unknown>; recount: () => Promise<unknown> }[] = [
    {
      name: 'GET dashboard/ (Admin)',
      maintained: () => adminDashboard(db, today),
      recount: async () => ({ scope: 'all', counters: await recountAdminCounters(db, today), series: await recountSeries(db, today) }),
    },
    { name: 'GET statistics/', maintained: () => statistics(db, today), recount: () => recountStatistics(db, today) },
  ];
  const { rows } = await db.query<{ id: number; n: number }>('select buddy_id as id, count(*) as n from services group by buddy_id order by count(*) desc limit $1', [buddyCount]);
  for (const { id, n } of rows) {
    checks.push({
      name: `GET dashboard/ (Buddy ${id}, ${Number(n)} services)`,
      maintained: () => buddyDashboard(db, Number(id), today),
      recount: async () => ({ scope: 'own', counters: await recountBuddyCounters(db, Number(id), today), series: await recountSeries(db, today, Number(id)) }),
    });
  }
  let differences = 0;
  for (const check of checks) {
    const [maintained, maintainedMs] = await timed(check.maintained);
    const [recount, recountMs] = await timed(check.recount);
    const same = isDeepStrictEqual(maintained, recount);
    if (!same) differences += 1;
    process.stdout.write(`${same ? 'same' : 'DIFFERENT'}  ${check.name}: maintained ${maintainedMs.toFixed(1)} ms, recount ${recountMs.toFixed(1)} ms\n`);
    if (!same) process.stdout.write(`  maintained: ${JSON.stringify(maintained)}\n  recount:    ${JSON.stringify(recount)}\n`);
  }
  return differences;
}

const db = await openDatabase(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : { dataDir: process.env.UPSTREAM_DATA_DIR ?? 'data/pglite' });
try {
  process.exitCode = (await main(db)) > 0 ? 1 : 0;
} finally {
  await db.close();
}
