import type { EntityDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { countUpTo, estimateRows } from './count.ts';

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
 * Whether a list sorted by `column` can be paged from a cursor (keyset paging, ADR 051): the id, or a column
 * that holds no NULL and whose values come back from the database exactly (not a timestamp, which JavaScript
 * reads to the millisecond, nor a decimal read as a float).
 */
export function isKeysetColumn(def: EntityDef, column: string): boolean {
  if (column === 'id') return true;
  const field = def.fields[column];
  return Boolean(field) && !isNullableColumn(def, column) && !['datetime', 'decimal', 'money'].includes(field!.kind);
}

/** Where a page starts when it follows another: the previous page's last row's sort value and id. */
export interface PageCursor {
  value: string | number | boolean;
  id: number;
}

/** The cursor of a listed row, as the paginator's `next_after` carries it: opaque text, safe in a URL. */
export function encodeCursor(row: Record<string, unknown>, column: string): string {
  return Buffer.from(JSON.stringify([row[column], Number(row.id)])).toString('base64url');
}

/** A cursor read back, or null when it is not one (the list then answers 400). */
export function decodeCursor(text: string): PageCursor | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [value, id] = parsed as [unknown, unknown];
    if (!['string', 'number', 'boolean'].includes(typeof value) || !Number.isSafeInteger(id) || (id as number) < 1) return null;
    return { value: value as PageCursor['value'], id: id as number };
  } catch {
    return null;
  }
}

/** Whether a cursor's sort value is a value of `column` (a cursor is the client's text: never cast blindly). */
export function cursorFits(def: EntityDef, column: string, cursor: PageCursor): boolean {
  if (column === 'id') return true;
  const { value } = cursor;
  const field = def.fields[column];
  switch (field?.kind) {
    case 'enum':
      return (field.options as readonly unknown[] | undefined)?.includes(value) ?? false;
    case 'integer':
    case 'reference':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d\d-\d\d$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'time':
      return typeof value === 'string' && /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(value);
    default:
      return typeof value === 'string' && value.length <= 1000 && !value.includes('\u0000');
  }
}

/**
 * The condition of the rows after a cursor in the list's order, with its parameters numbered from `from`: a
 * page read from it seeks in the sort index instead of skipping `offset` rows.
 */
