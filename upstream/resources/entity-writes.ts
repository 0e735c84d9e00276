import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isOwnerScoped, mayTransition, writeRoles, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordRequestChange } from '../lib/audit.ts';
import { inActionScopeNow } from '../lib/audit-scope.ts';
import { requireAuth, type AuthUser } from '../lib/auth.ts';
import { langOf } from '../lib/lang.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { checkReferenceValues, checkReferences } from './entity-references.ts';
import type { RecordWrite, Resource, WriteContext } from './entity-resource-types.ts';

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

export const versionSchema = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 31);

// ---- The one write path (create, PUT, PATCH, transition: ADR 009, 032) ----

/** A caller who only writes their own records cannot write one for someone else. */
function checkOwner(def: EntityDef, user: AuthUser, input: Record<string, unknown>) {
  const ownerField = def.access?.ownerField;
  if (ownerField && isOwnerScoped(def, user.roles) && Number(input[ownerField]) !== user.id) throw new ApiError(403, 'forbidden');
}

/** The status table's check: a new record starts in an initial status; a change is a listed step for the caller. */
function checkStatus(r: Resource, user: AuthUser, previous: number | null, next: unknown) {
  if (!r.status) return;
  const [key, field] = r.status;
  if (previous === null) {
    if (!field.status.initial.includes(Number(next))) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.initialStatus' });
    return;
  }
  if (!mayTransition(field.status, previous, Number(next), user.roles)) throw new ApiError(409, 'invalid_transition', undefined, { [key]: 'validation.transition' });
}

/** Values of the status stamps (finished_at…) for a record entering `next` from `previous`. */
function stampsFor(r: Resource, previous: number | null, next: number): Record<string, 'now' | null | 'keep'> {
  if (!r.status) return {};
  const stamps = r.status[1].status.stamps ?? {};
  const stampColumns = [...new Set(Object.values(stamps))];
  return Object.fromEntries(
    stampColumns.map((column) => {
      const entering = Object.entries(stamps).some(([s, c]) => c === column && Number(s) === next);
      const already = previous !== null && Object.entries(stamps).some(([s, c]) => c === column && Number(s) === previous);
      return [column, entering ? (already ? 'keep' : 'now') : null];
    }),
  );
}

/** Column assignments of an insert or update: writable input, hook values, status stamps. */
function assignments(r: Resource, input: Record<string, unknown>, extra: Record<string, unknown>, stamps: Record<string, 'now' | null | 'keep'>) {
  const values: [string, unknown][] = [...r.columns.filter((key) => !(key in extra)).map((key): [string, unknown] => [key, input[key] ?? null]), ...Object.entries(extra)];
  const stamped = Object.entries(stamps).filter(([column, v]) => v !== 'keep' && !(column in extra));
  return { values: values.filter(([key]) => !stamped.some(([c]) => c === key)), stamped: stamped as [string, 'now' | null][] };
}

/** The checks and hooks every write runs once, in the write's transaction; answers the hook's extra columns. */
async function rulesOfWrite(r: Resource, input: Record<string, unknown>, ctx: WriteContext): Promise<Record<string, unknown>> {
  checkOwner(r.def, ctx.user, input);
  const previous = r.status && ctx.current ? Number(ctx.current[r.status[0]]) : null;
  if (r.status) checkStatus(r, ctx.user, previous, input[r.status[0]]);
  if (ctx.current) await r.hooks.beforeUpdate?.(ctx.current.id, input, ctx.tx);
  else await r.hooks.beforeCreate?.(input, ctx.tx);
  await checkReferences(r, ctx.tx, input, ctx.current);
  return (await r.hooks.beforeWrite?.(input, ctx)) ?? {};
}

/** The change history's entry of a write (ADR 035), in the write's transaction; a write that changed no field records nothing. */
function recordWrite(r: Resource, tx: Db, req: FastifyRequest, action: string, before: EntityRecord | null, after: EntityRecord | null) {
  return recordRequestChange(tx, r.config.auditKey, req, { entity: r.def.name, action, before, after, fields: r.def.fields, ownerField: r.def.access?.ownerField });
}

