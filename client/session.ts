import type { Role } from '../shared/roles.ts';
import { trpc } from './trpc.ts';

export function fullName(user: { first_name?: string | null; last_name?: string | null; email?: string } | null | undefined): string {
  if (!user) return '';
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return name || user.email || '';
}

/** The signed-in user as the shell sees it; prefetched by the server on every page. */
export function useSession() {
  const query = trpc.session.me.useQuery(undefined, { staleTime: 60_000 });
  const data = query.data;
  return {
    isLoading: query.isLoading,
    error: query.error,
    retry: () => void query.refetch(),
    authenticated: data?.authenticated ?? false,
    roles: (data?.roles ?? []) as Role[],
    user: data?.user ?? null,
  };
}

/**
 * Reloads who is signed in (after login or a profile change). A query hydrated from the server has no
 * query function until a component observes it, so `invalidate` alone cannot refetch it: mark it
 * stale, then fetch through tRPC, which supplies the function.
 */
export function useReloadSession() {
  const utils = trpc.useUtils();
  return async () => {
    await utils.session.me.invalidate(undefined, { refetchType: 'none' });
    await utils.session.me.fetch();
  };
}