export function afterCursor(alias: string, column: string, desc: boolean, cursor: PageCursor, from: number): { sql: string; params: unknown[] } {
  const op = desc ? '<' : '>';
  if (column === 'id') return { sql: `${alias}.id ${op} $${from}`, params: [cursor.id] };
  return { sql: `(${alias}.${column}, ${alias}.id) ${op} ($${from}, $${from + 1})`, params: [cursor.value, cursor.id] };
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
export function pageQuery(q: {
  select: string;
  from: string;
  alias: string;
  where: string;
  column: string;
  desc: boolean;
  nullable: boolean;
  limit: number;
  offset: number;
}): string {
  const order = listOrder(q.alias, q.column, q.desc, q.nullable);
  return `${q.select} where ${q.alias}.id = any(array(${pageIds(q)})) order by ${order}`;
}

/**
 * The ids of a page in its order. A nullable column sorted descending puts its empty values last, an order no
 * ascending b-tree gives read backwards (that gives them first), so PostgreSQL sorted every match: the users
 * sorted by first name, newest invitation or membership first took 0.2-0.4 s at 1M (ADR 056). Its page is
 * read in two parts, each from the column's index: the rows with a value, backwards, then those without, by id
 * (`<column> is null` is an index condition of the same b-tree), each up to the page's end; the page is then
 * taken from at most twice that many rows, sorted again.
 */
function pageIds(q: { from: string; alias: string; where: string; column: string; desc: boolean; nullable: boolean; limit: number; offset: number }): string {
  const { alias: a, column } = q;
  const order = listOrder(a, column, q.desc, q.nullable);
  if (!(q.desc && q.nullable)) return `select ${a}.id from ${q.from}${q.where} order by ${order} limit ${q.limit} offset ${q.offset}`;
  const and = q.where ? `${q.where} and` : ' where';
  const upTo = q.limit + q.offset;
  const part = (test: string) => `(select ${a}.id, ${a}.${column} as v from ${q.from}${and} ${a}.${column} ${test} order by ${a}.${column} desc, ${a}.id desc limit ${upTo})`;
  return `select p.id from (${part('is not null')} union all ${part('is null')}) p order by p.v desc nulls last, p.id desc limit ${q.limit} offset ${q.offset}`;
}

export interface ListPageQuery {
  /** `select <columns> from <table> <alias>`: how a listed row is read. */
  select: string;
  /** `<table> <alias>`. */
  from: string;
  alias: string;
  /** ` where …` (or empty), with `params`. */
  where: string;
  /**
   * The same rows as a page read in its sort order (many matches) asks for them, when that form differs: a
   * walk that meets its page soon asks each row its references rather than listing every match first (ADR 054).
   */
  walk?: string;
  /**
   * Many matches: a part of them that an index finds fast and that is expected to hold more than `exactUpTo`
   * (` where …` with `params`, the search's leading field with the other conditions), and the condition of the
   * rows it does not hold. The capped count reads it first and stops there when it alone passes the threshold
   * (`countUpTo`); otherwise it reads the other rows after it, so the count is the same.
   */
  lead?: { where: string; not: string };
  params: readonly unknown[];
  column: string;
  desc: boolean;
  nullable: boolean;
  limit: number;
  offset: number;
  /** Counted exactly up to here; past it the planner's estimate (ADR 040). */
  exactUpTo: number;
  /** The page follows the row of this cursor (a keyset column only, `isKeysetColumn`): read from it, not at `offset`. */
  after?: PageCursor | null;
}

/**
 * A list's page and its count (issue 22, ADR 047), planned by how many rows the filter matches, as the
 * planner estimates it (EXPLAIN, nothing read):
 * - a few (up to `exactUpTo`): one pass reads the matches' ids and sort values, counts them and sorts them
 *   for the page, then the page's rows are read. A selective filter never walks a sort index hoping to meet
 *   its matches early (a week of one origin, sorted by status, walked 50 000 rows of the status index for 26);
 * - more: the count stops at `exactUpTo` + 1 (an index-only scan; past it the estimate, ADR 040) and the
 *   page is read in index order, which meets its rows at once when so many match.
 * A wrong estimate costs time, never the answer: the first way falls back to the second when it finds more.
 */
export async function listPage<T>(db: Db, q: ListPageQuery): Promise<{ rows: T[]; count: number; estimated: boolean }> {
  const { alias: a, column } = q;
  // A cursor's `(column, id) < (…)` is never true of an empty value: the rows without one would be lost.
  if (q.after && q.nullable) throw new Error(`a list sorted by ${column}, which can be empty, is paged by offset`);
  const order = listOrder(a, column, q.desc, q.nullable);
  const from = `from ${q.from}${q.where}`;
  const estimate = await estimateRows(db, from, q.params);
  if (estimate <= q.exactUpTo) {
    // One statement (ADR 052): the matches' ids and sort values, their count, the page's ids and those rows
    // with their labels; the count rides on each row. An empty page past the first says nothing of the count.
    const sortValue = column === 'id' ? '' : `, ${a}.${column}`;
    const { rows: found } = await db.query<T & { [MATCHED]?: number }>(
      `with m as materialized (select ${a}.id${sortValue} ${from} limit ${q.exactUpTo + 1})
       ${withColumn(q.select, `(select count(*) from m)::int as ${MATCHED}`)} where ${a}.id = any(array(select m.id from m order by ${listOrder('m', column, q.desc, q.nullable)} limit ${q.limit} offset ${q.offset})) order by ${order}`,
      q.params,
    );
    const matched = found.length > 0 ? Number(found[0]![MATCHED]) : q.offset === 0 ? 0 : await countUpTo(db, from, q.params, q.exactUpTo);
    if (matched <= q.exactUpTo) return { rows: found.map(withoutMatched) as T[], count: matched, estimated: false };
  }
  // Past the first pages, a page that follows another seeks from its cursor: page 200 no longer reads the
  // 4 975 index entries before it.
  const where = q.walk ?? q.where;
  const seek = q.after ? afterCursor(a, column, q.desc, q.after, q.params.length + 1) : null;
  const shape = { select: q.select, from: q.from, alias: a, column, desc: q.desc, nullable: q.nullable, limit: q.limit };
  const page = seek ? pageQuery({ ...shape, where: `${where ? `${where} and` : ' where'} ${seek.sql}`, offset: 0 }) : pageQuery({ ...shape, where, offset: q.offset });
  // The capped count reads as the page does, row by row, when no lead does better: with this many matches it
  // meets its bound soon, where a value's pairs computed for every row it tests (a two-letter search whose
  // planner chose to scan the table) took a bicycles count for "er" 1 s (ADR 054).
  const counted = q.lead ? from : `from ${q.from}${where}`;
  const [exact, { rows }] = await Promise.all([
    countUpTo(db, counted, q.params, q.exactUpTo, q.lead && { from: `from ${q.from}${q.lead.where}`, not: q.lead.not }),
    db.query<T>(page, seek ? [...q.params, ...seek.params] : q.params),
  ]);
  return exact <= q.exactUpTo ? { rows, count: exact, estimated: false } : { rows, count: Math.max(q.exactUpTo + 1, estimate), estimated: true };
}

/** The column a page's rows carry their matches' count in, on the way of few matches (taken off before they are answered). */
const MATCHED = 'page_matched__';

function withoutMatched<R extends { [MATCHED]?: number }>(row: R): Omit<R, typeof MATCHED> {
  const { [MATCHED]: _matched, ...rest } = row;
  return rest;
}

/** A `select …` with one more column first. */
function withColumn(select: string, column: string): string {
  const at = /^\s*select\s/i.exec(select);
  if (!at) throw new Error('a list page is read by a select');
  return `select ${column}, ${select.slice(at[0].length)}`;
}

/**
 * A list's search text as a LIKE pattern: lowered, with `\`, `%` and `_` taken literally, between `%`s
 * (a contains-search).
 */
export function containsPattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;
}

