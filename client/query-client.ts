import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { appCodeOf } from './errors.ts';

function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * §8: when the session cannot be refreshed the server clears it and answers `session_expired`;
 * the browser then goes to / and the server's guard sends it on to /login.
 */
export function createQueryClient(onSessionExpired?: () => void): QueryClient {
  const handle = (error: unknown) => {
    if (appCodeOf(error) === 'session_expired') onSessionExpired?.();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: handle }),
    mutationCache: new MutationCache({ onError: handle }),
    defaultOptions: {
      queries: {
        // Data rendered on the server is fresh on arrival: hydration must not refetch it.
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        // A query that failed (on the server or here) shows its error with a retry button instead of
        // silently refetching on every mount; this also keeps hydration identical to the server's HTML.
        retryOnMount: false,
        retry: (count, error) => !isClientError(error) && count < 2,
      },
      mutations: { retry: false },
    },
  });
}
