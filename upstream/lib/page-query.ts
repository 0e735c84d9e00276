import type { EntityDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { estimateRows } from './count.ts';

/**
 * Whether a list may hold NULL in `column` (the engine's schema: required and boolean fields, and ids,
 * are `not null`; entity-sql.ts).
 */
export function isNullableColumn(def: EntityDef, column: string): boolean {
  if (column === 'id') return false;
  const field = def.fields[column];
  return !field || !(field.required || field.kind === 'boolean');
}

/**
 * A list page's ORDER BY, with the id as the tie-break (issue 22, ADR 047). Empty values come last both
 * ways, but only a nullable column sorted descending has to say so: `asc` already puts NULLs last, and a
 * `desc nulls last` on a column that has none would keep PostgreSQL from reading its b-tree backwards
 * (sorting a million bicycles by `-id` read the whole table).
 */
export function listOrder(alias: string, column: string, desc: boolean, nullable: boolean): string {
  const direction = desc ? 'desc' : 'asc';
  return `${alias}.${column} ${direction}${desc && nullable ? ' nulls last' : ''}, ${alias}.id ${direction}`;
}

/**
 * A page of a list as two steps in one statement: the page's ids (`from … where … order by … limit …
 * offset …`, which an index answers without touching the rows it skips), then those rows with their
 * labels and lookups. Selecting the rows directly computed every label subquery for each row an OFFSET
 * skips: page 200 of the bicycles read 5 000 rows' labels to show 25.
 */
export function pageQuery(q: { select: string; from: string; alias: string; where: string; order: string; limit: number; offset: number }): string {
  const ids = `select ${q.alias}.id from ${q.from}${q.where} order by ${q.order} limit ${q.limit} offset ${q.offset}`;
  return `${q.select} where ${q.alias}.id = any(array(${ids})) order by ${q.order}`;
}

export interface ListPageQuery {
  /** `select <columns> from <table> <alias>`: how a listed row is read. */
  select: string;
  /** `<table> <alias>`. */
  from: string;
  alias: string;
  /** ` where …` (or empty), with `params`. */
  where: string;
  params: readonly unknown[];
  column: string;
  desc: boolean;
  nullable: boolean;
  limit: number;
  offset: number;
  /** Counted exactly up to here; past it the planner's estimate (ADR 040). */
  exactUpTo: number;
}

/**
 * A list's page and its count (issue 22, ADR 047), planned by what the filter matches:
 * - up to `exactUpTo` rows: one pass reads the matches' ids and sort values, counts them, and sorts them for
 *   the page; then the page's rows. A selective filter never walks a sort index hoping to meet its matches
 *   early (a week of one origin, sorted by status, walked 50 000 rows of the status index for 26);
 * - more: the count is the planner's estimate, and the page is read in index order, which meets its rows at
 *   once when so many match.
 */
export async function listPage<T>(db: Db, q: ListPageQuery): Promise<{ rows: T[]; count: number; estimated: boolean }> {
  const { alias: a, column } = q;
  const sortValue = column === 'id' ? '' : `, ${a}.${column}`;
  const { rows: first } = await db.query<{ n: number; ids: (number | string)[] }>(
    `with m as materialized (select ${a}.id${sortValue} from ${q.from}${q.where} limit ${q.exactUpTo + 1})
     select (select count(*) from m)::int as n, array(select m.id from m order by ${listOrder('m', column, q.desc, q.nullable)} limit ${q.limit} offset ${q.offset}) as ids`,
    q.params,
  );
  const matched = Number(first[0]?.n ?? 0);
  const order = listOrder(a, column, q.desc, q.nullable);
  if (matched <= q.exactUpTo) {
    const ids = (first[0]?.ids ?? []).map(Number);
    if (ids.length === 0) return { rows: [], count: matched, estimated: false };
    const { rows } = await db.query<T>(`${q.select} where ${a}.id = any($1::bigint[]) order by ${order}`, [ids]);
    return { rows, count: matched, estimated: false };
  }
  const [estimate, { rows }] = await Promise.all([
    estimateRows(db, `from ${q.from}${q.where}`, q.params),
    db.query<T>(pageQuery({ select: q.select, from: q.from, alias: a, where: q.where, order, limit: q.limit, offset: q.offset }), q.params),
  ]);
  return { rows, count: Math.max(q.exactUpTo + 1, estimate), estimated: true };
}
