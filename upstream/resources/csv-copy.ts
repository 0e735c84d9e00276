import pg from 'pg';
import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';

/**
 * The export's CSV written by the database (ADR 061): `COPY (select) TO …` in COPY's text format with `,` as the
 * delimiter, each cell already the text `csvCell` (shared/csv.ts) writes — the formula guard, RFC 4180 quotes —
 * computed in SQL, so the API only undoes the text format's backslash escapes and ends each record with CRLF.
 * The cells are byte for byte those of `csvRowWriter` (csv-rows.ts), which stays the reference the tests hold
 * this to.
 */

/** The characters JavaScript's `\s` matches (csvCell's edge test), as a bracket expression of PostgreSQL's regular expressions. */
const JS_SPACE = '[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';
/** csvCell's NEEDS_WORK: a formula start or a space first, a quote, comma or line break, a space last. */
const NEEDS_WORK = `'^([=+\\-@]|${JS_SPACE})|[",\\r\\n]|${JS_SPACE}$'`;
const FORMULA_START = `'^[=+\\-@\\t\\r]'`;
const QUOTE_ALWAYS = `'[",\\r\\n]|${JS_SPACE}$'`;
const SPACE_FIRST = `'^${JS_SPACE}'`;

/** Any cell of a row's texts (joined by \x01) that may need work: a cell's first or last character, or a quote, comma or line break. */
const ROW_NEEDS_WORK = `'(^|\\x01)([=+\\-@]|${JS_SPACE})|[",\\r\\n]|${JS_SPACE}(\\x01|$)'`;

/**
 * csvCell of a text `v` in SQL: as it is in a row none of whose texts may need work (`s.csv_work`, one regular
 * expression a row), or a cell that needs none; else the formula guard's `'`, then quotes when it holds a quote,
 * comma or line break or starts or ends with a space.
 */
export function textCellSql(v: string): string {
  const formula = `${v} ~ ${FORMULA_START}`;
  const guarded = `case when ${formula} then '''' || ${v} else ${v} end`;
  const quoted = `${v} ~ ${QUOTE_ALWAYS} or (not ${formula} and ${v} ~ ${SPACE_FIRST})`;
  return `case when not s.csv_work then ${v} when ${v} ~ ${NEEDS_WORK} then case when ${quoted} then '"' || replace(${guarded}, '"', '""') || '"' else ${guarded} end else ${v} end`;
}

const NOT_TEXT = new Set<FieldDef['kind']>(['integer', 'reference', 'money', 'decimal', 'boolean', 'date', 'time', 'datetime']);

/** The text a text cell is computed from, or undefined for a cell of another kind. */
function textOf(def: EntityDef, column: string): string | undefined {
  const v = `s.${column}`;
  if (column === 'id' || column === 'version') return undefined;
  if (column === 'created_at' || column === 'updated_at') return v;
  const field = def.fields[column];
  if (!field) return `${v}::text`;
  if (field.kind === 'enum') return field.options?.every((o) => typeof o === 'number') ? undefined : `${v}::text`;
  return NOT_TEXT.has(field.kind) ? undefined : v;
}

/** A number as JavaScript's String(Number(v)) writes it (no trailing zeros of a numeric), a negative one behind the formula guard. */
function numberCellSql(v: string, numeric: boolean): string {
  const text = numeric ? `trim_scale(${v}::numeric)::text` : `${v}::text`;
  return `case when ${v} < 0 then '''' || ${text} else ${text} end`;
}

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The SQL of one export column's cell, over the column `s.<column>` of the export's select; as csv-rows.ts's cellWriter. */
export function cellSql(def: EntityDef, column: string, present: boolean): string {
  if (!present) return 'null';
  const text = textOf(def, column);
  if (text) return textCellSql(text);
  const v = `s.${column}`;
  switch (column === 'id' || column === 'version' ? 'integer' : def.fields[column]!.kind) {
    case 'money':
    case 'decimal':
      return numberCellSql(v, true);
    case 'boolean':
      return `${v}::text`;
    case 'date':
      return `to_char(${v}, 'YYYY-MM-DD')`;
    case 'time':
      return `left(${v}::text, 5)`;
    case 'datetime':
      return `to_char(${v} at time zone 'UTC', ${ISO_MS})`;
    default:
      // integer, reference, an enum of numbers
      return numberCellSql(v, false);
  }
}

/** The columns of an entity's CSV, in order: id, each field (a reference followed by its label), the two timestamps. */
export function exportColumns(def: EntityDef): string[] {
  return ['id', ...Object.keys(def.fields).flatMap((k) => (def.fields[k]!.kind === 'reference' ? [k, `${k}_label`] : [k])), 'created_at', 'updated_at'];
}

/** The columns the export's select writes: id, the fields (lookups read through their reference), references' labels, the two timestamps. */
function selectedColumns(def: EntityDef): Set<string> {
  const labels = Object.keys(def.fields).filter((k) => def.fields[k]!.kind === 'reference' && !def.fields[k]!.lookup);
  return new Set(['id', ...Object.keys(def.fields), ...labels.map((k) => `${k}_label`), 'created_at', 'updated_at']);
}

