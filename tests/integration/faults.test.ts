import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { agent, mutate, query, setCookies, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, startUpstreamForTests, type Stack, type Upstream } from '../support/stack.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let upstream: Upstream;
let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
let stack: Stack;

beforeAll(async () => {
  upstream = await startUpstreamForTests(2);
  proxy = await startFaultProxy(upstream.url);
  stack = await startStack({ upstream, app: { upstreamUrl: proxy.url, upstreamTimeouts: { connectMs: 500, headersMs: 400, bodyMs: 400 } } });
});
afterEach(() => proxy.reset());
afterAll(async () => {
  await stack?.close();
  await proxy?.close();
  await upstream?.close();
});

describe('upstream faults', () => {
  it('an upstream slower than the timeout gives a bounded, clear error', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    proxy.setRule((req) => (req.url?.startsWith('/api/account/') ? { kind: 'delay', ms: 1500 } : { kind: 'pass' }));
    const started = Date.now();
    const res = await query(client, 'account.get');
    expect(Date.now() - started).toBeLessThan(1500 * 3);
    expect(res.status).toBe(504);
    expect(res.body.error.data).toMatchObject({ appCode: 'upstream_timeout', retryable: true });
  });

  it('retries GETs a bounded number of times on 5xx and resets, never POSTs', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    proxy.reset();
    proxy.setRule((req) => (req.url?.startsWith('/api/companies') ? { kind: 'status', status: 503 } : { kind: 'pass' }));
    const list = await query(client, 'companies.list', {});
    expect(list.status).toBe(503);
    expect(proxy.hits.filter((h) => h.path === '/api/companies/').length).toBe(3);

    proxy.reset();
    proxy.setRule((req) => (req.url?.startsWith('/api/companies') ? { kind: 'reset' } : { kind: 'pass' }));
    expect((await query(client, 'companies.get', { id: 1 })).status).toBe(503);
    expect(proxy.hits.filter((h) => h.path === '/api/companies/1/').length).toBe(3);

    proxy.reset();
    proxy.setRule((req) => (req.url?.startsWith('/api/companies') ? { kind: 'status', status: 503 } : { kind: 'pass' }));
    const create = await mutate(client, 'companies.create', { name: 'Once Only AB' });
    expect(create.status).toBe(503);
    expect(proxy.hits.filter((h) => h.method === 'POST' && h.path === '/api/companies/').length).toBe(1);
  });

  it('a refresh that times out or fails with 5xx keeps the session and says to try again', async () => {
    const client = agent(stack);
    await signIn(client, 'buddy@example.com', DEMO_PASSWORD);
    await sleep(2100);
    proxy.setRule((req) => (req.url?.startsWith('/api/account/refresh-token') ? { kind: 'status', status: 502 } : { kind: 'pass' }));
    const failed = await query(client, 'account.get');
    expect(failed.status).toBe(503);
    expect(failed.body.error.data.retryable).toBe(true);
    expect(setCookies(failed).filter((c) => /^bo_(at|rt)=;/.test(c))).toEqual([]);
    proxy.setRule((req) => (req.url?.startsWith('/api/account/refresh-token') ? { kind: 'delay', ms: 1500 } : { kind: 'pass' }));
    expect((await query(client, 'account.get')).status).toBe(503);
    proxy.reset();
    await sleep(1200); // let the delayed refresh finish upstream; its grace window still covers us
    const recovered = await query(client, 'account.get');
    expect(recovered.status).toBe(200);
  });

  it('when the upstream is down, /readyz says so and pages render an error state, not a crash', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    proxy.setRule(() => ({ kind: 'reset' }));
    const ready = await agent(stack).get('/readyz');
    expect(ready.status).toBe(503);
    const page = await client.get('/profile');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="error-state"');
    expect(page.text).toContain('The service cannot be reached right now. Please try again.');
    expect((await agent(stack).get('/login')).status).toBe(200);
    proxy.reset();
    expect((await agent(stack).get('/readyz')).status).toBe(200);
  });
});

describe('nothing lost', () => {
  it('a mutation that meets a 401 runs exactly once after the refresh', async () => {
    const client = agent(stack);
    await signIn(client, 'shop@example.com', DEMO_PASSWORD);
    const before = (await upstream.db.query<{ version: number }>("select version from users where email = 'shop@example.com'")).rows[0]!.version;
    await sleep(2100);
    // Force the 401 path (not the early refresh): the back office sees a token it believes valid.
    const res = await mutate(client, 'account.update', { first_name: 'Sam', last_name: 'Shopkeeper' });
    expect(res.status).toBe(200);
    const after = (await upstream.db.query<{ version: number; last_name: string }>("select version, last_name from users where email = 'shop@example.com'")).rows[0]!;
    expect(after).toEqual({ version: before + 1, last_name: 'Shopkeeper' });
    expect(proxy.hits.filter((h) => h.method === 'PUT' && h.path === '/api/account/').length).toBe(1);
  });
});
