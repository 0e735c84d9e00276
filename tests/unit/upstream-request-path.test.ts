import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamClient, type UpstreamCall } from '../../server/upstream/client.ts';

/**
 * The path and query the API receives for a call (ADR 070): a path of plain segments is joined to the base path
 * without resolving a URL per call; whatever the path, the API sees what `new URL(path, base)` with the query in
 * its `searchParams` gave before.
 */
let server: Server;
let origin: string;
const seen: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ success: true, data: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The rule before ADR 070, as the expectation. */
function resolved(base: string, call: Pick<UpstreamCall, 'path' | 'query'>): string {
  const url = new URL(call.path.replace(/^\/+/, ''), new URL(base.endsWith('/') ? base : `${base}/`));
  for (const [key, value] of Object.entries(call.query ?? {})) if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  return url.pathname + url.search;
}

describe('upstream request paths', () => {
  const calls: Pick<UpstreamCall, 'path' | 'query'>[] = [
    { path: 'bicycles/', query: { page: 1, page_size: 25 } },
    { path: '/bicycles/12/', query: {} },
    { path: 'bicycles/', query: { search: 'röd cykel & 50% "rabatt"', ordering: '-id', active: true, empty: '', none: undefined, nil: null } },
    { path: 'account/login' },
    { path: 'users/7/roles/Shop%20Owner/' },
    { path: 'public/subscription-plans/a b/' },
    { path: '../healthz' },
    { path: 'services/./12/../13/' },
    { path: 'bicycles/?page=2', query: { page_size: 10 } },
    { path: '' },
  ];
  for (const base of ['/api/', '/api', '/']) {
    it(`sends what new URL resolved, below ${base}`, async () => {
      const client = createUpstreamClient({ baseUrl: `${origin}${base}`, retries: 0 });
      try {
        for (const call of calls) {
          seen.length = 0;
          await client.call({ method: 'GET', ...call });
          expect(seen).toEqual([resolved(`${origin}${base}`, call)]);
        }
      } finally {
        await client.close();
      }
    });
  }
});