/** POST <resource>/: create. */
export function registerCreate(app: FastifyInstance, r: Resource) {
  app.post(r.base, { preHandler: requireAuth(r.config, writeRoles(r.def, 'create')) }, async (req, reply) => {
    const user = req.user!;
    const input = parseBody(r.create, req.body) as Record<string, unknown>;
    try {
      const record = await r.db.transaction(async (tx) => {
        const extra = await rulesOfWrite(r, input, { tx, user, current: null, lang: langOf(req) });
        const { values, stamped } = assignments(r, input, extra, r.status ? stampsFor(r, null, Number(input[r.status[0]])) : {});
        const names = [...values.map(([k]) => k), ...stamped.map(([c]) => c)];
        const placeholders = [...values.map((_, i) => `$${i + 1}`), ...stamped.map(([, v]) => (v === 'now' ? 'now()' : 'null'))];
        const { rows } = await tx.query<{ id: number }>(
          `insert into ${r.def.table} (${names.join(', ')}) values (${placeholders.join(', ')}) returning id`,
          values.map(([, v]) => v),
        );
        const created = await r.fetchOne(Number(rows[0]!.id), tx, undefined, false, langOf(req));
        await recordWrite(r, tx, req, 'create', null, created);
        return created;
      });
      return ok(reply, record, 201);
    } catch (error) {
      mapDbError(r.def, error);
    }
  });
}

/**
 * The one path of every change to an existing record — PUT, PATCH (the dispatch board's move) and the
 * status transition alike: the row locked, the version checked, the values parsed once, the status table,
 * the entity's rules (`rulesOfWrite`, its hooks) run once, the stamps set, the row written, and the record
 * answered as it now is.
 */
export async function writeRecord(r: Resource, req: FastifyRequest, change: RecordWrite): Promise<EntityRecord | null> {
  const user = req.user!;
  try {
    return await r.db.transaction(async (tx) => {
      await r.hooks.beforeLock?.(change.id, (req.body ?? {}) as Record<string, unknown>, tx);
      const current = await r.fetchOne(change.id, tx, user, true);
      if (!current) throw new ApiError(404, 'not_found');
      if (change.version !== undefined && current.version !== change.version)
        throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
      if (change.allowed && !change.allowed(current)) throw new ApiError(409, 'action_not_allowed', 'The record does not allow this action now.');
      const computed = change.computed ? await change.computed(current, tx) : {};
      if (computed === null) return current;
      const asked = { ...(change.values ?? ((c: EntityRecord) => columnsOf(r, c)))(current), ...computed };
      const input = change.parsed ? asked : (parseBody(r.create, asked) as Record<string, unknown>);
      const previous = r.status ? Number(current[r.status[0]]) : null;
      if (change.statusOnly && r.status && previous === Number(input[r.status[0]])) return current;
      const ctx: WriteContext = { tx, user, current, force: change.force, lang: langOf(req) };
      const own = computedColumns(r, computed);
      await checkReferenceValues(r, tx, own, current);
      const extra = { ...(await rulesOfWrite(r, input, ctx)), ...own };
      await updateRow(r, tx, change.id, input, extra, previous);
      const written = (await r.fetchOne(change.id, tx, undefined, false, langOf(req)))!;
      await r.hooks.afterUpdate?.(input, written, ctx);
      await change.effects?.(tx, written, current);
      // Inside a declared action's scope the scope records the entry, under the action's name (ADR 038, 069).
      if (!inActionScopeNow()) await recordWrite(r, tx, req, change.action ?? (change.statusOnly ? 'transition' : 'update'), current, written);
      return written;
    });
  } catch (error) {
    mapDbError(r.def, error);
  }
}

