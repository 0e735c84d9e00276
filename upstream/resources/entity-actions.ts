import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  actionRoles,
  isRecordAction,
  ownActions,
  segmentOf,
  subResourceWriteRoles,
  writableFields,
  type ActionDef,
  type EntityDef,
  type FieldDef,
  type SubResourceDef,
} from '../../shared/entity/define.ts';
import { inputFieldsSchema } from '../../shared/entity/schemas.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import type { Invitations } from '../invitations.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import type { Changes } from '../lib/audit.ts';
import { askedOf, inActionScope } from '../lib/audit-scope.ts';
import { requireAuth } from '../lib/auth.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { registerEntityResource } from './entity-resource.ts';
import type { EntityResource, OwnRoute, ResourceHooks } from './entity-resource-types.ts';
import { versionSchema } from './entity-writes.ts';

// ---- An entity's own handlers, found by file name (ADR 032) ----

/** What an entity's handler file may need beyond its resource: the API's database, config and invitations. */
export interface HandlerEnv {
  db: Db;
  config: UpstreamConfig;
  invitations: Invitations;
}

export type EntityRouteHandler = (req: FastifyRequest, reply: FastifyReply, resource: EntityResource) => Promise<unknown>;

/**
 * What `upstream/resources/<entity>.ts` exports as `handlers(env)`: the hooks of its generic resource, the
 * handler of each declared action and sub-resource operation (the routes, their roles and their OpenAPI
 * entries come from the declaration), and `routes` for anything else it serves.
 */
export interface EntityHandlers {
  hooks?: ResourceHooks;
  /**
   * Generic routes the file serves itself in `routes`, at the same paths (ADR 034): the users' reads and update,
   * since their list filters by role and projects away private details (ADR 034).
   */
  servesOwn?: readonly OwnRoute[];
  actions?: Record<string, EntityRouteHandler>;
  subResources?: Record<string, { list?: EntityRouteHandler; add?: EntityRouteHandler; set?: EntityRouteHandler; setMany?: EntityRouteHandler; remove?: EntityRouteHandler }>;
  routes?: (app: FastifyInstance, resource: EntityResource) => void;
}

export type EntityHandlersFactory = (env: HandlerEnv) => EntityHandlers;

/** The path parameters of a sub-resource's item route: the record and the item's key. */
export const itemParams = idParam.extend({ key: z.string().min(1).max(255) });
function handlerOf<T>(def: EntityDef, what: string, handler: T | undefined): T {
  if (!handler) throw new Error(`${def.name}: ${what} is declared but upstream/resources/${def.name}.ts has no handler for it`);
  return handler;
}

/** POST <resource>/<id>/<action>/ (or <resource>/<action>/) for every declared action, with the declared roles. */
function registerActions(app: FastifyInstance, r: EntityResource, handlers: EntityHandlers) {
  const { def, config } = r;
  for (const [key, action] of ownActions(def)) {
    if (action.sets && handlers.actions?.[key]) throw new Error(`${def.name}: action ${key} declares what it sets, so it has no handler of its own`);
    const handler = action.sets ? setsHandler(key, action) : handlerOf(def, `action ${key}`, handlers.actions?.[key]);
    const segment = segmentOf(key, action.path);
    const onRecord = isRecordAction(action);
    const url = onRecord ? `/api/${def.name}/:id/${segment}/` : `/api/${def.name}/${segment}/`;
    app.post(url, { preHandler: requireAuth(config, actionRoles(def, action)) }, (req, reply) =>
      audited(r, req, key, onRecord, askedOf(action.input, req.body), async () => {
        if (onRecord && !action.sets) await checkActionVersion(r, req, action);
        return handler(req, reply, r);
      }),
    );
  }
  for (const key of Object.keys(handlers.actions ?? {})) if (!def.actions?.[key]) throw new Error(`${def.name}: a handler for undeclared action ${key}`);
}

const actionVersion = z.object({ version: versionSchema.optional() });

/** The version a record action's body carries, if any (checked again on the locked row by `change`). */
export const actionVersionOf = (req: FastifyRequest): number | undefined => parseBody(actionVersion, req.body ?? {}).version;

/**
 * The version a record action was sent, checked before its handler runs (ADR 069): a stale one is 409, as for an
 * edit; a `versioned` action without one is 400. (A `sets` action checks it on the locked row, in the write path.)
 */
async function checkActionVersion(r: EntityResource, req: FastifyRequest, action: ActionDef) {
  const { version } = parseBody(actionVersion, req.body ?? {});
  if (version === undefined) {
    if (action.versioned) throw new ApiError(400, 'validation_error', undefined, { version: 'validation.required' });
    return;
  }
  const current = await r.fetchOne(parseBody(idParam, req.params).id, r.db, req.user);
  if (!current) throw new ApiError(404, 'not_found');
  if (current.version !== version) throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
}

/**
 * The handler of a `sets` action (ADR 069): its declared input parsed, the values it sets merged into the record
 * as it is, through the one write path under the action's name, `enabledWhen` checked on the locked row.
 */
