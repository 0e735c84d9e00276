import fc from 'fast-check';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeRedirectPath } from '../../shared/route-table.ts';
import { agent, mutate, query, setCookies, signIn } from '../support/http.ts';
import { pathTemplate, OTHER_UPSTREAM_PATH } from '../../server/metrics.ts';
import { COOKIE_SECRET, DEMO_PASSWORD, openApiDocument, startStack, type Stack } from '../support/stack.ts';

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

const METRICS_TOKEN = 'metrics-token-for-the-tests-0001';
const metricsOf = (base: string) => request(base).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ app: { logger: pino({ level: 'trace' }, logStream), metricsToken: METRICS_TOKEN } });
});
afterAll(async () => stack?.close());

describe('CSRF and request shape', () => {
  it('refuses every cross-site or malformed mutation', async () => {
    const body = JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD });
    const base = () => request(stack.baseUrl).post('/trpc/auth.login');
    const cases = [
      base().set('content-type', 'application/json').send(body), // no custom header
      base().set('x-backoffice-csrf', '1').set('content-type', 'text/plain').send(body),
      base().set('x-backoffice-csrf', '1').type('form').send({ email: 'a' }),
      base().set('x-backoffice-csrf', '1').field('email', 'a'), // multipart
      base().set('x-backoffice-csrf', '1').set('content-type', 'application/json').set('sec-fetch-site', 'cross-site').send(body),
      base().set('x-backoffice-csrf', '1').set('content-type', 'application/json').set('origin', 'https://evil.example').send(body),
      base().set('x-backoffice-csrf', '1').set('content-type', 'application/json').set('origin', 'null').send(body),
    ];
    for (const res of await Promise.all(cases)) expect(res.status).toBe(403);
    const asGet = await request(stack.baseUrl).get(`/trpc/auth.logout`);
    expect(asGet.status).toBe(405);
  });

  it('caps the size of a tRPC batch', async () => {
    const paths = Array.from({ length: 11 }, () => 'session.me').join(',');
    const res = await request(stack.baseUrl).get(`/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`);
    expect(res.status).toBe(400);
  });

  it('redirects after login only to same-origin paths (1000 generated targets)', async () => {
    const evil = fc.oneof(
      fc.constantFrom(
        '//x.example',
        '/\\x.example',
        '%2F%2Fx.example',
        'javascript:alert(1)',
        'http:x.example',
        '/\t/x.example',
        '\\\\x.example',
        'https://x.example',
        '/%5C%5Cx.example',
      ),
      fc.string({ maxLength: 40 }),
      fc.webUrl(),
      fc.string({ maxLength: 20 }).map((s) => `/${s}`),
    );
    fc.assert(
      fc.property(evil, (target) => expectSameOrigin(target)),
      { numRuns: 1000 },
    );
    // And end to end through the no-JavaScript form.
    for (const target of ['//evil.example', '/\\evil.example', '%2F%2Fevil.example', 'javascript:alert(1)', 'http:evil.example', '/.//evil.example/x']) {
      const res = await request(stack.baseUrl).post('/login').type('form').send({ email: 'admin@example.com', password: DEMO_PASSWORD, redirect: target });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.location as string, 'https://backoffice.example/login').origin).toBe('https://backoffice.example');
    }
  });

  it('keeps path tricks on our origin once normalised: dot segments, encodings, whitespace, unicode slashes (issue 12 M1)', () => {
    // Pieces a browser's URL parser treats specially, joined in every order: `/.//x`, `/%2e%2e//x`, `/a/..//x`…
    const piece = fc.constantFrom(
      '/',
      '//',
      '.',
      '..',
      '%2e',
      '%2E',
      '%2e%2e',
      '.%2e',
      '%2f',
      '%2F',
      '%252f',
      '%5c',
      '%5C',
      '\\',
      '\t',
      '\n',
      '\r',
      ' ',
      '%09',
      '%0a',
      '%00',
      '\u2215',
      '\u2044',
      '\uff0f',
      '\uff3c',
      '\u3002',
      '@',
      ':',
      '?',
      '#',
      '&',
      '=',
      'evil.example',
      'x',
      'users',
      'javascript:',
      'http:',
      'https:',
      'data:',
    );
    const tricky = fc.tuple(fc.constantFrom('/', '//', '/.', '/./', '/.//', '\\', ''), fc.array(piece, { maxLength: 8 })).map(([head, rest]) => head + rest.join(''));
    fc.assert(
      fc.property(tricky, (target) => expectSameOrigin(target)),
      { numRuns: 3000 },
    );
  });

  it('sends a signed-in user at /login?redirect=/.//evil.example/x to our own origin (the reported case)', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    for (const target of ['/.//evil.example/x', '/%2e//evil.example/x', '/a/..//evil.example/x', '/%2e%2e//evil.example/x']) {
      const res = await client.get(`/login?redirect=${encodeURIComponent(target)}`).redirects(0);
      expect(res.status).toBe(302);
      const location = res.headers.location as string;
      expect(new URL(location, `${stack.baseUrl}/login`).origin).toBe(new URL(stack.baseUrl).origin);
      expect(location.startsWith('//')).toBe(false);
      // Raw, unencoded, exactly as reported.
      const raw = await client.get(`/login?redirect=${target}`).redirects(0);
      expect(new URL(raw.headers.location as string, `${stack.baseUrl}/login`).origin).toBe(new URL(stack.baseUrl).origin);
    }
  });
});

