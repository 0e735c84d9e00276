import { createTRPCReact, httpBatchLink } from '@trpc/react-query';
import type { AppRouter } from '../server/trpc/router.ts';
import { CSRF_HEADER } from '../shared/http-headers.ts';

export const trpc = createTRPCReact<AppRouter>();

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
