import pg from 'pg';
import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';

/**
 * The export's CSV written by the database (ADR 061, amended): `COPY (select) TO … (FORMAT csv)`. Each cell is
 * computed in SQL as the text `csvCell` (shared/csv.ts) quotes — the formula guard's `'` before a text, a negative
 * number as `csvRowWriter` writes it, booleans and dates as it formats them — and COPY's CSV mode quotes it (a
 * quote, comma or line break in it); the API only turns each record's LF into CRLF (`crlfRecords`). Read by an
 * RFC 4180 reader, the cells are those of `csvRowWriter` (csv-rows.ts), which stays the reference the tests hold
 * this to; the bytes differ in quoting only: an empty text is `""` (a null stays an empty cell), and a text with
 * a space at either edge is not quoted (RFC 4180: spaces are part of a field).
 */

/** The first characters csvCell's formula guard puts a `'` before (= + - @ tab CR), as `ascii()` gives them. */
const FORMULA_START = /^[=+\-@\t\r]/;
const FORMULA_CODE_POINTS = ['=', '+', '-', '@', '\t', '\r'].map((c) => c.codePointAt(0)!).join(', ');

/**
 * A text `v` behind the formula guard: one `ascii()` of its first character a cell. The cells' CPU in the
 * database, 1M bicycles (ADR 061): a row's regular expression and csvCell's quoting in SQL 2.3× the plain
 * COPY's; `left(v, 1) in (…)` 1.43×; `ascii(v) in (…)` 1.12×.
 */
export function textCellSql(v: string): string {
  return `case when ascii(${v}) in (${FORMULA_CODE_POINTS}) then '''' || ${v} else ${v} end`;
}

const NOT_TEXT = new Set<FieldDef['kind']>(['integer', 'reference', 'money', 'decimal', 'boolean', 'date', 'time', 'datetime']);

/**
 * The text a text cell is computed from, or undefined for a cell of another kind; `guard` false where no value
 * can start with a formula character (the timestamps, written by to_char; an enum none of whose options does).
 */
function textOf(def: EntityDef, column: string): { v: string; guard: boolean } | undefined {
  const v = `s.${column}`;
  if (column === 'id' || column === 'version') return undefined;
  if (column === 'created_at' || column === 'updated_at') return { v, guard: false };
  const field = def.fields[column];
  if (!field) return { v: `${v}::text`, guard: true };
  if (field.kind === 'enum') {
    if (field.options?.every((o) => typeof o === 'number')) return undefined;
    return { v: `${v}::text`, guard: field.options?.some((o) => FORMULA_START.test(String(o))) ?? true };
  }
  return NOT_TEXT.has(field.kind) ? undefined : { v, guard: true };
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
  if (text) return text.guard ? textCellSql(text.v) : text.v;
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
  return `select ${columns.map((c) => cellSql(def, c, present.has(c))).join(', ')} from (${inner}) s`;
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

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** A CSV stream's record ends made CRLF (`crlfRecords`), with what the export's PGlite batches need to go on. */
export interface CrlfRecords {
  /** The chunk's bytes with every LF that ends a record (outside quotes) preceded by CR. */
  (chunk: Uint8Array): Buffer;
  /** Records ended so far. */
  readonly records: number;
  /** Where, in the last chunk, the last record it ended began; -1 when it began in an earlier chunk. */
  readonly lastRecordStart: number;
}

/**
 * COPY's CSV (records ended by LF) to RFC 4180's CRLF, chunk by chunk however the chunks split it. A line break
 * inside a quoted cell is part of the value and stays as it is; `"` toggles the quoted state (an escaped `""`
 * toggles twice). Two `indexOf` scans a chunk: quotes are rare, so the work is one pass over the LFs.
 */
export function crlfRecords(): CrlfRecords {
  let quoted = false;
  let records = 0;
  let lastRecordStart = -1;
  let atRecordStart = true;
  const ends: number[] = [];
  const convert = (chunk: Uint8Array): Buffer => {
    const input = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    ends.length = 0;
    let lf = input.indexOf(LF);
    let quote = input.indexOf(QUOTE);
    while (lf !== -1) {
      if (quote !== -1 && quote < lf) {
        quoted = !quoted;
        quote = input.indexOf(QUOTE, quote + 1);
      } else {
        if (!quoted) ends.push(lf);
        lf = input.indexOf(LF, lf + 1);
      }
    }
    for (; quote !== -1; quote = input.indexOf(QUOTE, quote + 1)) quoted = !quoted;
    const startedAtRecord = atRecordStart;
    atRecordStart = ends.length ? ends[ends.length - 1] === input.length - 1 : atRecordStart && input.length === 0;
    if (ends.length === 0) {
      lastRecordStart = -1;
      return input;
    }
    records += ends.length;
    lastRecordStart = ends.length > 1 ? ends[ends.length - 2]! + 1 : startedAtRecord ? 0 : -1;
    const out = Buffer.allocUnsafe(input.length + ends.length);
    let at = 0;
    let written = 0;
    for (const end of ends) {
      written += input.copy(out, written, at, end);
      out[written++] = CR;
      at = end;
    }
    input.copy(out, written, at);
    return out;
  };
  return Object.defineProperties(convert, {
    records: { get: () => records },
    lastRecordStart: { get: () => lastRecordStart },
  }) as CrlfRecords;
}

/**
 * Rows of one COPY statement on PGlite (ADR 061), which holds a statement's whole output in memory and runs it
 * on the event loop's thread: a batch is a few MB and a short pause, as the row writer's pages of 2 000 were.
 */
const PGLITE_BATCH = 5_000;

/** The id (first cell, digits) of the record starting at `start`. */
function idAt(chunk: Uint8Array, start: number): number {
  let id = 0;
  for (let at = start; at < chunk.length && chunk[at] !== COMMA; at++) id = id * 10 + chunk[at]! - 0x30;
  return id;
}

/**
 * The export as CSV: the header, then the rows of `select` (an entity's export select over `t`) that `where`
 * keeps, by id, as `cells` (copySelect) writes them. PostgreSQL: one COPY streamed with backpressure; PGlite:
 * keyset batches, one COPY each, so no more than a batch is in memory at once.
 */
export async function* copyCsvLines(db: Db, select: string, where: { sql: string; params: unknown[] }, header: string, cells: (inner: string) => string, batch = PGLITE_BATCH) {
  yield Buffer.from(header);
  const whereSql = inlineParams(where.sql, where.params);
  if (db.kind === 'postgres') {
    const toCrlf = crlfRecords();
    for await (const chunk of db.copyOut(cells(`${select}${whereSql} order by t.id`), 'csv')) yield toCrlf(chunk);
    return;
  }
  let after = 0;
  for (;;) {
    const keyset = `${whereSql ? `${whereSql} and` : ' where'} t.id > ${after}`;
    // PGlite hands a statement's output over as one chunk: its last record starts after the one before it ends.
    const toCrlf = crlfRecords();
    let last: { chunk: Uint8Array; start: number } | undefined;
    for await (const chunk of db.copyOut(cells(`${select}${keyset} order by t.id limit ${batch}`), 'csv')) {
      const out = toCrlf(chunk);
      if (toCrlf.lastRecordStart !== -1) last = { chunk, start: toCrlf.lastRecordStart };
      yield out;
    }
    if (toCrlf.records < batch || !last) return;
    const id = idAt(last.chunk, last.start);
    if (!(id > after)) throw new Error('the export could not read the last id of a batch');
    after = id;
  }
}
