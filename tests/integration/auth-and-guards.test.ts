import { createServer } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';
import { agent, mutate, query, setCookies, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  // This file signs in more than 30 times a minute from one address; the limit has its own test.
  stack = await startStack({ app: { loginLimits: { perIpPerMinute: 120 } } });
});
afterAll(async () => stack?.close());

describe('server-rendered pages and guards', () => {
  it('renders the login page on the server, readable before any script runs', async () => {
    const res = await agent(stack).get('/login');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const form = /<form[^>]*>/.exec(res.text)?.[0] ?? '';
    expect(form).toContain('method="post"');
    expect(form).toContain('action="/login"');
    expect(res.text).toContain('Sign in to the back office');
    expect(res.text).toContain('name="email"');
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(res.headers['content-security-policy']).toContain("object-src 'none'");
  });

  it('renders in Swedish when the lang cookie says so', async () => {
    const res = await agent(stack).get('/login').set('cookie', 'lang=sv');
    expect(res.text).toContain('<html lang="sv">');
    expect(res.text).toContain('Logga in i back office');
  });

  it('sends anonymous users to /login keeping path and query', async () => {
    const res = await agent(stack).get('/users?page=2');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/login?redirect=%2Fusers%3Fpage%3D2');
  });

  it('serves public pages to anyone and 404 for unknown paths', async () => {
    expect((await agent(stack).get('/privacy-policy')).status).toBe(200);
    const terms = await agent(stack).get('/terms-and-conditions/sv');
    expect(terms.text).toContain('Villkor');
    const plan = await agent(stack).get('/subscriptions/gold');
    expect(plan.text).toContain('gold');
    expect((await agent(stack).get('/no/such/page')).status).toBe(404);
  });

  it('signs in with the plain form post (no JavaScript) and redirects to the original page', async () => {
    const client = agent(stack);
    const res = await client.post('/login').type('form').send({ email: 'admin@example.com', password: DEMO_PASSWORD, redirect: '/profile' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/profile');
    const cookies = setCookies(res);
    expect(cookies.some((c) => /^bo_at=/.test(c))).toBe(true);
    for (const cookie of cookies.filter((c) => /^bo_(at|rt)=/.test(c))) {
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).not.toMatch(/eyJ/); // no readable JWT inside
    }
    const page = await client.get('/profile');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ada');
    expect(page.text).toContain('admin@example.com');
    expect(page.text).not.toMatch(/eyJ[\w-]+\.[\w-]+/); // no token anywhere in the HTML
  });

  it('answers a failed form login with the error on the login page, never an open redirect', async () => {
    const res = await agent(stack).post('/login').type('form').send({ email: 'admin@example.com', password: 'wrong-one', redirect: '//evil.example' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location as string, 'http://x');
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('error')).toBe('wrong_password');
    expect(location.searchParams.get('redirect')).toBe('/');
    const page = await agent(stack).get(res.headers.location as string);
    expect(page.text).toContain('Invalid credentials.');
  });

  it('gives each role its app', async () => {
    const admin = agent(stack);
    await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
    const home = await admin.get('/');
    expect(home.status).toBe(200);
    for (const label of ['Companies', 'Promo codes', 'Bicycles', 'Trial groups', 'Products', 'Users']) expect(home.text).toContain(label);

    const buddy = agent(stack);
    await signIn(buddy, 'buddy@example.com', DEMO_PASSWORD);
    const buddyHome = await buddy.get('/');
    expect(buddyHome.status).toBe(200);
    expect(buddyHome.text).toContain('Bike Buddy Scheduler');
    expect(buddyHome.text).not.toContain('Promo codes');
    expect((await buddy.get('/users')).headers.location).toBe('/forbidden');

    const shop = agent(stack);
    await signIn(shop, 'shop@example.com', DEMO_PASSWORD);
    expect((await shop.get('/users')).status).toBe(200);
    expect((await shop.get('/users/1')).headers.location).toBe('/forbidden');

    const user = agent(stack);
    const login = await signIn(user, 'user@example.com', DEMO_PASSWORD);
    expect(login.body.result.data.roles).toEqual([]);
    const landing = await user.get('/');
    expect(landing.status).toBe(302);
    expect(landing.headers.location).toBe('/forbidden');
    expect((await user.get('/forbidden')).text).toContain('You can not access this page...');
  });

  it('checks roles in procedures too, not only in the UI', async () => {
    const user = agent(stack);
    await signIn(user, 'user@example.com', DEMO_PASSWORD);
    const res = await query(user, 'account.get');
    expect(res.status).toBe(403);
    expect(res.body.error.data.appCode).toBe('forbidden');
    const anonymous = await query(agent(stack), 'account.get');
    expect(anonymous.status).toBe(401);
  });
});

describe('tRPC auth procedures', () => {
  it('keeps credential errors vague (§8): one code for an unknown address and a wrong password', async () => {
    for (const email of ['admin@example.com', 'nobody@example.com']) {
      const res = await mutate(agent(stack), 'auth.login', { email, password: 'nope-nope' });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Invalid credentials.');
      expect(res.body.error.data.appCode).toBe('wrong_password');
    }
  });

  it('validates input with the shared schema and puts messages on fields', async () => {
    const res = await mutate(agent(stack), 'auth.login', { email: 'not-an-email', password: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fieldErrors).toEqual({ email: 'validation.email', password: 'validation.passwordMin' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it('refuses mutations without the CSRF header or from another site', async () => {
    const noHeader = await agent(stack).post('/trpc/auth.login').set('content-type', 'application/json').send('{}');
    expect(noHeader.status).toBe(403);
    const crossSite = await mutate(agent(stack), 'auth.login', { email: 'a@b.se', password: 'xyz' }).set('sec-fetch-site', 'cross-site');
    expect(crossSite.status).toBe(403);
    const foreignOrigin = await mutate(agent(stack), 'auth.login', { email: 'a@b.se', password: 'xyz' }).set('origin', 'https://evil.example');
    expect(foreignOrigin.status).toBe(403);
    const formBody = await agent(stack).post('/trpc/auth.login').set('x-backoffice-csrf', '1').type('form').send({ email: 'a' });
    expect(formBody.status).toBe(403);
  });

  it('logs out: cookies cleared and the refresh token revoked upstream', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const { rows: before } = await stack.upstream.db.query<{ n: number }>(
      "select count(*)::int as n from refresh_tokens rt join users u on u.id = rt.user_id where u.email = 'admin@example.com' and rt.revoked_at is null",
    );
    const res = await mutate(client, 'auth.logout');
    expect(res.status).toBe(200);
    const cleared = setCookies(res).filter((c) => /^bo_(at|rt)=;/.test(c));
    expect(cleared).toHaveLength(2);
    for (const cookie of cleared) expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970/);
    const { rows: after } = await stack.upstream.db.query<{ n: number }>(
      "select count(*)::int as n from refresh_tokens rt join users u on u.id = rt.user_id where u.email = 'admin@example.com' and rt.revoked_at is null",
    );
    expect(after[0]!.n).toBe(before[0]!.n - 1);
    expect((await client.get('/')).headers.location).toBe('/login?redirect=%2F');
  });
});

describe('the profile language at sign-in (ADR 023)', () => {
  // A seeded buddy whose profile is set to Swedish here; the demo logins' profiles are English.
  let email = '';
  beforeAll(async () => {
    const { rows } = await stack.upstream.db.query<{ email: string }>(
      "select u.email from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id where r.name = 'Buddy' and u.email not in ('buddy@example.com', 'shop@example.com') order by u.id limit 1",
    );
    email = rows[0]!.email;
    await stack.upstream.db.query("update users set language = 'sv' where email = $1", [email]);
  });
  const langCookie = (res: { headers: Record<string, unknown> }) => setCookies(res).find((c) => /^lang=/.test(c));

  it('the sign-in (tRPC) answers the profile language and sets the lang cookie, readable by the page and a year long', async () => {
    const client = agent(stack);
    const res = await mutate(client, 'auth.login', { email, password: DEMO_PASSWORD }).set('cookie', 'lang=en');
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ roles: ['Buddy'], language: 'sv' });
    const cookie = langCookie(res)!;
    expect(cookie).toMatch(/^lang=sv;/);
    expect(cookie).toMatch(/Max-Age=31536000/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/HttpOnly/);
    const home = await client.get('/');
    expect(home.text).toContain('<html lang="sv">');
  });

  it('the form post without JavaScript applies it too: the next page is in Swedish', async () => {
    const client = agent(stack);
    const res = await client.post('/login').set('cookie', 'lang=en').type('form').send({ email, password: DEMO_PASSWORD, redirect: '/services' });
    expect(res.status).toBe(303);
    expect(langCookie(res)).toMatch(/^lang=sv;/);
    const page = await client.get('/services');
    expect(page.text).toContain('<html lang="sv">');
    expect(page.text).toContain('Servicejobb');
  });

  it('a profile without a language leaves the sign-in page language alone', async () => {
    await stack.upstream.db.query('update users set language = null where email = $1', [email]);
    try {
      const client = agent(stack);
      const res = await mutate(client, 'auth.login', { email, password: DEMO_PASSWORD });
      expect(res.status, res.text).toBe(200);
      expect(res.body.result.data.language).toBeNull();
      expect(langCookie(res)).toBeUndefined();
      expect((await client.get('/')).text).toContain('<html lang="en">');
    } finally {
      await stack.upstream.db.query("update users set language = 'sv' where email = $1", [email]);
    }
  });
});

// Last in the file: a second API starts in this process, and its start keeps the event loop busy.
describe('the profile language at Google sign-in (ADR 023)', () => {
  it('Google sign-in applies the profile language too', async () => {
    // The API verifies Google ID tokens against these keys (an HTTP-level fake of Google's certificates).
    const keys = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const certs = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => certs.listen(0, '127.0.0.1', resolve));
    const clientId = 'test-client.apps.googleusercontent.com';
    const upstream = await startUpstream({
      port: 0,
      demoPassword: DEMO_PASSWORD,
      logger: testLogger('upstream-google'),
      config: { scryptCost: 1024, googleClientId: clientId, googleJwksUrl: `http://127.0.0.1:${(certs.address() as { port: number }).port}/certs` },
    });
    const google = await startStack({ upstream, app: { googleClientId: clientId } });
    try {
      await upstream.db.query("update users set language = 'sv' where email = 'shop@example.com'");
      const idToken = await new SignJWT({ email: 'shop@example.com', email_verified: true })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer('https://accounts.google.com')
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(keys.privateKey);
      const client = agent(google);
      const res = await mutate(client, 'auth.google', { idToken });
      expect(res.status, res.text).toBe(200);
      expect(res.body.result.data).toEqual({ roles: ['Buddy', 'Shop', 'BuddyShop'], language: 'sv' });
      expect(setCookies(res).find((c) => /^lang=/.test(c))).toMatch(/^lang=sv;/);
      expect((await client.get('/')).text).toContain('<html lang="sv">');
    } finally {
      await google.close();
      await upstream.close();
      certs.close();
    }
  });
});