function setsHandler(key: string, action: ActionDef): EntityRouteHandler {
  const body = inputFieldsSchema(action.input).extend({ version: versionSchema.optional() });
  return async (req, reply, r) => {
    const { id } = parseBody(idParam, req.params);
    const { version, ...input } = parseBody(body, req.body ?? {}) as Record<string, unknown> & { version?: number };
    if (action.versioned && version === undefined) throw new ApiError(400, 'validation_error', undefined, { version: 'validation.required' });
    const sets = action.sets === 'input' ? input : action.sets!;
    const saved = await r.change(req, {
      id,
      version,
      action: key,
      allowed: action.enabledWhen ? (current) => action.enabledWhen!(current, input) : undefined,
      values: (current) => ({ ...Object.fromEntries(writableFields(r.def).map(([k]) => [k, current[k]])), ...sets }),
    });
    return ok(reply, saved);
  };
}

/**
 * Runs a declared action's or sub-resource write's handler in its history scope (ADR 038): every transaction
 * it opens on the resource's database records the entry of what it changed, before its commit. An entity's own
 * routes (`routes`: a checklist row's images) write through it too (ADR 058).
 */
export function audited(r: EntityResource, req: FastifyRequest, action: string, onRecord: boolean, asked: Changes, run: () => Promise<unknown>) {
  const id = onRecord ? Number((req.params as { id?: string }).id) : NaN;
  return inActionScope(
    {
      req,
      entity: r.def.name,
      recordId: Number.isSafeInteger(id) && id > 0 ? id : null,
      action,
      fields: r.def.fields,
      ownerField: r.def.access?.ownerField,
      asked,
      read: (recordId, tx) => r.fetchOne(recordId, tx),
    },
    run,
  );
}

/** The declared input values of a body, never a secret one. */
function askedValues(input: Readonly<Record<string, FieldDef>> | undefined, body: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(askedOf(input, body)).map(([name, [, value]]) => [name, value]));
}

/** The items a `setMany` body asks to set, each with its declared input values (for its history entry). */
function askedItems(sub: SubResourceDef, body: unknown): Record<string, unknown>[] {
  const items = (body as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.map((item) => ({ key: (item as { key?: unknown } | null)?.key ?? null, ...askedValues(sub.set, item) })) : [];
}

/** GET (and the declared POST, PUT, PUT :key, DELETE :key) of every sub-resource under <resource>/<id>/<path>/. */
function registerSubResources(app: FastifyInstance, r: EntityResource, handlers: EntityHandlers) {
  const { def, config } = r;
  for (const [key, sub] of Object.entries(def.subResources ?? {})) {
    const own = handlers.subResources?.[key] ?? {};
    const at = `/api/${def.name}/:id/${segmentOf(key, sub.path)}/`;
    // Roles of its own, or whoever reads the record: the entity's readers and, for records they reach, its readThrough roles.
    const reader = sub.readRoles ? requireAuth(config, sub.readRoles) : r.readOne;
    const writer = requireAuth(config, subResourceWriteRoles(def, sub));
    const list = handlerOf(def, `${key}.list`, own.list);
    app.get(at, { preHandler: reader }, async (req, reply) => {
      if (!sub.readRoles) await r.checkReadThrough(parseBody(idParam, req.params).id, req.user);
      return list(req, reply, r);
    });
    // The item added, set or removed is what was asked: `{<sub-resource>: [before, after]}` in its history entry.
    const itemKey = (req: FastifyRequest) => (req.params as { key?: string }).key ?? null;
    if (sub.add) {
      const add = handlerOf(def, `${key}.add`, own.add);
      app.post(at, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.add`, true, { [key]: [null, askedValues(sub.add, req.body)] }, () => add(req, reply, r)));
    }
    if (sub.set) {
      const set = handlerOf(def, `${key}.set`, own.set);
      app.put(`${at}:key/`, { preHandler: writer }, (req, reply) =>
        audited(r, req, `${key}.set`, true, { [key]: [null, { key: itemKey(req), ...askedValues(sub.set, req.body) }] }, () => set(req, reply, r)),
      );
    }
    if (sub.setMany) {
      // Many items at once, in one transaction of the handler's (ADR 043); the history entry lists them all.
      const setMany = handlerOf(def, `${key}.setMany`, own.setMany);
      app.put(at, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.setMany`, true, { [key]: [null, askedItems(sub, req.body)] }, () => setMany(req, reply, r)));
    }
    if (sub.remove) {
      const remove = handlerOf(def, `${key}.remove`, own.remove);
      app.delete(`${at}:key/`, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.remove`, true, { [key]: [itemKey(req), null] }, () => remove(req, reply, r)));
    }
  }
  for (const key of Object.keys(handlers.subResources ?? {})) if (!def.subResources?.[key]) throw new Error(`${def.name}: handlers for undeclared sub-resource ${key}`);
}

/** One entity: its generic resource with its hooks, its declared actions and sub-resources, and its own routes. */
export function registerEntity(app: FastifyInstance, env: HandlerEnv, def: EntityDef, factory?: EntityHandlersFactory) {
  const handlers = factory?.(env) ?? {};
  const resource = registerEntityResource(app, env.db, env.config, def, handlers.hooks, handlers.servesOwn);
  registerActions(app, resource, handlers);
  registerSubResources(app, resource, handlers);
  handlers.routes?.(app, resource);
}