/** What `safeRedirectPath` lets through resolves to our origin however a browser reads it, and is already normal. */
function expectSameOrigin(target: string) {
  const safe = safeRedirectPath(target);
  expect(safe.startsWith('/') && !safe.startsWith('//') && !safe.startsWith('/\\')).toBe(true);
  // eslint-disable-next-line no-control-regex -- the redirect must carry no control character
  expect(safe).not.toMatch(/[\u0000-\u001f\\]/);
  for (const page of ['https://backoffice.example/login', 'https://backoffice.example/a/b/c?x=1#y']) {
    const resolved = new URL(safe, page);
    expect(resolved.origin).toBe('https://backoffice.example');
    // A fixed point: the browser's own normalisation changes nothing, so no second reading differs.
    expect(resolved.pathname + resolved.search + resolved.hash).toBe(safe);
  }
  expect(safeRedirectPath(safe)).toBe(safe);
}

describe('cookies', () => {
  it('sets __Host- cookies with fixed attributes in production mode', async () => {
    const secure = await startStack({ upstream: stack.upstream, app: { secureCookies: true } });
    try {
      const res = await mutate(agent(secure), 'auth.login', { email: 'admin@example.com', password: DEMO_PASSWORD });
      const cookies = setCookies(res).map((c) => c.replace(/^(__Host-bo_\w+)=[^;]+;/, '$1=<sealed>;'));
      expect(cookies).toEqual([
        '__Host-bo_at=<sealed>; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax',
        '__Host-bo_rt=<sealed>; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax',
        // The profile's language (ADR 023): not a secret, read by the page's script, so not HttpOnly.
        'lang=en; Max-Age=31536000; Path=/; Secure; SameSite=Lax',
      ]);
      for (const cookie of setCookies(res)) expect(cookie.length).toBeLessThan(4096);
      const page = await agent(secure).get('/login');
      expect(page.headers['strict-transport-security']).toMatch(/max-age=31536000/);
    } finally {
      await secure.close();
    }
  });

  it('re-issues cookies sealed with a retired key', async () => {
    const client = agent(stack);
    await signIn(client, 'buddy@example.com', DEMO_PASSWORD);
    const rotated = await startStack({ upstream: stack.upstream, app: { cookieSecrets: ['a-brand-new-cookie-secret-of-enough-length', COOKIE_SECRET] } });
    try {
      const cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
        .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
        .join('; ');
      const res = await request(rotated.baseUrl).get('/trpc/account.get').set('cookie', cookie);
      expect(res.status).toBe(200);
      expect(setCookies(res).filter((c) => /^bo_(at|rt)=v1\./.test(c))).toHaveLength(2);
    } finally {
      await rotated.close();
    }
  });
});

