import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import {
  MAX_CALENDAR_ROWS,
  filterSpecs,
  isIsoDate,
  isYearInRange,
  sortableKeys,
  storedFields,
  type EntityDef,
  type EntityRecord,
  type FieldDef,
  type Paginator,
} from '../../shared/entity/define.ts';
import { calendarParamsSchema } from '../../shared/entity/schemas.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordRequestEvent } from '../lib/audit.ts';
import { langOf, type Lang } from '../lib/lang.ts';
import { cursorFits, decodeCursor, encodeCursor, isKeysetColumn, isNullableColumn, listPage } from '../lib/page-query.ts';
import { labelExpression, referenceTable } from '../lib/record-labels.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { copyCsvLines, copySelect, exportColumns } from './csv-copy.ts';
import type { ListWhere, Resource } from './entity-resource-types.ts';
import type { SearchForms } from './entity-search.ts';

// An entity's reads: its rows as JSON, its SELECTs, a list's filters and WHERE, and the list, calendar, export and record routes.

const pad = (n: number) => String(n).padStart(2, '0');

/** Rows to JSON the same way on PGlite and on pg: dates as YYYY-MM-DD, times HH:MM, numerics as numbers. */
export function normalizeRow(def: EntityDef, row: Record<string, unknown>): EntityRecord {
  const out: Record<string, unknown> = { ...row, id: Number(row.id), version: Number(row.version) };
  for (const key of ['created_at', 'updated_at']) if (row[key] instanceof Date) out[key] = (row[key] as Date).toISOString();
  for (const [key, field] of Object.entries(def.fields)) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (field.kind === 'date')
      out[key] = value instanceof Date ? `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}` : String(value).slice(0, 10);
    else if (field.kind === 'time') out[key] = String(value).slice(0, 5);
    else if (field.kind === 'datetime') out[key] = value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
    else if (field.kind === 'money' || field.kind === 'decimal' || field.kind === 'reference' || field.kind === 'integer') out[key] = Number(value);
    else if (field.kind === 'enum' && typeof value === 'number') out[key] = value;
    else if (field.kind === 'enum' && field.options?.every((o) => typeof o === 'number')) out[key] = Number(value);
  }
  return out as EntityRecord;
}

/** A filter value from the query string, checked against its field so no bad value reaches SQL. */
function filterValue(key: string, field: FieldDef, raw: unknown): unknown {
  const invalid = (message: string) => new ApiError(400, 'validation_error', undefined, { [key]: message });
  if (field.kind === 'boolean') return raw === true || raw === 'true' || raw === '1';
  if (field.kind === 'reference' || field.kind === 'integer') {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw invalid('validation.integer');
    // An integer column compared with a value beyond its type is an SQL error, not an empty list.
    if (field.kind === 'integer' && (field.max === undefined || field.max <= 2_147_483_647) && Math.abs(n) > 2_147_483_647) throw invalid('validation.option');
    return n;
  }
  if (field.kind === 'date') {
    if (!isIsoDate(String(raw))) throw invalid('validation.date');
    if (!isYearInRange(String(raw))) throw invalid('validation.dateYears');
    return String(raw);
  }
  if (field.kind === 'enum') {
    const option = field.options?.find((o) => String(o) === String(raw));
    if (option === undefined) throw invalid('validation.option');
    return option;
  }
  if (field.kind === 'decimal' || field.kind === 'money') {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw invalid('validation.number');
    return n;
  }
  return String(raw);
}

/** The `<reference>_label` and lookup columns a record is read with, in a language. */
export function derivedColumns(def: EntityDef, lang: Lang): string[] {
  const labels = Object.entries(def.fields)
    .filter(([, f]) => f.kind === 'reference' && !f.lookup)
    .map(([key, field]) => `(select ${labelExpression(field, lang)} from ${referenceTable(field)} r where r.id = t.${key}) as ${key}_label`);
  // Lookups are read through the reference they name: `(select r.status from events r where r.id = t.event_id)`.
  const lookups = Object.entries(def.fields)
    .filter(([, f]) => f.lookup)
    .map(([key, f]) => {
      const via = def.fields[f.lookup!.via];
      if (via?.kind !== 'reference') throw new Error(`${def.name}.${key}: lookup via a field that is not a reference`);
      return `(select r.${f.lookup!.column} from ${referenceTable(via)} r where r.id = t.${f.lookup!.via}) as ${key}`;
    });
  return [...labels, ...lookups];
}

