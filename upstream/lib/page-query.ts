import type { EntityDef } from '../../shared/entity/define.ts';

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