describe('output', () => {
  it('stored script payloads never become executable in the server-rendered page', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const payload = `</script><script>alert(1)</script><!-- \u2028\u2029 <img src=x onerror=alert(2)>`;
    const created = await mutate(client, 'companies.create', { name: `XSS ${payload}`.slice(0, 120), address: payload });
    expect(created.status).toBe(200);
    const page = await client.get('/companies?search=XSS');
    expect(page.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(page.headers['content-security-policy'] as string)![1]!;
    const scripts = [...page.text.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect(page.text).not.toContain('<img src=x');
    const state = /<script id="__BO_STATE__"[^>]*>([\s\S]*?)<\/script>/.exec(page.text)![1]!;
    expect(state).not.toMatch(/[<>\u2028\u2029]/);
    expect(JSON.stringify(JSON.parse(state))).toContain('alert(1)');
    expect(page.text).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
    await mutate(client, 'companies.delete', { id: created.body.result.data.id });
  });

  it('never puts a token in rendered HTML or dehydrated state', async () => {
    const client = agent(stack);
    const login = await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const pair = await (
      await fetch(stack.upstream.url + 'account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
      })
    ).json();
    expect(JSON.stringify(login.body)).not.toMatch(/eyJ/);
    for (const path of ['/', '/profile', '/companies']) {
      const html = (await client.get(path)).text;
      expect(html).not.toMatch(/eyJ[\w-]{10,}/);
      expect(html).not.toContain(pair.data.refresh_token.slice(0, 20));
    }
  });

  it('keeps tokens, cookies, passwords and signatures out of the logs', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    await query(client, 'account.get');
    await mutate(client, 'upload.sign', { kind: 'bicycle', contentType: 'image/png' });
    await request(stack.baseUrl).post('/login').type('form').send({ email: 'admin@example.com', password: DEMO_PASSWORD });
    expect((await mutate(client, 'upload.reportFailure', { kind: 'bicycle', status: 415, reason: 'upload PUT refused' })).status).toBe(200);
    await mutate(client, 'auth.logout');
    const logs = logLines.join('');
    expect(logs).toContain('upload failed in the browser');
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toMatch(/eyJ[\w-]{10,}/);
    expect(logs).not.toContain(DEMO_PASSWORD);
    expect(logs).not.toMatch(/bo_(at|rt)=v1\./);
    expect(logs).not.toMatch(/sig=/);
  });
});

describe('security headers', () => {
  // What helmet sets with the options of server/app.ts (ADR 026: computed once, not per request).
  const EXPECTED = {
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'SAMEORIGIN',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  };

  it('sends the same set on pages, public pages, tRPC answers, assets, redirects and errors, with HSTS over HTTPS only', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const page = await client.get('/users');
    const asset = /\/static\/[^"]+\.js/.exec(page.text)![0];
    const answers = {
      page,
      publicPage: await request(stack.baseUrl).get('/login'),
      trpc: await query(client, 'account.get'),
      refused: await query(agent(stack), 'account.get'),
      asset: await request(stack.baseUrl).get(asset),
      redirect: await request(stack.baseUrl).get('/users'),
      notFound: await client.get('/static/nothing-here.js'),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBeLessThan(500);
      for (const [header, value] of Object.entries(EXPECTED)) expect(res.headers[header], `${name}: ${header}`).toBe(value);
      expect(res.headers['x-powered-by'], name).toBeUndefined();
      expect(res.headers['strict-transport-security'], name).toBeUndefined();
    }
    expect(answers.redirect.status).toBe(302);
    expect(answers.notFound.status).toBe(404);
    // Pages carry their own CSP with a nonce; nothing else needs one.
    expect(page.headers['content-security-policy']).toMatch(/script-src[^;]*'nonce-/);
  });
});

describe('caching of personal data (issue 12, no-store)', () => {
  it('marks tRPC answers, exports, pages and the API’s answers no-store, and uploaded files private', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const answers = {
      query: await query(client, 'account.get'),
      list: await query(client, 'users.list', {}),
      mutation: await mutate(client, 'upload.sign', { kind: 'bicycle', contentType: 'image/png' }),
      refused: await query(agent(stack), 'account.get'),
      export: await client.get('/export/bicycles.csv').set('x-backoffice-csrf', '1'),
      page: await client.get('/users'),
    };
    for (const [name, res] of Object.entries(answers)) expect(res.headers['cache-control'], name).toBe('no-store');

    const token = (
      await (
        await fetch(stack.upstream.url + 'account/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
        })
      ).json()
    ).data.token;
    for (const path of ['account/', 'users/', 'subscriptions/', 'subscriptions/1/refunds/', 'users/999999/']) {
      const res = await fetch(stack.upstream.url + path, { headers: { authorization: `Bearer ${token}` } });
      expect(res.headers.get('cache-control'), path).toBe('no-store');
    }

    const signed = answers.mutation.body.result.data as { url: string; accessUrl: string };
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16, 1)]);
    expect((await fetch(signed.url, { method: 'PUT', body: new Uint8Array(png), headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } })).status).toBe(200);
    const file = await fetch(signed.accessUrl);
    expect(file.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
  });
});

