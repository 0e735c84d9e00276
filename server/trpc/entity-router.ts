import type { TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import { z } from 'zod';
import { ENTITIES } from '../../shared/entities/registry.ts';
import {
  actionRoles,
  actionsOf,
  isRecordAction,
  segmentOf,
  subResourceWriteRoles,
  type ActionDef,
  type ActionsOfType,
  type EntityDef,
  type EntityRecord,
  type InputOf,
  type ItemOf,
  type Paged,
  type ScopeRole,
  type SubResourceDef,
  type SubResourcesOfType,
} from '../../shared/entity/define.ts';
import { actionInputSchema, inputFieldsSchema, recordIdSchema, subResourceKeySchema, subResourceListSchema, subResourceSetManySchema } from '../../shared/entity/schemas.ts';
import type { Role } from '../../shared/roles.ts';
import { rolesOf, type AppPath } from '../../shared/route-table.ts';
import { recordReadRoles } from '../../shared/entity/access-roles.ts';
import { UpstreamError } from '../upstream/client.ts';
import { calendarProcedure, createAndDeleteProcedures, createCrudProcedures, createReadProcedures, updateProcedure } from './crud-router.ts';
import { ENTITY_EXTRAS } from './entity-extras.generated.ts';
import { roleProcedure } from './init.ts';

/**
 * The tRPC router of every entity, derived from its definition (ADR 006, 032): CRUD (or reading only),
 * the calendar read, one mutation per action of `actionsOf(def)` and one nested router per sub-resource.
 * What is neither (a public read, a catalogue constant) lives in `server/trpc/extras/<entity>.ts` as
 * `extraProcedures`, found by its file name (`scripts/gen-entity-handlers.ts` writes the index).
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Query<I, O> = TRPCQueryProcedure<{ meta: object; input: I; output: O }>;
type Mutation<I, O> = TRPCMutationProcedure<{ meta: object; input: I; output: O }>;

type ActionInput<A> = Simplify<
  (A extends { on: 'collection' } ? Record<never, never> : { id: number; version?: number }) & InputOf<A extends { input: infer I } ? I : Record<never, never>>
>;
type ActionOutput<A> = A extends { result: 'none' }
  ? Record<string, unknown>
  : A extends { result: 'file' }
    ? { file: { name: string; type: string; content: string } }
    : A extends { result: { recordKey: infer K extends string } }
      ? { [P in K]: EntityRecord } & Record<string, unknown>
      : EntityRecord;
type ActionProcedures<D> = { [K in keyof ActionsOfType<D>]: Mutation<ActionInput<ActionsOfType<D>[K]>, ActionOutput<ActionsOfType<D>[K]>> };

type KeyValue<S> = S extends { key: infer K extends string; item: infer I }
  ? K extends keyof I
    ? I[K] extends { kind: 'reference' | 'integer' }
      ? number
      : string
    : number
  : number;
type Item<S> = S extends { item: infer I } ? ItemOf<I> & (S extends { key: string } ? Record<never, never> : { id: number }) : never;
type SubResourceProcedures<S> = {
  list: S extends { paged: true } ? Query<{ id: number; page?: number; page_size?: number }, Paged<Item<S>>> : Query<{ id: number }, Item<S>[]>;
} & (S extends { add: infer I } ? { add: Mutation<Simplify<{ id: number } & InputOf<I>>, unknown> } : Record<never, never>) &
  (S extends { set: infer I } ? { set: Mutation<Simplify<{ id: number; key: KeyValue<S> } & InputOf<I>>, unknown> } : Record<never, never>) &
  (S extends { setMany: true; set: infer I } ? { setMany: Mutation<{ id: number; items: Simplify<{ key: KeyValue<S> } & InputOf<I>>[] }, Item<S>[]> } : Record<never, never>) &
  (S extends { remove: true } ? { remove: Mutation<{ id: number; key: KeyValue<S> }, unknown> } : Record<never, never>);

type ReadPart = ReturnType<typeof createReadProcedures>;
type UpdatePart = { update: ReturnType<typeof updateProcedure> };
type CrudPart<D> = D extends { readOnly?: infer R; updateOnly?: infer U }
  ? true extends R
    ? ReadPart
    : true extends U
      ? ReadPart & UpdatePart
      : ReadPart & UpdatePart & ReturnType<typeof createAndDeleteProcedures>
  : never;
type CalendarPart<D> = D extends { calendarField?: infer C }
  ? [C] extends [never]
    ? Record<never, never>
    : [C] extends [undefined]
      ? Record<never, never>
      : { calendar: ReturnType<typeof calendarProcedure> }
  : Record<never, never>;
type ExtrasOf<N> = N extends keyof typeof ENTITY_EXTRAS ? (typeof ENTITY_EXTRAS)[N]['extraProcedures'] : Record<never, never>;

type Derived<D> = CrudPart<D> & CalendarPart<D> & ActionProcedures<D> & { [K in keyof SubResourcesOfType<D>]: SubResourceProcedures<SubResourcesOfType<D>[K]> };
/** An extra procedure of the same name replaces the derived one (the users list with its role filter). */
type WithExtras<T, E> = Omit<T, keyof E> & E;

/** The procedures of one entity, as the client sees them. */
export type EntityProcedures<D> = WithExtras<Derived<D>, ExtrasOf<D extends { name: infer N } ? N : never>>;

type CamelCase<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
type Entities = (typeof ENTITIES)[number];
export type EntityRouters = { [D in Entities as CamelCase<D['name']>]: EntityProcedures<D> };

/** tRPC router key of an entity: `bicycle-types` → `bicycleTypes` (client/entity/entity-api.ts agrees). */
export function routerKeyOf(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The roles of a route that also hold one of the scope roles allowed; never empty. */
function routeRolesAllowing(def: EntityDef, route: AppPath, allowed: readonly ScopeRole[], what: string): readonly Role[] {
  const roles = rolesOf(route).filter((role) => (allowed as readonly string[]).includes(role));
  if (roles.length === 0) throw new Error(`${def.name}: no role of ${route} may ${what}`);
  return roles;
}

const recordRoute = (def: EntityDef): AppPath => (def.detailRoute ?? def.route) as AppPath;

/** The body of an action: its input without the record's id, with the version only when given. */
function actionBody(input: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, version, ...rest } = input;
  return { ...rest, ...(version !== undefined ? { version } : {}) };
}

/** `POST <name>/<id>/<path>/` (or `<name>/<path>/` on the collection) with the action's input; the API's answer as is. */
export function actionProcedure(def: EntityDef, key: string, action: ActionDef) {
  const path = segmentOf(key, action.path);
  const record = isRecordAction(action);
  return roleProcedure(...routeRolesAllowing(def, def.route as AppPath, actionRoles(def, action), key))
    .input(actionInputSchema(action))
    .mutation(({ ctx, input }) => {
      const values = input as Record<string, unknown>;
      return ctx.session.call<unknown>({ method: 'POST', path: record ? `${def.name}/${values.id}/${path}/` : `${def.name}/${path}/`, body: actionBody(values), lang: ctx.lang });
    });
}

/** A sub-resource's list: an array, or a page when it is paged (an unpaged `{results}` is unwrapped). */
function listAnswer(sub: SubResourceDef, data: unknown): unknown {
  if (sub.paged) {
    const page = data as Partial<Paged<unknown>> | null;
    if (page && Array.isArray(page.results) && page.paginator) return page;
  } else if (Array.isArray(data)) return data;
  else if (Array.isArray((data as { results?: unknown } | null)?.results)) return (data as { results: unknown[] }).results;
  throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
}

/** `list`, and the declared `add`, `set`, `setMany` (ADR 043), `remove` of one sub-resource, under `<name>/<id>/<path>/`. */
export function subResourceProcedures(def: EntityDef, key: string, sub: SubResourceDef) {
  const at = (id: unknown) => `${def.name}/${id}/${segmentOf(key, sub.path)}/`;
  const itemAt = (id: unknown, itemKey: unknown) => `${at(id)}${encodeURIComponent(String(itemKey))}/`;
  const reader = roleProcedure(...(sub.readRoles ? routeRolesAllowing(def, recordRoute(def), sub.readRoles, `read ${key}`) : recordReadRoles(def)));
  const writer = () => roleProcedure(...routeRolesAllowing(def, recordRoute(def), subResourceWriteRoles(def, sub), `write ${key}`));
  const itemKey = z.object({ id: recordIdSchema, key: subResourceKeySchema(sub) });
  const withoutIds = ({ id: _id, key: _key, ...body }: Record<string, unknown>) => body;
  return {
    list: reader.input(subResourceListSchema(sub)).query(async ({ ctx, input }) => {
      const { id, page, page_size } = input as { id: number; page?: number; page_size?: number };
      return listAnswer(sub, await ctx.session.call<unknown>({ method: 'GET', path: at(id), query: sub.paged ? { page, page_size } : undefined, lang: ctx.lang }));
    }),
    ...(sub.add
      ? {
          add: writer()
            .input(inputFieldsSchema(sub.add).extend({ id: recordIdSchema }))
            .mutation(({ ctx, input }) => ctx.session.call<unknown>({ method: 'POST', path: at(input.id), body: withoutIds(input), lang: ctx.lang })),
        }
      : {}),
    ...(sub.set
      ? {
          set: writer()
            .input(inputFieldsSchema(sub.set).extend(itemKey.shape))
            .mutation(({ ctx, input }) => ctx.session.call<unknown>({ method: 'PUT', path: itemAt(input.id, input.key), body: withoutIds(input), lang: ctx.lang })),
        }
      : {}),
    ...(sub.setMany
      ? {
          // `PUT <path>/ {items}`: every item or none; the API answers the sub-resource's list as it now is.
          setMany: writer()
            .input(subResourceSetManySchema(sub).extend({ id: recordIdSchema }))
            .mutation(async ({ ctx, input }) =>
              listAnswer(sub, await ctx.session.call<unknown>({ method: 'PUT', path: at(input.id), body: { items: input.items }, lang: ctx.lang })),
            ),
        }
      : {}),
    ...(sub.remove
      ? {
          remove: writer()
            .input(itemKey)
            .mutation(({ ctx, input }) => ctx.session.call<unknown>({ method: 'DELETE', path: itemAt(input.id, input.key), lang: ctx.lang })),
        }
      : {}),
  };
}

/** Every procedure of one entity, derived from its definition, with its extras beside them. */
export function entityProcedures(def: EntityDef): Record<string, unknown> {
  const extras = (ENTITY_EXTRAS as Record<string, { extraProcedures: Record<string, unknown> }>)[def.name]?.extraProcedures ?? {};
  return {
    ...(def.readOnly ? createReadProcedures(def) : createCrudProcedures(def)),
    ...(def.calendarField ? { calendar: calendarProcedure(def) } : {}),
    ...Object.fromEntries(Object.entries(actionsOf(def)).map(([key, action]) => [key, actionProcedure(def, key, action)])),
    ...Object.fromEntries(Object.entries(def.subResources ?? {}).map(([key, sub]) => [key, subResourceProcedures(def, key, sub)])),
    ...extras,
  };
}

/** The routers of every entity in the registry, keyed by the camelCased name; spread into the app router. */
export const entityRouters = Object.fromEntries((ENTITIES as readonly EntityDef[]).map((def) => [routerKeyOf(def.name), entityProcedures(def)])) as EntityRouters;
