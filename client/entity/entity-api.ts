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

export function entityApi(def: Pick<EntityDef, 'name'>): CrudApi {
  const api = (trpc as unknown as Record<string, CrudApi>)[routerKey(def)];
  if (!api) throw new Error(`no tRPC router for entity ${def.name}`);
  return api;
}

interface CrudUtils {
  list: { invalidate(): Promise<void> };
  get: { invalidate(input?: { id: number }): Promise<void>; setData(input: { id: number }, data: EntityRecord): void; fetch(input: { id: number }): Promise<EntityRecord> };
  options: { invalidate(): Promise<void> };
}

export function useEntityUtils(def: Pick<EntityDef, 'name'>): CrudUtils {
  const utils = trpc.useUtils() as unknown as Record<string, CrudUtils>;
  return utils[routerKey(def)]!;
}
