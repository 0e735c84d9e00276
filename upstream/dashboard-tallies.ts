import type { Db } from './db.ts';

/**
 * The dashboard's maintained counts (migration 080, ADR 025): rows of (metric, scope, day, n) that the
 * database's triggers keep current as data changes. A figure is a sum over a few of them: a plain count
 * is its one undated row, a figure that depends on "today" sums a range of days. Reads go through the
 * view `dashboard_tally_rows` (folded rows plus the deltas not folded yet), so they are exact at any time.
 */
export interface TallyRow {
  metric: string;
  /** YYYY-MM-DD, or null for a count that is not per day. */
  day: string | null;
  n: number;
}

/** Scope of the whole marketplace; a buddy's own figures use their user id. */
export const ALL = 0;

/**
 * The tallies of `metrics` in `scope`: undated ones, and dated ones from `from` (YYYY-MM-DD) on, or every
 * day when `from` is null. A few hundred rows, whatever the size of the tables they count.
 */
export async function readTallies(db: Db, scope: number, metrics: readonly string[], from: string | null): Promise<TallyRow[]> {
  const { rows } = await db.query<{ metric: string; day: string | null; n: number }>(
    `select metric, day::text as day, sum(n) as n from dashboard_tally_rows
      where scope = $1 and metric = any($2::text[]) and (day is null or day >= coalesce($3::date, '-infinity'))
      group by metric, day`,
    [scope, metrics, from],
  );
  return rows.map((r) => ({ metric: r.metric, day: r.day, n: Number(r.n) }));
}

/** Sum of one metric's rows, optionally over days `from`..`to` (inclusive; open-ended when left out). */
export function sumTallies(rows: readonly TallyRow[], metric: string, range: { from?: string; to?: string } = {}): number {
  let total = 0;
  for (const row of rows) {
    if (row.metric !== metric) continue;
    if (range.from !== undefined && (row.day === null || row.day < range.from)) continue;
    if (range.to !== undefined && (row.day === null || row.day > range.to)) continue;
    total += row.n;
  }
  return total;
}

/**
 * Folds the deltas written since the last compaction into one row per key (`dashboard_compact()`).
 * Readers are exact either way; compaction keeps what they sum small. PGlite has no autovacuum, so the
 * emptied delta table is vacuumed here or it would only grow.
 */
export async function compactTallies(db: Db): Promise<number> {
  const { rows } = await db.query<{ folded: number }>('select dashboard_compact() as folded');
  const folded = Number(rows[0]?.folded ?? 0);
  if (folded > 0 && db.kind === 'pglite') await db.exec('vacuum dashboard_tally_deltas');
  return folded;
}