/** The cells of `columns`, read from the rows of `inner` (the export's select with its where, order and limit). */
export function copySelect(def: EntityDef, columns: readonly string[], inner: string): string {
  const present = selectedColumns(def);
  const texts = columns.filter((c) => present.has(c)).flatMap((c) => textOf(def, c)?.replace(/^s\./, 's0.') ?? []);
  // OFFSET 0 keeps the row's test a column of its own, computed once a row.
  const work = texts.length ? `concat_ws(E'\\x01', ${texts.join(', ')}) ~ ${ROW_NEEDS_WORK}` : 'false';
  return `select ${columns.map((c) => cellSql(def, c, present.has(c))).join(', ')} from (select s0.*, ${work} as csv_work from (${inner}) s0 offset 0) s`;
}

/** A parameter written into the statement as an untyped literal: COPY takes none, and an untyped literal is typed by its use as a parameter is. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return pg.escapeLiteral(`{${value.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`)).join(',')}}`);
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  return pg.escapeLiteral(String(value));
}

/** `sql` with each `$n` replaced by its parameter as a literal. */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= params.length) throw new Error(`no parameter $${n}`);
    return sqlLiteral(params[index]);
  });
}

const BACKSLASH = 0x5c;
const LF = 0x0a;
const CR = 0x0d;
/** What a backslash escape of COPY's text format stands for (\\ and \, stand for the character itself). */
const UNESCAPED: Record<number, number> = { 0x62: 0x08, 0x66: 0x0c, 0x6e: LF, 0x72: CR, 0x74: 0x09, 0x76: 0x0b };

/**
 * COPY's text format to CSV bytes, chunk by chunk however the chunks split it: an escape `\x` becomes its
 * character, a bare LF (the only record end: a line break in a value is escaped) becomes CRLF.
 */
export function textToCsv(): (chunk: Uint8Array) => Buffer {
  let escaping = false;
  return (chunk) => {
    const input = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const out = Buffer.allocUnsafe(input.length * 2);
    let at = 0;
    let written = 0;
    if (escaping && input.length) {
      out[written++] = UNESCAPED[input[0]!] ?? input[0]!;
      at = 1;
      escaping = false;
    }
    let nextLf = input.indexOf(LF, at);
    let nextEscape = input.indexOf(BACKSLASH, at);
    while (nextLf !== -1 || nextEscape !== -1) {
      const lf = nextLf !== -1 && (nextEscape === -1 || nextLf < nextEscape);
      const stop = lf ? nextLf : nextEscape;
      written += input.copy(out, written, at, stop);
      if (lf) {
        out[written++] = CR;
        out[written++] = LF;
        at = stop + 1;
        nextLf = input.indexOf(LF, at);
      } else if (stop + 1 < input.length) {
        out[written++] = UNESCAPED[input[stop + 1]!] ?? input[stop + 1]!;
        at = stop + 2;
        if (nextLf !== -1 && nextLf < at) nextLf = input.indexOf(LF, at);
        nextEscape = input.indexOf(BACKSLASH, at);
      } else {
        escaping = true;
        at = input.length;
        nextEscape = -1;
        nextLf = -1;
      }
    }
    written += input.copy(out, written, at);
    return out.subarray(0, written);
  };
}

/**
 * Rows of one COPY statement on PGlite (ADR 061), which holds a statement's whole output in memory and runs it
 * on the event loop's thread: a batch is a few MB and a short pause, as the row writer's pages of 2 000 were.
 */
const PGLITE_BATCH = 5_000;

/** The id (first cell) of the last record of a text-format chunk ending in LF. */
function lastId(chunk: Uint8Array): number {
  const end = chunk.length - 1;
  let start = chunk.lastIndexOf(LF, end - 1) + 1;
  let id = 0;
  for (; chunk[start] !== 0x2c && start < end; start++) id = id * 10 + chunk[start]! - 0x30;
  return id;
}

/**
 * The export as CSV: the header, then the rows of `select` (an entity's export select over `t`) that `where`
 * keeps, by id, as `cells` (copySelect) writes them. PostgreSQL: one COPY streamed with backpressure; PGlite:
 * keyset batches, one COPY each, so no more than a batch is in memory at once.
 */
export async function* copyCsvLines(db: Db, select: string, where: { sql: string; params: unknown[] }, header: string, cells: (inner: string) => string, batch = PGLITE_BATCH) {
  yield Buffer.from(header);
  const toCsv = textToCsv();
  const whereSql = inlineParams(where.sql, where.params);
  if (db.kind === 'postgres') {
    for await (const chunk of db.copyOut(cells(`${select}${whereSql} order by t.id`))) yield toCsv(chunk);
    return;
  }
  let after = 0;
  for (;;) {
    const keyset = `${whereSql ? `${whereSql} and` : ' where'} t.id > ${after}`;
    let rows = 0;
    let last: Uint8Array | undefined;
    for await (const chunk of db.copyOut(cells(`${select}${keyset} order by t.id limit ${batch}`))) {
      for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) rows++;
      if (chunk.length) last = chunk;
      yield toCsv(chunk);
    }
    if (rows < batch || !last) return;
    const id = lastId(last);
    if (!(id > after)) throw new Error('the export could not read the last id of a batch');
    after = id;
  }
}
