import { trpc } from '../trpc.ts';

/** Role names from the roles catalogue, so a role added on /roles can be filtered by, invited with and assigned. */
export function useRoleNames(): string[] {
  return trpc.users.roleNames.useQuery(undefined, { staleTime: 60_000 }).data ?? [];
}
