import type { Db } from '../db.ts';

/**
 * How many rows `from` (a `from … where …` clause) has: exactly up to `exactUpTo` (counting stops there, so a
 * filter matching 230 000 rows costs what one matching `exactUpTo` does), beyond it the planner's estimate,
 * said to be one (ADR 040). Nobody reads a count past a few thousand as more than its size.
 */
export async function countRows(db: Db, from: string, params: readonly unknown[], exactUpTo: number): Promise<{ count: number; estimated: boolean }> {
  const exact = await countUpTo(db, from, params, exactUpTo);
  if (exact <= exactUpTo) return { count: exact, estimated: false };
  return { count: Math.max(exactUpTo + 1, await estimateRows(db, from, params)), estimated: true };
}

/**
 * A part of a count's rows read first (`ListPageQuery.lead`): `from` (`from … where …`, the same parameters)
 * selects it, and `not` holds for the rows of the whole that it does not (a condition on the counted table's
 * row, added to the whole's WHERE clause, which a count with a lead has: the lead is a part of a search).
 */
export interface CountLead {
  from: string;
  not: string;
}

/**
 * How many rows `from` has, counted up to one past `exactUpTo` (an index-only scan where it can). With a `lead`,
 * its rows are counted first and then the others (`from … and <not>`), in one statement that stops at the bound:
 * when the lead alone has that many, nothing else is read (ADR 054).
 */
export async function countUpTo(db: Db, from: string, params: readonly unknown[], exactUpTo: number, lead?: CountLead): Promise<number> {
  const cap = exactUpTo + 1;
  // Each part capped too: PostgreSQL plans the parts of a UNION ALL for all their rows (hashing a million users
  // for "a"), a part under its own LIMIT for its first ones.
  const rows = lead ? `(select 1 ${lead.from} limit ${cap}) union all (select 1 ${from} and ${lead.not} limit ${cap})` : `select 1 ${from}`;
  const { rows: counted } = await db.query<{ n: number }>(`select count(*)::int as n from (${rows} limit ${cap}) c`, params);
  return Number(counted[0]?.n ?? 0);
}

/** The planner's estimate of how many rows `from` has (no row is read). */
export async function estimateRows(db: Db, from: string, params: readonly unknown[]): Promise<number> {
  const { rows: plan } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) select 1 ${from}`, params);
  const parsed = plan[0]?.['QUERY PLAN'];
  const doc = (typeof parsed === 'string' ? JSON.parse(parsed) : parsed) as [{ Plan: { 'Plan Rows': number } }];
  return Math.round(doc[0].Plan['Plan Rows']);
}