/** The row's `update`: its assignments, the stamps of a status step, the version step and `updated_at`. */
async function updateRow(r: Resource, tx: Db, id: number, input: Record<string, unknown>, extra: Record<string, unknown>, previous: number | null) {
  const { values, stamped } = assignments(r, input, extra, r.status ? stampsFor(r, previous, Number(input[r.status[0]])) : {});
  const sets = [...values.map(([key], i) => `${key} = $${i + 2}`), ...stamped.map(([c, v]) => `${c} = ${v === 'now' ? 'now()' : 'null'}`)];
  await tx.query(`update ${r.def.table} set ${sets.join(', ')}, version = version + 1, updated_at = now() where id = $1`, [id, ...values.map(([, v]) => v)]);
}

/** A handler's computed values beyond the writable columns (those are parsed as input): declared stored fields only. */
function computedColumns(r: Resource, computed: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(computed)) {
    const field = r.def.fields[key];
    if (!field || field.lookup || field.secret) throw new Error(`${r.def.name}: a change computes ${key}, which is no stored field`);
    if (!r.columns.includes(key)) out[key] = value;
  }
  return out;
}

export const columnsOf = (r: Resource, record: EntityRecord) => Object.fromEntries(r.columns.map((k) => [k, record[k]]));

/** PUT <resource>/<id>/ (the whole record) and PATCH (some fields), both with the version they were based on. */
export function registerUpdate(app: FastifyInstance, r: Resource) {
  const versionOf = (body: unknown) => parseBody(z.object({ version: versionSchema }), body).version;
  app.put(`${r.base}:id/`, { preHandler: r.write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    const input = parseBody(r.create, req.body) as Record<string, unknown>;
    return ok(reply, await writeRecord(r, req, { id, version, parsed: true, values: () => input }));
  });
  app.patch(`${r.base}:id/`, { preHandler: r.write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    return ok(reply, await writeRecord(r, req, { id, version, values: (current) => ({ ...columnsOf(r, current), ...(req.body as Record<string, unknown>) }) }));
  });
}

/** POST <resource>/<id>/transition/ {to, version?, force?}: a status change, through the one write path. */
export function registerTransition(app: FastifyInstance, r: Resource) {
  const [statusKey, statusField] = r.status!;
  const body = z.object({ to: z.coerce.number().int().min(0).max(1000), version: versionSchema.optional(), force: z.boolean().optional() });
  app.post(`${r.base}:id/transition/`, { preHandler: requireAuth(r.config, writeRoles(r.def, 'transition')) }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { to, version, force } = parseBody(body, req.body);
    if (!statusField.options?.includes(to)) throw new ApiError(400, 'validation_error', undefined, { to: 'validation.option' });
    // `force` sets aside a rule an Admin may set aside (the entity's rules say which, ADR 028); nobody else may send it.
    if (force && !req.user!.roles.includes('Admin')) throw new ApiError(403, 'forbidden');
    return ok(reply, await writeRecord(r, req, { id, version, statusOnly: true, force: Boolean(force), values: (current) => ({ ...columnsOf(r, current), [statusKey]: to }) }));
  });
}

/** DELETE <resource>/<id>/ (a record still referenced is 409 in_use). */
export function registerDelete(app: FastifyInstance, r: Resource) {
  app.delete(`${r.base}:id/`, { preHandler: requireAuth(r.config, writeRoles(r.def, 'delete')) }, async (req, reply) => {
    const user = req.user!;
    const { id } = parseBody(idParam, req.params);
    try {
      await r.db.transaction(async (tx) => {
        const current = await r.fetchOne(id, tx, user, true);
        if (!current) throw new ApiError(404, 'not_found');
        await r.hooks.beforeDelete?.(current, { tx, user, current });
        await tx.query(`delete from ${r.def.table} where id = $1`, [id]);
        await recordWrite(r, tx, req, 'delete', current, null);
      });
    } catch (error) {
      mapDbError(r.def, error, 'delete');
    }
    return ok(reply, { id });
  });
}