/** Where a searched column whose values repeat keeps its terms (`search_terms.source`, ADR 050). */
export function termSource(table: string, column: string): string {
  return `${table}.${column}`;
}

/**
 * The terms of columns whose values repeat that contain the search (ADR 050), by source, in one read of
 * `search_terms` (a few thousand rows, trigram-indexed): the rows are then found by a b-tree on the same
 * lowered expression (`lower(t.address) = any(<terms>)`) instead of reading the trigram index's posting
 * lists, which for a common trigram of such a column list most of the table. The planner sees the terms
 * themselves, so its estimate of the search (which `listPage` plans by) comes from their statistics.
 */
export async function matchingTerms(db: Db, sources: readonly string[], pattern: string): Promise<Map<string, string[]>> {
  if (sources.length === 0) return new Map();
  const { rows } = await db.query<{ source: string; terms: string[] }>(
    'select source, array_agg(term order by term) as terms from search_terms where source = any($1::text[]) and term like $2 group by source',
    [sources, pattern],
  );
  return new Map(rows.map((row) => [row.source, row.terms]));
}

/**
 * The matching terms of a source when they are few enough to read the rows by (`MAX_TERMS`), else
 * undefined: a text found in thousands of distinct values ("a", or 10 000 values "Bulk 1"…"Bulk 10000")
 * is searched by the column's trigram index as before, as probing a b-tree thousands of times costs more.
 */
export function fewTerms(terms: string[] | undefined): string[] | undefined {
  return (terms?.length ?? 0) <= MAX_TERMS ? (terms ?? []) : undefined;
}
const MAX_TERMS = 500;

/**
 * Whether a stored e-mail address can contain the search: addresses are validated (z.email) and hold no
 * white space, so a search with a space (a full name) skips the e-mail's trigram index, whose common
 * trigrams cost most of such a search ("anna andersson" over 1M users: 38 of 88 ms) to find nothing.
 */
export function emailMayContain(search: string): boolean {
  return !/\s/.test(search);
}

/** The trigrams of a run of word characters, as pg_trgm reads it inside a `%…%` pattern (no padding). */
function innerTrigrams(word: string): string[] {
  const chars = [...word];
  return chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join(''));
}

/**
 * The part of a contains-search a trigram index is better asked with (ADR 050), or undefined. A GIN search
 * reads the posting list of every trigram of its pattern, and a trigram common in the column ("son", "and"
 * in e-mails made of Swedish names) lists a large part of the table, while the text's rare trigrams ("435",
 * "352") find the few candidates alone. `sample` is some of the column's values (its statistics): the part
 * is the longest run of letters and digits of the search with at least three trigrams (so that the index
 * still narrows the candidates), none of them common (held by one sample value in twenty or more), when
 * the whole text has common trigrams. The caller asks the index with `'%<part>%'` and keeps the rows that hold the whole
 * text, so the rows are the same.
 */