/**
 * The columns of a record as the API reads it over `t`: its id, version and timestamps and its declared stored
 * fields, never `t.*` (a table may hold what no answer carries: the users' password hashes and second-factor
 * secrets, ADR 034, 073).
 */
export function declaredColumns(def: EntityDef): string[] {
  return ['id', 'version', 'created_at', 'updated_at', ...storedFields(def).map(([key]) => key)].map((key) => `t.${key}`);
}

/** A record's SELECT in a language: its declared columns and its references' labels and lookups. */
export function selectOf(def: EntityDef, lang: Lang): string {
  return `select ${[...declaredColumns(def), ...derivedColumns(def, lang)].join(', ')} from ${def.table} t`;
}

/**
 * A list's filter conditions over the row `t`, as its definition declares them (`filterSpecs`), from the query
 * string; each value checked against its field and appended to `params`.
 */
export function filterConditions(def: EntityDef, query: Readonly<Record<string, unknown>>, params: unknown[], filters = filterSpecs(def)): string[] {
  return filters.flatMap((spec) => {
    if (query[spec.key] === undefined || query[spec.key] === '') return [];
    params.push(filterValue(spec.key, def.fields[spec.field]!, query[spec.key]));
    return [`t.${spec.field} ${spec.op === 'gte' ? '>=' : spec.op === 'lte' ? '<=' : '='} $${params.length}`];
  });
}

/** A list's WHERE clause from its search's forms (if searched) and its other conditions, AND-ed (`ListWhere`). */
export function listWhere(forms: SearchForms | undefined, where: readonly string[], params: unknown[]): ListWhere {
  const clause = (first?: string) => {
    const all = first ? [first, ...where] : where;
    return all.length ? ` where ${all.join(' and ')}` : '';
  };
  if (!forms) return { sql: clause(), params };
  return {
    sql: clause(forms.sql),
    params,
    ...(forms.walk !== forms.sql ? { walk: clause(forms.walk) } : {}),
    ...(forms.lead ? { lead: { where: clause(forms.lead.sql), not: forms.lead.not } } : {}),
  };
}

/**
 * The rows of an entity's export over `t`: only the exported columns, and the two timestamps already as ISO
 * text (to_char truncates to milliseconds as Date does): parsing them into Date objects was a tenth of the
 * export's CPU.
 */
export function exportSelectOf(def: EntityDef, lang: Lang): string {
  const isoText = (column: string) => `to_char(t.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`;
  const exportFields = Object.keys(def.fields).filter((k) => !def.fields[k]!.lookup);
  const derived = derivedColumns(def, lang).map((l) => ', ' + l);
  return `select t.id${exportFields.map((k) => `, t.${k}`).join('')}${derived.join('')}, ${isoText('created_at')}, ${isoText('updated_at')} from ${def.table} t`;
}

