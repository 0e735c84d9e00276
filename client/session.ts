import { createContext, createElement, useContext, useMemo, type ReactNode } from 'react';
import type { Role } from '../shared/roles.ts';
import { trpc } from './trpc.ts';

export function fullName(user: { first_name?: string | null; last_name?: string | null; email?: string } | null | undefined): string {
  if (!user) return '';
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return name || user.email || '';
}

type Session = ReturnType<typeof useSessionQuery>;

/** The signed-in user as the shell sees it; prefetched by the server on every page. */
function useSessionQuery() {
  const query = trpc.session.me.useQuery(undefined, { staleTime: 60_000 });
  const { data, isLoading, error, refetch } = query;
  return useMemo(
    () => ({
      isLoading,
      error,
      retry: () => void refetch(),
      authenticated: data?.authenticated ?? false,
      roles: (data?.roles ?? []) as Role[],
      user: data?.user ?? null,
    }),
    [data, isLoading, error, refetch],
  );
}

const SessionContext = createContext<Session | null>(null);

/**
 * Observes the session query once for the whole app: the shell, the route guard, the page and each
 * access check read it from here. An observer per reader cost a visible part of a list page's server
 * render (several per page, each building its query key and result), for the same answer.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  return createElement(SessionContext.Provider, { value: useSessionQuery() }, children);
}

/** The signed-in user as the shell sees it (from `SessionProvider`, which `App` puts around every page). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
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