export function cheapestPart(search: string, sample: readonly string[]): string | undefined {
  const text = search.toLowerCase();
  // Common: held by one sample value in twenty or more (a rare part's three trigrams then leave few candidates).
  const common = (trigram: string) => sample.filter((v) => v.includes(trigram)).length * 20 >= sample.length;
  const words = text.match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  if (sample.length === 0 || !words.some((w) => innerTrigrams(w).some(common))) return undefined;
  let best: string | undefined;
  for (const word of words) {
    const chars = [...word];
    for (let from = 0; from + 5 <= chars.length; from++)
      for (let to = chars.length; to >= from + 5; to--) {
        const part = chars.slice(from, to).join('');
        if (best && [...part].length <= [...best].length) break;
        if (!innerTrigrams(part).some(common)) best = part;
      }
  }
  return best === text ? undefined : best;
}

/** A figure kept, and when it was read; `settled` once its read has answered (it may then answer past its ten minutes). */
type Kept = { at: number; value: Promise<unknown>; settled?: boolean };
/**
 * The figures of each database apart: a process may hold several (the tests' stacks; one API on two databases in a
 * restore), and a table's size in one says nothing about the same table in another.
 */
let statistics = new WeakMap<Db, Map<string, Kept>>();
const STATISTICS_MS = 600_000;

/** Forgets the samples and table sizes read (after an ANALYZE that should count at once: tests). */
export function forgetColumnSamples(): void {
  statistics = new WeakMap();
}

function keptFor(db: Db): Map<string, Kept> {
  let kept = statistics.get(db);
  if (!kept) statistics.set(db, (kept = new Map()));
  return kept;
}

/**
 * A figure read from `db`'s statistics, kept ten minutes under `key` (`fallback` when the read fails);
 * a value `again` says is not worth keeping is asked for again next time.
 */
function fromStatistics<T>(db: Db, key: string, read: () => Promise<T>, fallback: T, again?: (value: T) => boolean): Promise<T> {
  const kept = keptFor(db);
  const cached = kept.get(key);
  if (cached && Date.now() - cached.at < STATISTICS_MS) return cached.value as Promise<T>;
  const value = read().catch(() => fallback);
  // Past its ten minutes a figure still answers while the next is read: no request waits for the statistics
  // (two such reads in a run were a list query's slowest requests at 1M rows). Only the first read is waited for.
  const entry: Kept = cached?.settled ? { at: Date.now(), value: cached.value, settled: true } : { at: Date.now(), value };
  kept.set(key, entry);
  void value.then((v) => {
    if (kept.get(key) !== entry) return;
    if (again?.(v)) kept.delete(key);
    else kept.set(key, { at: Date.now(), value: Promise.resolve(v), settled: true });
  });
  return entry.value as Promise<T>;
}

/** How many rows `table` has, as its statistics say (`pg_class.reltuples`, 0 before any), read once per ten minutes. */
export function tableRows(db: Db, table: string): Promise<number> {
  return fromStatistics(
    db,
    `rows:${table}`,
    () =>
      db
        .query<{ n: number | string }>(`select greatest(c.reltuples, 0)::float8 as n from pg_class c where c.oid = to_regclass($1)`, [table])
        .then(({ rows }) => Number(rows[0]?.n ?? 0)),
    0,
  );
}

/**
 * Some values of `table.column`, lowered, from its statistics (`pg_stats`: the histogram and the most
 * common values ANALYZE keeps), read once per ten minutes per column; empty while it has none.
 */
export function columnSample(db: Db, table: string, column: string): Promise<string[]> {
  return fromStatistics(
    db,
    `sample:${table}.${column}`,
    () =>
      db
        .query<{ v: string[] | null }>(
          `select coalesce(histogram_bounds::text::text[], '{}') || coalesce(most_common_vals::text::text[], '{}') as v from pg_stats where schemaname = current_schema() and tablename = $1 and attname = $2`,
          [table, column],
        )
        .then(({ rows }) => (rows[0]?.v ?? []).map((v) => v.toLowerCase())),
    [] as string[],
    // A column without statistics yet (a new table, before ANALYZE) is asked again next time.
    (values) => values.length === 0,
  );
}
