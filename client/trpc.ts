import { createTRPCReact, httpBatchLink } from '@trpc/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../server/trpc/router.ts';

export const trpc = createTRPCReact<AppRouter>();
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** The header every state-changing call carries; the server refuses mutations without it (CSRF). */
export const CSRF_HEADER = 'x-backoffice-csrf';

export function createTrpcClient(baseUrl = '') {
  return trpc.createClient({
    links: [
      httpBatchLink({
        url: `${baseUrl}/trpc`,
        maxItems: 10,
        headers: () => ({ [CSRF_HEADER]: '1' }),
      }),
    ],
  });
}
