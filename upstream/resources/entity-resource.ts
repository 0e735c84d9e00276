import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import { MAX_CALENDAR_ROWS, labelSql, filterSpecs, isIsoDate, isOwnerScoped, isYearInRange, mayTransition, sortableKeys, statusFieldOf, writableFields, writeRoles, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, listParamsSchema } from '../../shared/entity/schemas.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth, type AuthUser } from '../lib/auth.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { upstreamReadScopes } from '../../shared/entity/access-roles.ts';
import { parseBody } from '../routes/validation.ts';
import { csvRowWriter } from './csv-rows.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** Rows to JSON the same way on PGlite and on pg: dates as YYYY-MM-DD, times HH:MM, numerics as numbers. */
export function normalizeRow(def: EntityDef, row: Record<string, unknown>): EntityRecord {
  const out: Record<string, unknown> = { ...row, id: Number(row.id), version: Number(row.version) };
  for (const key of ['created_at', 'updated_at']) if (row[key] instanceof Date) out[key] = (row[key] as Date).toISOString();
  for (const [key, field] of Object.entries(def.fields)) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (field.kind === 'date') out[key] = value instanceof Date ? `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}` : String(value).slice(0, 10);
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

/** PostgreSQL error → API error: unique and foreign-key violations become field errors or 409 in_use. */
function mapDbError(def: EntityDef, error: unknown, op: 'write' | 'delete' = 'write'): never {
  if (error instanceof ApiError) throw error;
  const e = error as { code?: string; constraint?: string; message?: string };
  const names = (name: string) => e.constraint === name || Boolean(e.message?.includes(name));
  if (e.code === '23505') {
    const group = def.unique?.find((g) => names(`${def.table}_${g.name}_key`));
    if (group) throw new ApiError(400, 'validation_error', undefined, { [group.fields[group.fields.length - 1]!]: group.message });
    const field = Object.keys(def.fields).find((key) => names(`${def.table}_${key}_key`)) ?? '_form';
    throw new ApiError(400, 'validation_error', 'This value is already in use.', { [field]: 'validation.unique' });
  }
  // 23503 foreign_key_violation, 23001 restrict_violation (references are `on delete restrict`).
  if (e.code === '23503' || e.code === '23001') {
    if (op === 'delete') throw new ApiError(409, 'in_use', 'This record is still in use and cannot be deleted.');
    const field = Object.keys(def.fields).find((key) => e.message?.includes(key) && def.fields[key]!.kind === 'reference');
    if (field) throw new ApiError(400, 'validation_error', undefined, { [field]: 'validation.option' });
    throw new ApiError(409, 'in_use', 'This record is still in use and cannot be deleted.');
  }
  throw error;
}

type Lang = 'en' | 'sv';

/** The language the back office asks in (`Accept-Language`, §7): reference labels follow it. */
export function langOf(req: FastifyRequest): Lang {
  return /^sv\b/i.test(String(req.headers['accept-language'] ?? '').trim()) ? 'sv' : 'en';
}

export interface WriteContext {
  tx: Db;
  user: AuthUser;
  /** The record as it is before this write (locked until the transaction ends); null on create. */
  current: EntityRecord | null;
  /** An Admin's explicit override (`force` on a transition) of a rule a hook would refuse (ADR 028). */
  force?: boolean;
}

/**
 * Business rules beyond the schema, each run inside the transaction of the write it guards (with the row
 * being updated locked), so a rule that counts rows can lock what it counts.
 */
export interface ResourceHooks {
  /** Before an insert (e.g. an owner's bicycle limit). */
  beforeCreate?: (input: Record<string, unknown>, tx: Db) => Promise<void>;
  /** Before an update, after its version check. */
  beforeUpdate?: (id: number, input: Record<string, unknown>, tx: Db) => Promise<void>;
  /**
   * On create and update, after the schema, access and status checks and the hooks above. May return values
   * for read-only columns (a service's bicycle owner).
   */
  beforeWrite?: (input: Record<string, unknown>, ctx: WriteContext) => Promise<Record<string, unknown> | void>;
  beforeDelete?: (current: EntityRecord, ctx: WriteContext) => Promise<void>;
}

/**
 * The generic REST resource of an entity (ADR 006, 009): list with paging/search/sort/filters, read,
 * create, full and partial update guarded by `version`, delete; a status transition action and a
 * calendar read when the definition has them. Reads need a role the back office reads it with (its
 * route's, or one choosing it in a form or filter: `upstreamReadScopes`); writes the roles of
 * `def.access` (Admin by default); owner-scoped entities show non-admins only their own records.
 */
export function registerEntityResource(app: FastifyInstance, db: Db, config: UpstreamConfig, def: EntityDef, hooks: ResourceHooks = {}) {
  const t = def.table;
  const base = `/api/${def.name}/`;
  const read = requireAuth(config, upstreamReadScopes(def));
  const write = requireAuth(config, writeRoles(def, 'update'));
  const creator = requireAuth(config, writeRoles(def, 'create'));
  const deleter = requireAuth(config, writeRoles(def, 'delete'));
  const transitioner = requireAuth(config, writeRoles(def, 'transition'));
  const create = createSchema(def);
  const writable = writableFields(def);
  const columns = writable.map(([key]) => key);
  const searchable = Object.entries(def.fields).filter(([, f]) => f.searchable).map(([k]) => k);
  const sortable = new Set(sortableKeys(def));
  const filters = filterSpecs(def);
  const ownerField = def.access?.ownerField;
  const status = statusFieldOf(def);
  const stampColumns = status ? [...new Set(Object.values(status[1].status.stamps ?? {}))] : [];

  const referenceTable = (field: FieldDef) => entityByName(field.reference!.entity)?.table ?? field.reference!.entity.replace(/-/g, '_');
  // A reference's label over the referenced row `r`: the referenced entity's label template (or the
  // reference's shorter one) in the request's language, or an SQL expression of its own (a person's name).
  const labelExpression = (field: FieldDef, lang: Lang) => {
    const reference = field.reference!;
    const template = reference.label ?? entityByName(reference.entity)?.label;
    if (!template) throw new Error(`${def.name}: the reference to ${reference.entity} needs a label`);
    return reference.labelSql ?? labelSql(template, 'r', lang);
  };
  const labelOf = (key: string, lang: Lang) => {
    const field = def.fields[key]!;
    return `(select ${labelExpression(field, lang)} from ${referenceTable(field)} r where r.id = t.${key})`;
  };
  const labels = (lang: Lang) =>
    Object.entries(def.fields)
      .filter(([, f]) => f.kind === 'reference' && !f.lookup)
      .map(([key]) => `${labelOf(key, lang)} as ${key}_label`);
  // Lookups are read through the reference they name: `(select r.status from events r where r.id = t.event_id)`.
  const lookups = Object.entries(def.fields)
    .filter(([, f]) => f.lookup)
    .map(([key, f]) => {
      const via = def.fields[f.lookup!.via];
      if (via?.kind !== 'reference') throw new Error(`${def.name}.${key}: lookup via a field that is not a reference`);
      return `(select r.${f.lookup!.column} from ${referenceTable(via)} r where r.id = t.${f.lookup!.via}) as ${key}`;
    });
  // A searchable reference is searched by its label (a bicycle by its owner's e-mail): the matching ids
  // are found first (through the label's index) and the rows then by their indexed reference column, so
  // PostgreSQL can OR it with the other columns' trigram indexes instead of scanning every row.
  const searchCondition = (key: string, param: string, lang: Lang) => {
    const field = def.fields[key]!;
    if (field.kind !== 'reference') return `lower(t.${key}) like ${param}`;
    return `t.${key} = any(array(select r.id from ${referenceTable(field)} r where lower(${labelExpression(field, lang)}) like ${param}))`;
  };
  const selects: Record<Lang, string> = {
    en: `select t.*${[...labels('en'), ...lookups].map((l) => ', ' + l).join('')} from ${t} t`,
    sv: `select t.*${[...labels('sv'), ...lookups].map((l) => ', ' + l).join('')} from ${t} t`,
  };
  const listParams = listParamsSchema(def);
  const calendarParams = calendarParamsSchema(def);
  const idParam = z.object({ id: z.coerce.number().int().positive().max(2 ** 53) });

  /** The owner condition for a caller who sees only their own records, else nothing. */
  function scopeOf(user: AuthUser | undefined, firstParam: number): { sql: string; params: unknown[] } {
    if (!ownerField || !user || !isOwnerScoped(def, user.roles)) return { sql: '', params: [] };
    return { sql: `t.${ownerField} = $${firstParam}`, params: [user.id] };
  }

  async function fetchOne(id: number, tx: Db = db, user?: AuthUser, lock = false, lang: Lang = 'en'): Promise<EntityRecord | null> {
    const scope = scopeOf(user, 2);
    // FOR UPDATE cannot lock through the label subqueries' tables; lock the row itself first.
    if (lock) await tx.query(`select 1 from ${t} t where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''} for update`, [id, ...scope.params]);
    const { rows } = await tx.query(`${selects[lang]} where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''}`, [id, ...scope.params]);
    return rows[0] ? normalizeRow(def, rows[0]) : null;
  }

  /** WHERE clause of a list, export or calendar from its query string (search, filters, owner), parameterised. */
  function whereOf(query: Record<string, string>, search: string | undefined, user: AuthUser | undefined, lang: Lang, extra: { sql: string; params: unknown[] }[] = []) {
    const where: string[] = [];
    const params: unknown[] = [];
    if (search && searchable.length) {
      params.push(`%${search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(`(${searchable.map((k) => searchCondition(k, `$${params.length}`, lang)).join(' or ')})`);
    }
    for (const spec of filters) {
      if (query[spec.key] === undefined || query[spec.key] === '') continue;
      params.push(filterValue(spec.key, def.fields[spec.field]!, query[spec.key]));
      where.push(`t.${spec.field} ${spec.op === 'gte' ? '>=' : spec.op === 'lte' ? '<=' : '='} $${params.length}`);
    }
    const scope = scopeOf(user, params.length + 1);
    if (scope.sql) {
      where.push(scope.sql);
      params.push(...scope.params);
    }
    for (const clause of extra) {
      where.push(clause.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + params.length}`));
      params.push(...clause.params);
    }
    return { sql: where.length ? ` where ${where.join(' and ')}` : '', params };
  }

  const filtersOf = (query: Record<string, string>) =>
    Object.fromEntries(filters.filter((s) => query[s.key] !== undefined && query[s.key] !== '').map((s) => [s.key, query[s.key]]));

  const parseList = (query: Record<string, string>) =>
    parseBody(listParams, { page: query.page, page_size: query.page_size, search: query.search, ordering: query.ordering, filters: filtersOf(query) });

  app.get(base, { preHandler: read }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { page, page_size, search, ordering } = parseList(query);
    const lang = langOf(req);
    const { sql: whereSql, params } = whereOf(query, search, req.user, lang);
    const order = ordering ?? def.defaultSort;
    const desc = order.startsWith('-');
    const column = order.replace(/^-/, '');
    if (!sortable.has(column)) throw new ApiError(400, 'validation_error', undefined, { ordering: 'validation.option' });
    const direction = desc ? 'desc' : 'asc';
    const [{ rows: countRows }, { rows }] = await Promise.all([
      db.query<{ n: number }>(`select count(*)::int as n from ${t} t${whereSql}`, params),
      db.query(`${selects[lang]}${whereSql} order by t.${column} ${direction} nulls last, t.id ${direction} limit ${page_size} offset ${(page - 1) * page_size}`, params),
    ]);
    const count = Number(countRows[0]?.n ?? 0);
    return ok(reply, {
      results: rows.map((row) => normalizeRow(def, row)),
      paginator: { page, page_size, count, total_pages: Math.ceil(count / page_size) },
    });
  });

  if (def.calendarField) {
    const dateColumn = def.calendarField;
    // Every record of a date range, for calendars; bounded in days and rows.
    app.get(`${base}calendar/`, { preHandler: read }, async (req, reply) => {
      const query = req.query as Record<string, string>;
      const { from, to } = parseBody(calendarParams, { from: query.from, to: query.to, filters: filtersOf(query) });
      const lang = langOf(req);
      const { sql: whereSql, params } = whereOf(query, undefined, req.user, lang, [{ sql: `t.${dateColumn} between $1 and $2`, params: [from, to] }]);
      const { rows } = await db.query(`${selects[lang]}${whereSql} order by t.${dateColumn}, t.id limit ${MAX_CALENDAR_ROWS + 1}`, params);
      return ok(reply, { results: rows.slice(0, MAX_CALENDAR_ROWS).map((row) => normalizeRow(def, row)), truncated: rows.length > MAX_CALENDAR_ROWS });
    });
  }

  if (def.exportable) {
    const columnsOut = ['id', ...Object.keys(def.fields).flatMap((k) => (def.fields[k]!.kind === 'reference' ? [k, `${k}_label`] : [k])), 'created_at', 'updated_at'];
    const writeRow = csvRowWriter(def, columnsOut);
    // Only the exported columns, and the two timestamps already as ISO text (to_char truncates to
    // milliseconds as Date does): parsing them into Date objects was a tenth of the export's CPU.
    const isoText = (column: string) => `to_char(t.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`;
    const exportFields = Object.keys(def.fields).filter((k) => !def.fields[k]!.lookup);
    const exportSelects: Record<Lang, string> = {
      en: `select t.id${exportFields.map((k) => `, t.${k}`).join('')}${[...labels('en'), ...lookups].map((l) => ', ' + l).join('')}, ${isoText('created_at')}, ${isoText('updated_at')} from ${t} t`,
      sv: `select t.id${exportFields.map((k) => `, t.${k}`).join('')}${[...labels('sv'), ...lookups].map((l) => ', ' + l).join('')}, ${isoText('created_at')}, ${isoText('updated_at')} from ${t} t`,
    };
    app.get(`${base}export/`, { preHandler: read }, async (req, reply) => {
      const query = req.query as Record<string, string>;
      const { search } = parseList({ ...query, page: undefined as unknown as string, page_size: undefined as unknown as string, ordering: undefined as unknown as string });
      const lang = langOf(req);
      const exportSelect = exportSelects[lang];
      const { sql: whereSql, params } = whereOf(query, search, req.user, lang);
      const batch = 2000;
      // Keyset pages by id: constant memory and no OFFSET cost however many rows there are. While one
      // page is written out, the next is already being read (one query ahead, never more).
      async function* rows() {
        yield csvRow(columnsOut);
        let after = 0;
        const keyset = `${whereSql ? whereSql + ' and' : ' where'} t.id > $${params.length + 1}`;
        const fetchPage = (from: number) => {
          const query = db.query(`${exportSelect}${keyset} order by t.id limit ${batch}`, [...params, from]);
          query.catch(() => undefined); // read ahead: if the client has gone, nobody awaits it
          return query;
        };
        let next = fetchPage(after);
        for (;;) {
          const { rows: page } = await next;
          if (page.length === 0) return;
          after = Number(page[page.length - 1]!.id);
          if (page.length === batch) next = fetchPage(after);
          let chunk = '';
          for (const row of page) chunk += writeRow(row);
          yield chunk;
          if (page.length < batch) return;
        }
      }
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${safeFileName(def.name, 'csv')}"`)
        .header('cache-control', 'no-store');
      return reply.send(Readable.from(rows()));
    });
  }

  app.get(`${base}:id/`, { preHandler: read }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const record = await fetchOne(id, db, req.user, false, langOf(req));
    if (!record) throw new ApiError(404, 'not_found');
    return ok(reply, record);
  });

  // Records written elsewhere in the marketplace (ADR 013): reads only.
  if (def.readOnly) return { fetchOne, read, write, scopeOf };

  /** A caller who only writes their own records cannot write one for someone else. */
  function checkOwner(user: AuthUser, input: Record<string, unknown>) {
    if (ownerField && isOwnerScoped(def, user.roles) && Number(input[ownerField]) !== user.id) throw new ApiError(403, 'forbidden');
  }

  /** Values of the status stamps (finished_at…) for a record entering `next` from `previous`. */
  function stampsFor(previous: number | null, next: number): Record<string, 'now' | null | 'keep'> {
    if (!status) return {};
    const stamps = status[1].status.stamps ?? {};
    return Object.fromEntries(stampColumns.map((column) => {
      const entering = Object.entries(stamps).some(([s, c]) => c === column && Number(s) === next);
      const already = previous !== null && Object.entries(stamps).some(([s, c]) => c === column && Number(s) === previous);
      return [column, entering ? (already ? 'keep' : 'now') : null];
    }));
  }

  function checkStatus(user: AuthUser, previous: number | null, next: unknown) {
    if (!status) return;
    const [key, field] = status;
    if (previous === null) {
      if (!field.status.initial.includes(Number(next))) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.initialStatus' });
      return;
    }
    if (!mayTransition(field.status, previous, Number(next), user.roles)) throw new ApiError(409, 'invalid_transition', undefined, { [key]: 'validation.transition' });
  }

  /** Column assignments of an insert or update: writable input, hook values, status stamps. */
  function assignments(input: Record<string, unknown>, extra: Record<string, unknown>, stamps: Record<string, 'now' | null | 'keep'>) {
    const values: [string, unknown][] = [...columns.filter((key) => !(key in extra)).map((key): [string, unknown] => [key, input[key] ?? null]), ...Object.entries(extra)];
    const stamped = Object.entries(stamps).filter(([column, v]) => v !== 'keep' && !(column in extra));
    return { values: values.filter(([key]) => !stamped.some(([c]) => c === key)), stamped: stamped as [string, 'now' | null][] };
  }

  // A reference that names a role (a service's buddy) takes only active users holding it; a value kept
  // from before is left alone, so a buddy who lost the role does not block edits of their old records.
  const roleReferences = Object.entries(def.fields).filter(([, f]) => f.kind === 'reference' && f.reference!.role && !f.lookup);

  // Image fields take only files our upload endpoint stored (ADR 020); a value kept from before may stay.
  const uploadedImages = writable.filter(([, f]) => f.kind === 'image' && f.uploadKind);
  async function checkImages(tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
    for (const [key, field] of uploadedImages) await checkUploadedImage(tx, config, input[key], { field: key, kind: field.uploadKind!, current: current?.[key] ?? null });
  }
  async function checkReferenceRoles(tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
    for (const [key, field] of roleReferences) {
      const value = input[key];
      if (value === null || value === undefined || (current && Number(current[key]) === Number(value))) continue;
      if (!(await holdsRole(tx, Number(value), field.reference!.role!))) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.option' });
    }
  }

  app.post(base, { preHandler: creator }, async (req, reply) => {
    const user = req.user!;
    const input = parseBody(create, req.body) as Record<string, unknown>;
    checkOwner(user, input);
    checkStatus(user, null, status ? input[status[0]] : undefined);
    try {
      const record = await db.transaction(async (tx) => {
        await hooks.beforeCreate?.(input, tx);
        await checkReferenceRoles(tx, input, null);
        await checkImages(tx, input, null);
        const extra = (await hooks.beforeWrite?.(input, { tx, user, current: null })) ?? {};
        const { values, stamped } = assignments(input, extra, status ? stampsFor(null, Number(input[status[0]])) : {});
        const names = [...values.map(([k]) => k), ...stamped.map(([c]) => c)];
        const placeholders = [...values.map((_, i) => `$${i + 1}`), ...stamped.map(([, v]) => (v === 'now' ? 'now()' : 'null'))];
        const { rows } = await tx.query<{ id: number }>(`insert into ${t} (${names.join(', ')}) values (${placeholders.join(', ')}) returning id`, values.map(([, v]) => v));
        return fetchOne(Number(rows[0]!.id), tx, undefined, false, langOf(req));
      });
      return ok(reply, record, 201);
    } catch (error) {
      mapDbError(def, error);
    }
  });

  async function update(req: FastifyRequest, id: number, version: number, body: (current: EntityRecord) => unknown) {
    const user = req.user!;
    try {
      return await db.transaction(async (tx) => {
        const current = await fetchOne(id, tx, user, true);
        if (!current) throw new ApiError(404, 'not_found');
        if (current.version !== version) throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
        const input = parseBody(create, body(current)) as Record<string, unknown>;
        checkOwner(user, input);
        const previous = status ? Number(current[status[0]]) : null;
        if (status) checkStatus(user, previous, input[status[0]]);
        await hooks.beforeUpdate?.(id, input, tx);
        await checkReferenceRoles(tx, input, current);
        await checkImages(tx, input, current);
        const extra = (await hooks.beforeWrite?.(input, { tx, user, current })) ?? {};
        const { values, stamped } = assignments(input, extra, status ? stampsFor(previous, Number(input[status[0]])) : {});
        const sets = [...values.map(([key], i) => `${key} = $${i + 2}`), ...stamped.map(([c, v]) => `${c} = ${v === 'now' ? 'now()' : 'null'}`)];
        await tx.query(`update ${t} set ${sets.join(', ')}, version = version + 1, updated_at = now() where id = $1`, [id, ...values.map(([, v]) => v)]);
        return fetchOne(id, tx, undefined, false, langOf(req));
      });
    } catch (error) {
      mapDbError(def, error);
    }
  }

  const versionOf = (body: unknown) => parseBody(z.object({ version: z.coerce.number().int().positive().max(2 ** 31) }), body).version;

  app.put(`${base}:id/`, { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    parseBody(create, req.body);
    return ok(reply, await update(req, id, version, () => req.body));
  });

  app.patch(`${base}:id/`, { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    return ok(reply, await update(req, id, version, (current) => ({ ...Object.fromEntries(columns.map((k) => [k, current[k]])), ...(req.body as Record<string, unknown>) })));
  });

  if (status) {
    const [statusKey, statusField] = status;
    const transitionBody = z.object({ to: z.coerce.number().int().min(0).max(1000), version: z.coerce.number().int().positive().max(2 ** 31).optional(), force: z.boolean().optional() });
    // POST <resource>/<id>/transition/ {to, version?, force?}: the one status change, checked against the flow;
    // `force` (Admin only) overrides what a hook refuses with a reason an Admin may set aside (ADR 028).
    app.post(`${base}:id/transition/`, { preHandler: transitioner }, async (req, reply) => {
      const user = req.user!;
      const { id } = parseBody(idParam, req.params);
      const { to, version, force } = parseBody(transitionBody, req.body);
      if (!statusField.options?.includes(to)) throw new ApiError(400, 'validation_error', undefined, { to: 'validation.option' });
      if (force && !user.roles.includes('Admin')) throw new ApiError(403, 'forbidden');
      try {
        const record = await db.transaction(async (tx) => {
          const current = await fetchOne(id, tx, user, true);
          if (!current) throw new ApiError(404, 'not_found');
          if (version !== undefined && current.version !== version) throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
          const previous = Number(current[statusKey]);
          if (previous === to) return current;
          checkStatus(user, previous, to);
          const input = { ...Object.fromEntries(columns.map((k) => [k, current[k]])), [statusKey]: to };
          await hooks.beforeWrite?.(input, { tx, user, current, force });
          const stamped = Object.entries(stampsFor(previous, to)).filter(([, v]) => v !== 'keep');
          const sets = [`${statusKey} = $2`, ...stamped.map(([c, v]) => `${c} = ${v === 'now' ? 'now()' : 'null'}`)];
          await tx.query(`update ${t} set ${sets.join(', ')}, version = version + 1, updated_at = now() where id = $1`, [id, to]);
          return fetchOne(id, tx, undefined, false, langOf(req));
        });
        return ok(reply, record);
      } catch (error) {
        mapDbError(def, error);
      }
    });
  }

  app.delete(`${base}:id/`, { preHandler: deleter }, async (req, reply) => {
    const user = req.user!;
    const { id } = parseBody(idParam, req.params);
    try {
      await db.transaction(async (tx) => {
        const current = await fetchOne(id, tx, user, true);
        if (!current) throw new ApiError(404, 'not_found');
        await hooks.beforeDelete?.(current, { tx, user, current });
        await tx.query(`delete from ${t} where id = $1`, [id]);
      });
    } catch (error) {
      mapDbError(def, error, 'delete');
    }
    return ok(reply, { id });
  });

  return { fetchOne, read, write, scopeOf };
}

/** Is this user active and holding this role? */
async function holdsRole(tx: Db, userId: number, role: string): Promise<boolean> {
  const { rows } = await tx.query(
    `select 1 from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id
      where u.id = $1 and u.is_active and r.name = $2`,
    [userId, role],
  );
  return rows.length > 0;
}