/** GET <resource>/: a page, searched, filtered and sorted (ADR 006). */
export function registerList(app: FastifyInstance, r: Resource) {
  const sortable = new Set(sortableKeys(r.def));
  app.get(r.base, { preHandler: r.list }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { page, page_size, search, ordering, after } = r.parseList(query);
    const lang = langOf(req);
    const { sql: whereSql, params, walk, lead } = await r.whereOf(query, search, req.user, lang);
    const order = ordering ?? r.def.defaultSort;
    const desc = order.startsWith('-');
    const column = order.replace(/^-/, '');
    if (!sortable.has(column)) throw new ApiError(400, 'validation_error', undefined, { ordering: 'validation.option' });
    const keyset = isKeysetColumn(r.def, column);
    const decoded = after && keyset ? decodeCursor(after) : null;
    const cursor = decoded && cursorFits(r.def, column, decoded) ? decoded : null;
    if (after && keyset && !cursor) throw new ApiError(400, 'validation_error', undefined, { after: 'validation.option' });
    // One row more than the page: whether a next page exists, whatever the count says.
    const { rows, ...counted } = await listPage<Record<string, unknown>>(r.db, {
      select: r.selects[lang],
      from: `${r.def.table} t`,
      alias: 't',
      where: whereSql,
      ...(walk ? { walk } : {}),
      ...(lead ? { lead } : {}),
      params,
      column,
      desc,
      nullable: isNullableColumn(r.def, column),
      limit: page_size + 1,
      offset: (page - 1) * page_size,
      exactUpTo: r.config.exactCountUpTo,
      after: cursor,
    });
    const paginator: Paginator = { page, page_size, count: counted.count, total_pages: Math.ceil(counted.count / page_size), has_next: rows.length > page_size };
    if (counted.estimated) paginator.estimated = true;
    if (paginator.has_next && keyset) paginator.next_after = encodeCursor(rows[page_size - 1]!, column);
    return ok(reply, { results: rows.slice(0, page_size).map((row) => normalizeRow(r.def, row)), paginator });
  });
}

/** GET <resource>/calendar/?from=&to=: every record of a date range, for calendars; bounded in days and rows. */
export function registerCalendar(app: FastifyInstance, r: Resource, dateColumn: string) {
  const calendarParams = calendarParamsSchema(r.def);
  app.get(`${r.base}calendar/`, { preHandler: r.list }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { from, to } = parseBody(calendarParams, { from: query.from, to: query.to, filters: r.filtersOf(query) });
    const lang = langOf(req);
    const { sql: whereSql, params } = await r.whereOf(query, undefined, req.user, lang, [{ sql: `t.${dateColumn} between $1 and $2`, params: [from, to] }]);
    const { rows } = await r.db.query(`${r.selects[lang]}${whereSql} order by t.${dateColumn}, t.id limit ${MAX_CALENDAR_ROWS + 1}`, params);
    return ok(reply, { results: rows.slice(0, MAX_CALENDAR_ROWS).map((row) => normalizeRow(r.def, row)), truncated: rows.length > MAX_CALENDAR_ROWS });
  });
}

/** GET <resource>/export/: the list as CSV (same search and filters, every row), streamed. */
export function registerExport(app: FastifyInstance, r: Resource) {
  const columnsOut = exportColumns(r.def);
  const selects: Record<Lang, string> = { en: r.exportSelect('en'), sv: r.exportSelect('sv') };
  // The database writes the cells (ADR 061); csvRowWriter is what they are held to.
  const cells = (inner: string) => copySelect(r.def, columnsOut, inner);
  app.get(`${r.base}export/`, { preHandler: r.read }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { search } = r.parseList({ ...query, page: undefined, page_size: undefined, ordering: undefined });
    const lang = langOf(req);
    const where = await r.whereOf(query, search, req.user, lang);
    // Who took the data out, and which part of it: the query it was asked with.
    const asked = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== '' && v !== undefined));
    await r.db.transaction((tx) => recordRequestEvent(tx, r.config.auditKey, req, { entity: r.def.name, recordId: null, action: 'export', changes: { query: [null, asked] } }));
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeFileName(r.def.name, 'csv')}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(copyCsvLines(r.db, selects[lang], where, csvRow(columnsOut), cells)));
  });
}

/** GET <resource>/<id>/: one record (another owner's is a 404). */
export function registerGet(app: FastifyInstance, r: Resource) {
  app.get(`${r.base}:id/`, { preHandler: r.readOne }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    await r.checkReadThrough(id, req.user);
    const record = await r.fetchOne(id, r.db, req.user, false, langOf(req));
    if (!record) throw new ApiError(404, 'not_found');
    return ok(reply, record);
  });
}
