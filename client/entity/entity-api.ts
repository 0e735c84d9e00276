import { routerKey, type EntityDef, type EntityRecord, type ListParams, type Paged } from '../../shared/entity/define.ts';
import { trpc } from '../trpc.ts';

// The naming rule lives with the definitions (the server's routers derive the same keys); kept importable from here.
export { routerKey };

interface QueryHook<I, O> {
  useQuery(
    input: I,
    opts?: { enabled?: boolean; placeholderData?: unknown },
  ): { data: O | undefined; error: unknown; isLoading: boolean; isFetching: boolean; refetch(): Promise<unknown> };
}
interface MutationHook<I, O> {
  useMutation(): { mutateAsync(input: I): Promise<O>; isPending: boolean };
}

/** The generic screens see every entity's CRUD router through this one shape. */
export interface CrudApi {
  list: QueryHook<ListParams, Paged<EntityRecord>>;
  get: QueryHook<{ id: number }, EntityRecord>;
  options: QueryHook<{ search?: string; include?: number; role?: string }, { id: number; label: string }[]>;
  create: MutationHook<Record<string, unknown>, EntityRecord>;
  update: MutationHook<{ id: number; version: number; data: Record<string, unknown> }, EntityRecord>;
  delete: MutationHook<{ id: number }, { id: number }>;
}

/**
 * An entity's part of a tRPC proxy (the client, its utils, the SSR prefetch helpers), by its router key: the derived
 * router's shape for every entity (`entityProcedures` in `server/trpc/entity-router.ts`, typed per entity as
 * `EntityRouters`), read where the generic screens know the entity only by its definition. The one place the
 * screens name a router part by a key computed at run time.
 */
export function routerPart<T>(proxy: object, def: Pick<EntityDef, 'name'>): T | undefined {
  return Reflect.get(proxy, routerKey(def)) as T | undefined;
}

export function entityApi(def: Pick<EntityDef, 'name'>): CrudApi {
  const api = routerPart<CrudApi>(trpc, def);
  if (!api) throw new Error(`no tRPC router for entity ${def.name}`);
  return api;
}

interface CrudUtils {
  list: { invalidate(): Promise<void> };
  get: { invalidate(input?: { id: number }): Promise<void>; setData(input: { id: number }, data: EntityRecord): void; fetch(input: { id: number }): Promise<EntityRecord> };
  options: { invalidate(): Promise<void> };
}

export function useEntityUtils(def: Pick<EntityDef, 'name'>): CrudUtils {
  return routerPart<CrudUtils>(trpc.useUtils(), def)!;
}
