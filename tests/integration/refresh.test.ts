import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, query, setCookies, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, startUpstreamForTests, type Stack, type Upstream } from '../support/stack.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rotatedCount(upstream: Upstream, email: string): Promise<number> {
  const { rows } = await upstream.db.query<{ n: number }>(
    'select count(*)::int as n from refresh_tokens rt join users u on u.id = rt.user_id where lower(u.email) = lower($1) and rt.rotated_at is not null',
    [email],
  );
  return rows[0]!.n;
}

async function cookieHeader(client: ReturnType<typeof agent>): Promise<string> {
  return (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
    .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
    .join('; ');
}

let upstream: Upstream;
let stack: Stack;
beforeAll(async () => {
  upstream = await startUpstreamForTests(3);
  stack = await startStack({ upstream });
});
afterAll(async () => {
  await stack?.close();
  await upstream?.close();
});

describe('token refresh', () => {
  it('refreshes an expired access token once for N parallel calls, without the user noticing', async () => {
    const client = agent(stack);
    await signIn(client, 'buddy@example.com', DEMO_PASSWORD);
    await sleep(3100);
    const before = await rotatedCount(upstream, 'buddy@example.com');
    const refreshesBefore = stack.app.refreshStats.refreshes;
    // Same cookies on every call, as a browser sends them when the calls start together.
    const cookie = await cookieHeader(client);
    const results = await Promise.all(Array.from({ length: 12 }, () => agent(stack).get('/trpc/account.get').set('cookie', cookie)));
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.body.result.data.email).toBe('buddy@example.com');
    }
    expect(stack.app.refreshStats.refreshes - refreshesBefore).toBe(1);
    expect((await rotatedCount(upstream, 'buddy@example.com')) - before).toBe(1);
    // The new pair is handed back to the browser.
    expect(results.some((res) => setCookies(res).some((c) => c.startsWith('bo_rt=')))).toBe(true);
  });

  it('two server instances refreshing the same token at once both succeed (upstream grace window)', async () => {
    const second = await startStack({ upstream });
    try {
      const client = agent(stack);
      await signIn(client, 'admin@example.com', DEMO_PASSWORD);
      await sleep(3100);
      const cookie = await cookieHeader(client);
      const calls = [stack, second, stack, second].map((s) => agent(s).get('/trpc/account.get').set('cookie', cookie));
      const results = await Promise.all(calls);
      for (const res of results) expect(res.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('ends the session when the refresh token is rejected, clearing the cookies', async () => {
    const client = agent(stack);
    await signIn(client, 'shop@example.com', DEMO_PASSWORD);
    await upstream.db.query("update refresh_tokens set revoked_at = now() where user_id = (select id from users where email = 'shop@example.com')");
    await sleep(3100);
    const res = await query(client, 'account.get');
    expect(res.status).toBe(401);
    expect(res.body.error.data.appCode).toBe('session_expired');
    expect(setCookies(res).filter((c) => /^bo_(at|rt)=;/.test(c))).toHaveLength(2);
    expect((await client.get('/')).headers.location).toBe('/login?redirect=%2F');
  });
});
