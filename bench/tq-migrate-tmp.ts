import { openDatabase } from '/work/wt/perf-dashboard/upstream/db.ts';
import { migrate } from '/work/wt/perf-dashboard/upstream/migrate.ts';
const target = process.env.URL ? { databaseUrl: process.env.URL } : { dataDir: process.env.DIR! };
const db = await openDatabase(target);
if (process.env.UNDO) {
  const { readFileSync } = await import('node:fs');
  await db.exec(readFileSync('/tmp/undo-080.sql', 'utf8'));
  console.log('undone');
}
const t = performance.now();
console.log(await migrate(db), ((performance.now() - t) / 1000).toFixed(1), 's');
if (db.kind === 'postgres') await db.exec('analyze dashboard_tallies');
await db.close();
