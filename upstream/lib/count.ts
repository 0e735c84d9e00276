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

/** How many rows `from` has, counted up to one past `exactUpTo` (an index-only scan where it can). */
export async function countUpTo(db: Db, from: string, params: readonly unknown[], exactUpTo: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from (select 1 ${from} limit ${exactUpTo + 1}) c`, params);
  return Number(rows[0]?.n ?? 0);
}

/** The planner's estimate of how many rows `from` has (no row is read). */
export async function estimateRows(db: Db, from: string, params: readonly unknown[]): Promise<number> {
  const { rows: plan } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) select 1 ${from}`, params);
  const parsed = plan[0]?.['QUERY PLAN'];
  const doc = (typeof parsed === 'string' ? JSON.parse(parsed) : parsed) as [{ Plan: { 'Plan Rows': number } }];
  return Math.round(doc[0].Plan['Plan Rows']);
}
