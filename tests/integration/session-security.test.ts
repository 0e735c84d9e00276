import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, mutate, query, setCookies, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, latestMail, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 12 through the back office (ADR 017, 018): a browser session ends at once when the account is
 * deactivated, its password reset or the session logged out elsewhere, and follows a role change at once;
 * failed sign-ins get one answer; the stranger who guesses is slowed, the real user is not.
 */

let stack: Stack;
let adminToken = '';
beforeAll(async () => {
  stack = await startStack();
  adminToken = (await api('account/login', { email: 'admin@example.com', password: DEMO_PASSWORD })).data.token;
});
afterAll(async () => stack?.close());

async function api(path: string, body?: unknown, token?: string, method = body === undefined ? 'GET' : 'POST') {
  const res = await fetch(stack.upstream.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as { success: boolean; data: any; error: any };
}

/** A staff member with a password, made through the API's own invitation flow. */
async function staffMember(email: string, roles: string[]): Promise<number> {
  const invited = await api('users/invite/', { email, roles, first_name: 'Sid', last_name: 'Session' }, adminToken);
  const token = (await latestMail(stack.upstream, email)).link.split('/').pop();
  expect((await api('account/accept-invite', { token, password: 'member-pass', password_confirm: 'member-pass' })).success).toBe(true);
  return invited.data.id;
}

async function cookieHeader(client: Agent): Promise<string> {
  const cookies = await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false });
  return cookies.map((c: { name: string; value: string }) => `${c.name}=${c.value}`).join('; ');
}

const cleared = (res: { headers: Record<string, unknown> }) => setCookies(res).filter((c) => /^bo_(at|rt)=;/.test(c)).length;

describe('M5: a browser session follows the account at once', () => {
  it('deactivation: the next call of the open session fails and its cookies are cleared', async () => {
    const id = await staffMember('m5.browser.off@example.com', ['Buddy']);
    const browser = agent(stack);
    await signIn(browser, 'm5.browser.off@example.com', 'member-pass');
    expect((await query(browser, 'account.get')).status).toBe(200);

    const admin = agent(stack);
    await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
    const user = (await query(admin, 'users.get', { id })).body.result.data;
    const { first_name, last_name, phone_number, country, language, profile_image, user_type, biography, social_security_number, state, area, city, post_code, version } = user;
    const off = await mutate(admin, 'users.update', {
      id,
      version,
      data: {
        first_name,
        last_name,
        phone_number,
        country,
        language,
        profile_image,
        user_type,
        biography,
        social_security_number,
        state,
        area,
        city,
        post_code,
        is_active: false,
      },
    });
    expect(off.status).toBe(200);

    const next = await query(browser, 'account.get');
    expect(next.status).toBe(401);
    expect(next.body.error.data.appCode).toBe('session_expired');
    expect(cleared(next)).toBe(2);
    expect((await browser.get('/profile')).headers.location).toBe('/login?redirect=%2Fprofile');
  });

  it('a server-rendered page of a session ended upstream redirects to /login and clears the cookies', async () => {
    await staffMember('m5.browser.page@example.com', ['Buddy']);
    const browser = agent(stack);
    await signIn(browser, 'm5.browser.page@example.com', 'member-pass');
    expect((await browser.get('/profile')).status).toBe(200);
    const cookie = await cookieHeader(browser);
    await mutate(browser, 'auth.logout');
    // The same session from a copy of its cookies (another tab that missed the logout, a stolen cookie).
    const page = await request(stack.baseUrl).get('/profile').set('cookie', cookie);
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/login?redirect=%2Fprofile');
    expect(cleared(page)).toBe(2);
  });

  it('logout elsewhere: a copy of the session stops working at once, not 15 minutes later', async () => {
    const browser = agent(stack);
    await signIn(browser, 'buddy@example.com', DEMO_PASSWORD);
    const cookie = await cookieHeader(browser);
    expect((await request(stack.baseUrl).get('/trpc/account.get').set('cookie', cookie)).status).toBe(200);
    expect((await mutate(browser, 'auth.logout')).status).toBe(200);
    const copy = await request(stack.baseUrl).get('/trpc/account.get').set('cookie', cookie);
    expect(copy.status).toBe(401);
    expect(copy.body.error.data.appCode).toBe('session_expired');
  });

  it('password reset: every open session of the user ends at once', async () => {
    await staffMember('m5.browser.reset@example.com', ['Buddy']);
    const browser = agent(stack);
    await signIn(browser, 'm5.browser.reset@example.com', 'member-pass');
    expect((await query(browser, 'account.get')).status).toBe(200);
    expect((await mutate(agent(stack), 'auth.forgotPassword', { email: 'm5.browser.reset@example.com' })).status).toBe(200);
    const token = (await latestMail(stack.upstream, 'm5.browser.reset@example.com')).link.split('/').pop();
    expect((await mutate(agent(stack), 'auth.resetPassword', { token, password: 'fresh-pass', password_confirm: 'fresh-pass' })).status).toBe(200);
    const next = await query(browser, 'account.get');
    expect(next.status).toBe(401);
    expect(next.body.error.data.appCode).toBe('session_expired');
  });

  it('role removal: the open session keeps going with the new roles at once, pages and procedures alike', async () => {
    const id = await staffMember('m5.browser.roles@example.com', ['Buddy', 'Shop']);
    const browser = agent(stack);
    await signIn(browser, 'm5.browser.roles@example.com', 'member-pass');
    expect((await query(browser, 'users.list', {})).status).toBe(200);
    expect((await browser.get('/users')).status).toBe(200);

    const admin = agent(stack);
    await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
    expect((await mutate(admin, 'users.roles.remove', { id, key: 'Shop' })).status).toBe(200);

    const list = await query(browser, 'users.list', {});
    expect(list.status).toBe(403);
    expect(list.body.error.data.appCode).toBe('forbidden');
    expect((await query(browser, 'session.me')).body.result.data.roles).toEqual(['Buddy']);
    expect((await browser.get('/users')).headers.location).toBe('/forbidden');
    expect((await browser.get('/')).status).toBe(200);
  });

  it('role removal seen first by a page load: the page is guarded with the new roles', async () => {
    const id = await staffMember('m5.browser.page.roles@example.com', ['Buddy', 'Shop']);
    const browser = agent(stack);
    await signIn(browser, 'm5.browser.page.roles@example.com', 'member-pass');
    expect((await browser.get('/users')).status).toBe(200);
    await api(`users/${id}/roles/Shop/`, undefined, adminToken, 'DELETE');
    expect((await browser.get('/users')).headers.location).toBe('/forbidden');
  });
});

