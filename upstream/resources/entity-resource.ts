import type { FastifyInstance } from 'fastify';
import { filterSpecs, isOwnerScoped, readThroughRoles, statusFieldOf, writableFields, writeRoles, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { createSchema, listParamsSchema } from '../../shared/entity/schemas.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';
import { requireAuth, type AuthUser } from '../lib/auth.ts';
import { entityNamed as entityByName, readScopesOf as upstreamReadScopes } from '../lib/entity-catalogue.ts';
import type { Lang } from '../lib/lang.ts';
import { parseBody } from '../routes/validation.ts';
import { exportSelectOf, filterConditions, listWhere, normalizeRow, registerCalendar, registerExport, registerGet, registerList, selectOf } from './entity-reads.ts';
import type { EntityResource, ListWhere, OwnRoute, Resource, ResourceHooks } from './entity-resource-types.ts';
import { searchForms, searchedKeys } from './entity-search.ts';
import { checkEntitySql } from './entity-sql-parts.ts';
import { registerCreate, registerDelete, registerTransition, registerUpdate, writeRecord } from './entity-writes.ts';

// The resource factory: an entity's generic REST resource, computed once from its definition (ADR 006, 009).

/**
 * A caller holding a role that reads the entity reads any record of it; one holding only a readThrough role reads
 * a record some record of theirs names (an exists over the owning entity's reference and owner columns).
 */
function readThroughCheck(db: Db, def: EntityDef, readScopes: readonly string[]) {
  return async function checkReadThrough(id: number, user: AuthUser | undefined, tx: Db = db) {
    if (!user || user.roles.some((role) => readScopes.includes(role))) return;
    const ways = (def.access?.readThrough ?? [])
      .filter((rule) => rule.roles.some((role) => user.roles.includes(role)))
      .map((rule) => {
        const through = entityByName(rule.entity)!;
        return `exists (select 1 from ${through.table} o where o.${rule.field} = t.id and o.${through.access!.ownerField} = $2)`;
      });
    const { rows } = ways.length ? await tx.query(`select 1 from ${def.table} t where t.id = $1 and (${ways.join(' or ')})`, [id, user.id]) : { rows: [] };
    if (rows.length === 0) throw new ApiError(404, 'not_found');
  };
}

/** The shared state of an entity's routes: SQL, schemas, the owner scope and the record reader. */
function resourceOf(db: Db, config: UpstreamConfig, def: EntityDef, hooks: ResourceHooks): Resource {
  const t = def.table;
  const searchable = searchedKeys(def);
  const filters = filterSpecs(def);
  const ownerField = def.access?.ownerField;
  const selects: Record<Lang, string> = { en: selectOf(def, 'en'), sv: selectOf(def, 'sv') };
  const listParams = listParamsSchema(def);

  const readScopes = upstreamReadScopes(def);
  const checkReadThrough = readThroughCheck(db, def, readScopes);

  function scopeOf(user: AuthUser | undefined, firstParam: number) {
    if (!ownerField || !user || !isOwnerScoped(def, user.roles)) return { sql: '', params: [] as unknown[] };
    return { sql: `t.${ownerField} = $${firstParam}`, params: [user.id] as unknown[] };
  }

  async function fetchOne(id: number, tx: Db = db, user?: AuthUser, lock = false, lang: Lang = 'en'): Promise<EntityRecord | null> {
    const scope = scopeOf(user, 2);
    // FOR UPDATE cannot lock through the label subqueries' tables; lock the row itself first.
    if (lock) await tx.query(`select 1 from ${t} t where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''} for update`, [id, ...scope.params]);
    const { rows } = await tx.query(`${selects[lang]} where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''}`, [id, ...scope.params]);
    return rows[0] ? normalizeRow(def, rows[0]) : null;
  }

  /** WHERE clause of a list, export or calendar from its query string (search, filters, owner), parameterised. */
  async function whereOf(
    query: Record<string, string>,
    search: string | undefined,
    user: AuthUser | undefined,
    lang: Lang,
    extra: { sql: string; params: unknown[] }[] = [],
  ): Promise<ListWhere> {
    const where: string[] = [];
    const params: unknown[] = [];
    const forms = search && searchable.length ? await searchForms(db, def, search, lang, params, { leadAbove: config.exactCountUpTo }) : undefined;
    where.push(...filterConditions(def, query, params, filters));
    const scope = scopeOf(user, params.length + 1);
    if (scope.sql) {
      where.push(scope.sql);
      params.push(...scope.params);
    }
    for (const clause of extra) {
      where.push(clause.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + params.length}`));
      params.push(...clause.params);
    }
    return listWhere(forms, where, params);
  }

  const filtersOf = (query: Readonly<Record<string, string | undefined>>) =>
    Object.fromEntries(filters.filter((s) => query[s.key] !== undefined && query[s.key] !== '').map((s) => [s.key, query[s.key]!]));

  const resource: Resource = {
    def,
    db,
    config,
    hooks,
    change: (req, change) => writeRecord(resource, req, change),
    base: `/api/${def.name}/`,
    columns: writableFields(def).map(([key]) => key),
    create: createSchema(def),
    status: statusFieldOf(def),
    read: requireAuth(config, readScopes),
    // Pure reads: their statements start beside the session check, and their answer waits for it (ADR 052).
    list: requireAuth(config, readScopes, { overlap: true }),
    readOne: requireAuth(config, [...new Set([...readScopes, ...readThroughRoles(def)])]),
    checkReadThrough,
    write: requireAuth(config, writeRoles(def, 'update')),
    selects,
    exportSelect: (lang) => exportSelectOf(def, lang),
    fetchOne,
    scopeOf,
    whereOf,
    filtersOf,
    parseList: (query) =>
      parseBody(listParams, { page: query.page, page_size: query.page_size, search: query.search, ordering: query.ordering, after: query.after, filters: filtersOf(query) }),
  };
  return resource;
}

/**
 * The generic REST resource of an entity (ADR 006, 009): list with paging/search/sort/filters, read,
 * create, full and partial update guarded by `version`, delete; a status transition action and a
 * calendar read when the definition has them. Reads need a role the back office reads it with (its
 * route's, or one choosing it in a form or filter: `upstreamReadScopes`); writes the roles of
 * `def.access` (Admin by default); owner-scoped entities show non-admins only their own records.
 */
export function registerEntityResource(
  app: FastifyInstance,
  db: Db,
  config: UpstreamConfig,
  def: EntityDef,
  hooks: ResourceHooks = {},
  servesOwn: readonly OwnRoute[] = [],
): EntityResource {
  checkEntitySql(def);
  const r = resourceOf(db, config, def, hooks);
  const generic = (route: OwnRoute) => !servesOwn.includes(route);
  if (generic('list')) registerList(app, r);
  if (def.calendarField) registerCalendar(app, r, def.calendarField);
  if (def.exportable) registerExport(app, r);
  if (generic('get')) registerGet(app, r);
  // Records written elsewhere in the marketplace (ADR 013): reads only.
  if (def.readOnly) return r;
  if (!def.updateOnly) registerCreate(app, r);
  if (generic('update')) registerUpdate(app, r);
  if (r.status) registerTransition(app, r);
  if (!def.updateOnly) registerDelete(app, r);
  return r;
}