describe('operations endpoints', () => {
  it('serves health, readiness and Prometheus metrics', async () => {
    expect((await request(stack.baseUrl).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(stack.baseUrl).get('/readyz')).status).toBe(200);
    const metrics = await metricsOf(stack.baseUrl);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['cache-control']).toBe('no-store');
    expect(metrics.text).toContain('backoffice_http_request_duration_seconds_bucket');
    expect(metrics.text).toContain('backoffice_upstream_request_duration_seconds_bucket{');
    expect(metrics.text).toMatch(/backoffice_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
  });

  it('labels every route the API serves by its own template, so no call of ours is lumped under `other` (issue 12 M3)', async () => {
    const doc = await openApiDocument<{ paths: Record<string, unknown> }>(stack.upstream);
    const paths = Object.keys(doc.paths).filter((path) => path.startsWith('/api/'));
    expect(paths.length).toBeGreaterThan(50);
    const unlabelled = paths.filter((path) => pathTemplate(path.slice('/api/'.length).replace(/\{[^}]+\}/g, '7')) === OTHER_UPSTREAM_PATH);
    expect(unlabelled).toEqual([]);
  });

  it('protects /metrics: a token when configured, open only in development, otherwise not there (issue 12 M3)', async () => {
    expect((await request(stack.baseUrl).get('/metrics')).status).toBe(401);
    expect((await request(stack.baseUrl).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}x`)).status).toBe(401);
    const unconfigured = await startStack({ upstream: stack.upstream });
    const development = await startStack({ upstream: stack.upstream, app: { metricsOpen: true } });
    try {
      const hidden = await request(unconfigured.baseUrl).get('/metrics');
      expect(hidden.status).toBe(404);
      expect(hidden.text).not.toContain('backoffice_');
      expect(hidden.text).not.toContain('process_cpu');
      const open = await request(development.baseUrl).get('/metrics');
      expect(open.status).toBe(200);
      expect(open.text).toContain('backoffice_http_requests_total');
    } finally {
      await unconfigured.close();
      await development.close();
    }
  });

  it('labels metrics with known routes only, so made-up paths cannot grow them', async () => {
    for (let i = 0; i < 3; i++) await request(stack.baseUrl).get(`/trpc/made-up-${i}`);
    await request(stack.baseUrl).get('/trpc/session.me,made-up-batch?batch=1&input={}');
    await request(stack.baseUrl).get('/trpc/session.me');
    const metrics = (await metricsOf(stack.baseUrl)).text;
    expect(metrics).not.toContain('made-up');
    expect(metrics).toContain('route="/trpc/(unknown)"');
    expect(metrics).toContain('route="/trpc/(batch)"');
    expect(metrics).toContain('route="/trpc/session.me"');
  });

  it('keeps the number of series fixed under 1000 requests for random plan slugs, ids and paths, signed in or not (issue 12 M3)', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
      .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
      .join('; ');
    const slug = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/);
    const kinds = [
      (s: string) => ({ url: `/trpc/subscriptionPlans.public?input=${encodeURIComponent(JSON.stringify({ slug: s }))}` }),
      (s: string) => ({ url: `/subscriptions/${s}/sv` }),
      (s: string) => ({ url: `/subscriptions/${s}` }),
      (s: string) => ({ url: `/${s}/${s}` }),
      (s: string) => ({ url: `/trpc/${s}` }),
      (s: string) => ({ url: `/users/${s.length}${s.length * 7919}`, headers: { cookie } }),
      (s: string) => ({ url: `/trpc/companies.get?input=${encodeURIComponent(JSON.stringify({ id: 100_000 + s.length * 7919 + s.charCodeAt(0) }))}`, headers: { cookie } }),
      (s: string) => ({ url: `/trpc/subscriptionPlans.public?input=${encodeURIComponent(JSON.stringify({ slug: s }))}`, headers: { cookie } }),
    ];
    const send = (s: string, i: number) => stack.app.inject({ method: 'GET', ...kinds[i % kinds.length]!(s) });
    const series = async () => (await metricsOf(stack.baseUrl)).text.split('\n').filter((line) => line.startsWith('backoffice_'));
    // Every kind of request once, so each label combination it can make exists already.
    for (let i = 0; i < kinds.length * 2; i++) await send(`warm-up-${i}`, i);
    const before = await series();
    const slugs = fc.sample(slug, 1000);
    for (let i = 0; i < slugs.length; i++) await send(slugs[i]!, i);
    const after = await series();
    expect(after.length).toBe(before.length);
    expect(after.map((line) => line.replace(/ [\d.e+-]+$/, ''))).toEqual(before.map((line) => line.replace(/ [\d.e+-]+$/, '')));
    expect(after.join('\n')).toContain('path="public/subscription-plans/:param/"');
    for (const s of slugs.slice(0, 50)) expect(after.join('\n')).not.toContain(`/${s}/`);
  }, 120_000);

  it('limits failed sign-in attempts per address and account, never correct ones', async () => {
    const limited = await startStack({ upstream: stack.upstream, app: { loginLimits: { perAccountPer15Minutes: 3, perIpPerMinute: 100 } } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await mutate(agent(limited), 'auth.login', { email: 'nobody@example.com', password: 'whatever' })).status);
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
      // Another account from the same address is still allowed, and correct sign-ins never count:
      // nobody can lock a colleague out by signing in as them.
      for (let i = 0; i < 5; i++) expect((await mutate(agent(limited), 'auth.login', { email: 'admin@example.com', password: DEMO_PASSWORD })).status).toBe(200);
      // A success clears the account's failures.
      expect((await mutate(agent(limited), 'auth.login', { email: 'admin@example.com', password: 'wrong-password' })).status).toBe(400);
      expect((await mutate(agent(limited), 'auth.login', { email: 'admin@example.com', password: 'wrong-password' })).status).toBe(400);
      expect((await mutate(agent(limited), 'auth.login', { email: 'admin@example.com', password: DEMO_PASSWORD })).status).toBe(200);
      expect((await mutate(agent(limited), 'auth.login', { email: 'admin@example.com', password: 'wrong-password' })).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('load shedding', () => {
  it('answers 503 with Retry-After while the process is over its memory threshold', async () => {
    const strained = await startStack({ upstream: stack.upstream, app: { pressure: { maxHeapUsedBytes: 1 } } });
    try {
      await new Promise((r) => setTimeout(r, 1500)); // under-pressure samples once a second
      const res = await request(strained.baseUrl).get('/login');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('10');
      expect(res.body.error.data.appCode).toBe('overloaded');
    } finally {
      await strained.close();
    }
  });
});