describe('M4: one answer from the back office', () => {
  it('tRPC: an unknown address and a wrong password get byte-identical answers', async () => {
    const unknown = await mutate(agent(stack), 'auth.login', { email: 'nobody.m4@example.com', password: 'nope-nope' });
    const wrong = await mutate(agent(stack), 'auth.login', { email: 'admin@example.com', password: 'nope-nope' });
    expect(unknown.status).toBe(400);
    expect(wrong.status).toBe(unknown.status);
    expect(wrong.text).toBe(unknown.text);
    expect(unknown.body.error.message).toBe('Invalid credentials.');
    expect(unknown.body.error.data.appCode).toBe('wrong_password');
  });

  it('no-JS form: the same redirect for both', async () => {
    const post = (email: string) => agent(stack).post('/login').type('form').send({ email, password: 'nope-nope', redirect: '/profile' });
    const [unknown, wrong] = [await post('nobody.m4.form@example.com'), await post('admin@example.com')];
    expect(unknown.status).toBe(303);
    expect(wrong.headers.location).toBe(unknown.headers.location);
    expect(unknown.headers.location).toBe('/login?error=wrong_password&redirect=%2Fprofile');
  });
});

describe('M2: the back office forwards who is signing in, so only the guesser is slowed', () => {
  it('a stranger guessing from one address cannot stop the real user signing in from another', async () => {
    const proxied = await startStack({ upstream: stack.upstream, app: { trustProxy: 1 } });
    try {
      const from = (ip: string, password: string) => mutate(agent(proxied), 'auth.login', { email: 'shop@example.com', password }).set('x-forwarded-for', ip);
      const stranger: number[] = [];
      // The stranger writes a new address into X-Forwarded-For each time; the proxy in front appends the
      // real one, and only that one is believed (TRUST_PROXY=true is one proxy, not every hop).
      for (let i = 0; i < 8; i++) stranger.push((await from(`10.${i}.0.1, 203.0.113.7`, `guess-${i}`)).status);
      // The API slows this address after five failures (the back office's own limit is ten).
      expect(stranger).toEqual([400, 400, 400, 400, 400, 429, 429, 429]);
      const slowed = await from('203.0.113.7', DEMO_PASSWORD);
      expect(slowed.status).toBe(429);
      expect(slowed.body.error.data.appCode).toBe('too_many_attempts');
      expect((await from('198.51.100.200', DEMO_PASSWORD)).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('every call made for a signed-in browser carries its address and request id: the API records both in the change history (ADR 038)', async () => {
    const proxied = await startStack({ upstream: stack.upstream, app: { trustProxy: 1 } });
    try {
      const admin = agent(proxied);
      expect((await mutate(admin, 'auth.login', { email: 'admin@example.com', password: DEMO_PASSWORD }).set('x-forwarded-for', '198.51.100.77')).status).toBe(200);
      const created = await mutate(admin, 'assets.create', { name: 'Forwarded van', asset_type: 'van', status: 1 })
        .set('x-forwarded-for', '198.51.100.78')
        .set('x-request-id', 'proxy-request-0078');
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.result.data.id as number;
      const { rows } = await stack.upstream.db.query<{ address: string; request_id: string; action: string }>(
        "select address, request_id, action from audit_log where entity = 'assets' and record_id = $1",
        [id],
      );
      expect(rows).toEqual([{ address: '198.51.100.78', request_id: 'proxy-request-0078', action: 'create' }]);
      const { rows: signIns } = await stack.upstream.db.query<{ address: string }>("select address from audit_log where action = 'sign_in' order by id desc limit 1");
      expect(signIns[0]!.address).toBe('198.51.100.77');
      // A W3C traceparent from a proxy or tracing agent in front: its trace id names the request in both services.
      const traced = await mutate(admin, 'assets.create', { name: 'Traced van', asset_type: 'van', status: 1 }).set(
        'traceparent',
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      );
      expect(traced.status).toBe(200);
      const { rows: tracedRows } = await stack.upstream.db.query<{ request_id: string }>("select request_id from audit_log where entity = 'assets' and record_id = $1", [
        traced.body.result.data.id,
      ]);
      expect(tracedRows).toEqual([{ request_id: '0af7651916cd43dd8448eb211c80319c' }]);
    } finally {
      await proxied.close();
    }
  });

  it('without a trusted proxy in front, a browser’s X-Request-Id or traceparent is not the history’s request id (ADR 058)', async () => {
    const admin = agent(stack);
    expect((await mutate(admin, 'auth.login', { email: 'admin@example.com', password: DEMO_PASSWORD })).status).toBe(200);
    const created = await mutate(admin, 'assets.create', { name: 'Unproxied van', asset_type: 'van', status: 1 })
      .set('x-request-id', 'browser-picked-0001')
      .set('traceparent', '00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { rows } = await stack.upstream.db.query<{ request_id: string }>("select request_id from audit_log where entity = 'assets' and record_id = $1", [
      created.body.result.data.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.request_id).toMatch(/^[0-9a-f]{32}$/);
    expect(rows[0]!.request_id).not.toBe('1af7651916cd43dd8448eb211c80319c');
  });

  it("the back office's own limit counts per address and account: failures elsewhere never block the account", async () => {
    const limited = await startStack({ upstream: stack.upstream, app: { trustProxy: 1, loginLimits: { perAccountPer15Minutes: 2, perIpPerMinute: 100 } } });
    try {
      const from = (ip: string, password: string) => mutate(agent(limited), 'auth.login', { email: 'buddy@example.com', password }).set('x-forwarded-for', ip);
      expect([(await from('203.0.113.8', 'x1x')).status, (await from('203.0.113.8', 'x2x')).status, (await from('203.0.113.8', 'x3x')).status]).toEqual([400, 400, 429]);
      expect((await from('198.51.100.201', DEMO_PASSWORD)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
