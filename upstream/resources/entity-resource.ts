import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import { createSchema, filterKeys, listParamsSchema, sortableKeys, writableFields, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { STAFF_ROLES, requireAuth } from '../lib/auth.ts';
import { parseBody } from '../routes/validation.ts';

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
  }
  return out as EntityRecord;
}

function filterValue(field: FieldDef, raw: unknown): unknown {
  if (field.kind === 'boolean') return raw === true || raw === 'true' || raw === '1';
  if (field.kind === 'reference' || field.kind === 'integer') {
    const n = Number(raw);
    if (!Number.isInteger(n)) throw new ApiError(400, 'validation_error', undefined, { [String(raw)]: 'validation.integer' });
    return n;
  }
  return String(raw);
}

/** PostgreSQL error → API error: unique and foreign-key violations become field errors or 409 in_use. */
function mapDbError(def: EntityDef, error: unknown, op: 'write' | 'delete' = 'write'): never {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') {
    const field = Object.keys(def.fields).find((key) => e.constraint === `${def.table}_${key}_key` || e.message?.includes(`${def.table}_${key}_key`)) ?? '_form';
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

/**
 * The generic REST resource of an entity (ADR 006): list with paging/search/sort/filters, read,
 * create, full and partial update guarded by `version`, delete. Reads need a staff role, writes Admin.
 */
export interface ResourceHooks {
  /** Business rules beyond the schema, checked before an insert (e.g. an owner's bicycle limit). */
  beforeCreate?: (input: Record<string, unknown>) => Promise<void>;
}

export function registerEntityResource(app: FastifyInstance, db: Db, config: UpstreamConfig, def: EntityDef, hooks: ResourceHooks = {}) {
  const t = def.table;
  const base = `/api/${def.name}/`;
  const read = requireAuth(config, STAFF_ROLES);
  const write = requireAuth(config, ['Admin']);
  const create = createSchema(def);
  const columns = writableFields(def).map(([key]) => key);
  const searchable = Object.entries(def.fields).filter(([, f]) => f.searchable).map(([k]) => k);
  const sortable = new Set(sortableKeys(def));
  const filters = filterKeys(def);
  const labels = Object.entries(def.fields)
    .filter(([, f]) => f.kind === 'reference')
    .map(([key, f]) => {
      const table = entityByName(f.reference!.entity)?.table ?? f.reference!.entity.replace(/-/g, '_');
      return `(select r.${f.reference!.label} from ${table} r where r.id = t.${key}) as ${key}_label`;
    });
  // A searchable reference is searched by its label (a bicycle by its owner's e-mail).
  const searchExpression = (key: string) => {
    const field = def.fields[key]!;
    if (field.kind !== 'reference') return `t.${key}`;
    const table = entityByName(field.reference!.entity)?.table ?? field.reference!.entity.replace(/-/g, '_');
    return `(select r.${field.reference!.label} from ${table} r where r.id = t.${key})`;
  };
  const select = `select t.*${labels.map((l) => ', ' + l).join('')} from ${t} t`;
  const listParams = listParamsSchema(def);
  const idParam = z.object({ id: z.coerce.number().int().positive().max(2 ** 53) });

  async function fetchOne(id: number, tx: Db = db): Promise<EntityRecord | null> {
    const { rows } = await tx.query(`${select} where t.id = $1`, [id]);
    return rows[0] ? normalizeRow(def, rows[0]) : null;
  }

  /** WHERE clause of a list or export from its query string (search and filters), parameterised. */
  function whereOf(query: Record<string, string>, search: string | undefined) {
    const where: string[] = [];
    const params: unknown[] = [];
    if (search && searchable.length) {
      params.push(`%${search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(`(${searchable.map((k) => `lower(${searchExpression(k)}) like $${params.length}`).join(' or ')})`);
    }
    for (const key of filters) {
      if (query[key] === undefined || query[key] === '') continue;
      params.push(filterValue(def.fields[key]!, query[key]));
      where.push(`t.${key} = $${params.length}`);
    }
    return { sql: where.length ? ` where ${where.join(' and ')}` : '', params };
  }

  const parseList = (query: Record<string, string>) =>
    parseBody(listParams, {
      page: query.page,
      page_size: query.page_size,
      search: query.search,
      ordering: query.ordering,
      filters: Object.fromEntries(filters.filter((k) => query[k] !== undefined && query[k] !== '').map((k) => [k, query[k]])),
    });

  app.get(base, { preHandler: read }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { page, page_size, search, ordering } = parseList(query);
    const { sql: whereSql, params } = whereOf(query, search);
    const order = ordering ?? def.defaultSort;
    const desc = order.startsWith('-');
    const column = order.replace(/^-/, '');
    if (!sortable.has(column)) throw new ApiError(400, 'validation_error', undefined, { ordering: 'validation.option' });
    const direction = desc ? 'desc' : 'asc';
    const [{ rows: countRows }, { rows }] = await Promise.all([
      db.query<{ n: number }>(`select count(*)::int as n from ${t} t${whereSql}`, params),
      db.query(`${select}${whereSql} order by t.${column} ${direction} nulls last, t.id ${direction} limit ${page_size} offset ${(page - 1) * page_size}`, params),
    ]);
    const count = Number(countRows[0]?.n ?? 0);
    return ok(reply, {
      results: rows.map((row) => normalizeRow(def, row)),
      paginator: { page, page_size, count, total_pages: Math.ceil(count / page_size) },
    });
  });

  if (def.exportable) {
    const columnsOut = ['id', ...Object.keys(def.fields).flatMap((k) => (def.fields[k]!.kind === 'reference' ? [k, `${k}_label`] : [k])), 'created_at', 'updated_at'];
    app.get(`${base}export/`, { preHandler: read }, async (req, reply) => {
      const query = req.query as Record<string, string>;
      const { search } = parseList({ ...query, page: undefined as unknown as string, page_size: undefined as unknown as string, ordering: undefined as unknown as string });
      const { sql: whereSql, params } = whereOf(query, search);
      const batch = 1000;
      // Keyset pages by id: constant memory and no OFFSET cost however many rows there are.
      async function* rows() {
        yield csvRow(columnsOut);
        let after = 0;
        for (;;) {
          const keyset = `${whereSql ? whereSql + ' and' : ' where'} t.id > $${params.length + 1}`;
          const { rows: page } = await db.query(`${select}${keyset} order by t.id limit ${batch}`, [...params, after]);
          if (page.length === 0) return;
          let chunk = '';
          for (const row of page) {
            const record = normalizeRow(def, row);
            chunk += csvRow(columnsOut.map((c) => record[c]));
          }
          after = Number(page[page.length - 1]!.id);
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
    const record = await fetchOne(id);
    if (!record) throw new ApiError(404, 'not_found');
    return ok(reply, record);
  });

  app.post(base, { preHandler: write }, async (req, reply) => {
    const input = parseBody(create, req.body) as Record<string, unknown>;
    await hooks.beforeCreate?.(input);
    try {
      const { rows } = await db.query<{ id: number }>(
        `insert into ${t} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
        columns.map((key) => input[key] ?? null),
      );
      return ok(reply, await fetchOne(Number(rows[0]!.id)), 201);
    } catch (error) {
      mapDbError(def, error);
    }
  });

  async function update(id: number, version: number, input: Record<string, unknown>) {
    try {
      const { rows } = await db.query<{ id: number }>(
        `update ${t} set ${columns.map((key, i) => `${key} = $${i + 3}`).join(', ')}, version = version + 1, updated_at = now()
          where id = $1 and version = $2 returning id`,
        [id, version, ...columns.map((key) => input[key] ?? null)],
      );
      if (rows[0]) return fetchOne(id);
    } catch (error) {
      mapDbError(def, error);
    }
    const current = await fetchOne(id);
    if (!current) throw new ApiError(404, 'not_found');
    throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
  }

  const versionOf = (body: unknown) => parseBody(z.object({ version: z.coerce.number().int().positive() }), body).version;

  app.put(`${base}:id/`, { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    return ok(reply, await update(id, version, parseBody(create, req.body) as Record<string, unknown>));
  });

  app.patch(`${base}:id/`, { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    const current = await fetchOne(id);
    if (!current) throw new ApiError(404, 'not_found');
    const merged = { ...Object.fromEntries(columns.map((k) => [k, current[k]])), ...(req.body as Record<string, unknown>) };
    return ok(reply, await update(id, version, parseBody(create, merged) as Record<string, unknown>));
  });

  app.delete(`${base}:id/`, { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    try {
      const { rows } = await db.query(`delete from ${t} where id = $1 returning id`, [id]);
      if (!rows[0]) throw new ApiError(404, 'not_found');
    } catch (error) {
      if (error instanceof ApiError) throw error;
      mapDbError(def, error, 'delete');
    }
    return ok(reply, { id });
  });

  return { fetchOne, read, write };
}
