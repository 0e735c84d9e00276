import type { Db } from '../db.ts';

/**
 * Past the threshold, where the planner's estimate is least sure of itself — it says no more than this many
 * times the threshold — counting goes on up to there instead (issue 33, ADR 066).
 */
export const RECOUNT_FACTOR = 5;

/**
 * How many rows `from` (a `from … where …` clause) has: exactly up to `exactUpTo` (counting stops there, so a
 * filter matching 230 000 rows costs what one matching `exactUpTo` does), beyond it the planner's estimate,
 * said to be one (ADR 040). An estimate is given only when it is sure to be large (ADR 066): the tables it
 * reads have statistics (a table never analysed — PGlite has no autovacuum — is analysed first: the planner
 * otherwise guesses from its pages, five times the truth), and where it says at most `RECOUNT_FACTOR` times
 * the threshold the rows are counted up to there. So a count up to that is exact, and an estimate is above it.
 */
export async function countRows(db: Db, from: string, params: readonly unknown[], exactUpTo: number): Promise<{ count: number; estimated: boolean }> {
  const exact = await countUpTo(db, from, params, exactUpTo);
  if (exact <= exactUpTo) return { count: exact, estimated: false };
  await analyseUnknownTables(db, from, params);
  const estimate = await estimateRows(db, from, params);
  const recountUpTo = exactUpTo * RECOUNT_FACTOR;
  if (estimate <= recountUpTo) {
    const counted = await countUpTo(db, from, params, recountUpTo);
    if (counted <= recountUpTo) return { count: counted, estimated: false };
  }
  return { count: Math.max(recountUpTo + 1, estimate), estimated: true };
}

/** The tables a query's plan reads. */
function relationsOf(node: PlanNode, into = new Set<string>()): Set<string> {
  if (node['Relation Name']) into.add(node['Relation Name']);
  for (const child of node.Plans ?? []) relationsOf(child, into);
  return into;
}

interface PlanNode {
  'Plan Rows': number;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

async function planOf(db: Db, from: string, params: readonly unknown[]): Promise<PlanNode> {
  const { rows: plan } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) select 1 ${from}`, params);
  const parsed = plan[0]?.['QUERY PLAN'];
  const doc = (typeof parsed === 'string' ? JSON.parse(parsed) : parsed) as [{ Plan: PlanNode }];
  return doc[0].Plan;
}

/** Analyses the tables of the query that were never analysed (`reltuples` < 0): an estimate over them is a guess from their size on disk. */
async function analyseUnknownTables(db: Db, from: string, params: readonly unknown[]): Promise<void> {
  const tables = [...relationsOf(await planOf(db, from, params))];
  const { rows } = await db.query<{ relname: string }>(
    'select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relname = any($1::text[]) and c.reltuples < 0',
    [tables],
  );
  for (const { relname } of rows) await db.exec(`analyze "${relname.replace(/"/g, '""')}"`);
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
  return Math.round((await planOf(db, from, params))['Plan Rows']);
}
