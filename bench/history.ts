import pg from 'pg';
import { openDatabase, type Db } from '../upstream/db.ts';
import { recordChange } from '../upstream/lib/audit.ts';
import { migrate } from '../upstream/migrate.ts';
import { percentile, spread, type Spread } from './support/stats.ts';

/**
 * 9. What the change history (ADR 035, 038) costs a write: the engine's update of one record — the row locked,
 * written, read back — in alternating rounds with and without its history entry (the chain's advisory lock,
 * the last entry read, the HMAC, the insert), on a database of its own: in-memory PGlite, and PostgreSQL when
 * there is one, one writer at a time and 8 writers at once (the chain's lock makes writers take turns at its end).
 */
const KEY = 'bench-history-key-that-is-long-enough';
const RECORDS = 200;

interface Side {
  writesPerSecond: Spread;
  p50Ms: Spread;
}
export interface HistoryCost {
  db: string;
  writers: number;
  rounds: number;
  writesPerRound: number;
  without: Side;
  with: Side;
  /** Per round: with ÷ without writes per second. */
  throughputRatio: Spread;
}

async function freshPostgres(serverUrl: string): Promise<Db> {
  const admin = new pg.Client({ connectionString: serverUrl.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  await admin.query('drop database if exists bench_history with (force)');
  await admin.query('create database bench_history');
  await admin.end();
  return openDatabase({ databaseUrl: serverUrl.replace(/\/[^/]*$/, '/bench_history') });
}

/** One engine-style update of a record, with or without its history entry, in one transaction. */
async function write(db: Db, id: number, n: number, withHistory: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<Record<string, unknown>>('select * from assets where id = $1 for update', [id]);
    await tx.query('update assets set notes = $2, version = version + 1, updated_at = now() where id = $1', [id, `note ${n}`]);
    await tx.query('select * from assets where id = $1', [id]);
    if (withHistory)
      await recordChange(tx, KEY, {
        userId: 1,
        role: 'Admin',
        address: '127.0.0.1',
        requestId: `bench-${n}`,
        entity: 'assets',
        recordId: id,
        action: 'update',
        changes: { notes: [rows[0]?.notes ?? null, `note ${n}`] },
      });
  });
}

async function round(db: Db, withHistory: boolean, writes: number, writers: number, ids: number[]): Promise<{ perSecond: number; p50: number }> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      while (next < writes) {
        const n = next++;
        const t = performance.now();
        // Each writer its own records: the cost measured is the history's, not a row lock's.
        await write(db, ids[(w * 37 + n) % ids.length]!, n, withHistory);
        times.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: writes / ((performance.now() - started) / 1000), p50: percentile(times, 50) };
}

async function measure(db: Db, label: string, writers: number, opts: { rounds: number; writes: number }): Promise<HistoryCost> {
  const { rows } = await db.query<{ id: number }>('select id from assets order by id');
  const ids = rows.map((r) => Number(r.id));
  // Warm both paths first.
  await round(db, true, 50, writers, ids);
  await round(db, false, 50, writers, ids);
  const without: { perSecond: number; p50: number }[] = [];
  const withH: { perSecond: number; p50: number }[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    // Alternating which goes first, so a drift of the machine falls on both.
    const pair = i % 2 === 0 ? [false, true] : [true, false];
    for (const h of pair) (h ? withH : without).push(await round(db, h, opts.writes, writers, ids));
  }
  return {
    db: label,
    writers,
    rounds: opts.rounds,
    writesPerRound: opts.writes,
    without: {
      writesPerSecond: spread(
        without.map((r) => r.perSecond),
        0,
      ),
      p50Ms: spread(without.map((r) => r.p50)),
    },
    with: {
      writesPerSecond: spread(
        withH.map((r) => r.perSecond),
        0,
      ),
      p50Ms: spread(withH.map((r) => r.p50)),
    },
    throughputRatio: spread(
      withH.map((r, i) => r.perSecond / without[i]!.perSecond),
      2,
    ),
  };
}

async function seed(db: Db) {
  await migrate(db);
  await db.exec(`insert into assets (name, asset_type, status) select 'Bench asset ' || g, 'van', 1 from generate_series(1, ${RECORDS}) g`);
}

export async function runHistoryCost(postgresUrl: string | null, opts: { rounds?: number; writes?: number } = {}): Promise<HistoryCost[]> {
  const o = { rounds: opts.rounds ?? 5, writes: opts.writes ?? 400 };
  const results: HistoryCost[] = [];
  const lite = await openDatabase();
  try {
    await seed(lite);
    results.push(await measure(lite, 'PGlite (in memory)', 1, o));
  } finally {
    await lite.close();
  }
  if (postgresUrl) {
    const server = await freshPostgres(postgresUrl);
    try {
      await seed(server);
      results.push(await measure(server, 'PostgreSQL', 1, o));
      results.push(await measure(server, 'PostgreSQL', 8, o));
    } finally {
      await server.close();
    }
  }
  return results;
}
