import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydrated, launchBrowser, signInAs } from '../support/browser.ts';
import { PHONE, phoneContext } from '../support/phone.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * Issue 32 R5 (ADR 067): whatever ends a buddy's session, the phone's browser does not keep customers'
 * addresses and phone numbers. A sign-out (the menu's, or the no-JS `POST /logout`) deletes everything the
 * browser kept (`Clear-Site-Data: "cache", "storage"`, and the page's own clean-up): the day's copy, the service
 * worker, the offline queue. A session that ended otherwise (expired, deactivated, signed out elsewhere) deletes
 * the day's copy at the next page load and keeps the queued steps, without the stops' personal data, for the
 * same user's next sign-in; another user's sign-in deletes them.
 */
const ACCESS_TTL_SECONDS = 3;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  // Access tokens short-lived, so a session past its lifetime is found at the next page load (its refresh refused).
  [stack, browser] = await Promise.all([startStack({ accessTokenTtlSeconds: ACCESS_TTL_SECONDS }), launchBrowser({ serviceWorkers: 'allow' })]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A buddy of this test's own, signing in with the demo password: ending their session touches nobody else's. */
async function newBuddy(name: string): Promise<{ id: number; email: string }> {
  const email = `r5-${name}-${Date.now()}@example.com`;
  const { rows } = await stack.upstream.db.query<{ id: number }>(
    `with u as (
       insert into users (email, password_hash, first_name, last_name, user_type, country, language, account_status, invitation_status, member_since, email_confirmed_at, city)
       select $1, password_hash, 'R5', $2, user_type, country, language, account_status, invitation_status, member_since, email_confirmed_at, city
         from users where email = 'buddy@example.com'
       returning id)
     insert into user_roles (user_id, role_id)
     select u.id, ur.role_id from u, user_roles ur join users b on b.id = ur.user_id where b.email = 'buddy@example.com'
     returning user_id as id`,
    [email, name],
  );
  return { id: Number(rows[0]!.id), email };
}

/** A step kept through a dead spot (ADR 042), as the Today page writes it: refused once, so nobody sends it again. */
const queuedStep = (user: number) => ({
  key: `r5-step-${user}`,
  user: String(user),
  path: 'services.transition',
  input: { id: 987654321, to: 4 },
  service: 987654321,
  before: { id: 987654321, status: 2, version: 3, address: 'Drottninggatan 1', customer_phone: '+46 70 123 45 67', notes: 'Door code 1234' },
  at: '2026-11-28T06:30:00.000Z',
  state: 'failed',
  message: '{}',
});

interface Kept {
  dayCache: boolean;
  caches: string[];
  workers: number;
  queue: unknown;
}
const kept = (page: Page): Promise<Kept> =>
  page.evaluate(async () => ({
    dayCache: await caches.has('bb-today-v1'),
    caches: await caches.keys(),
    workers: (await navigator.serviceWorker.getRegistrations()).length,
    queue: JSON.parse(localStorage.getItem('bb-offline-queue') ?? 'null') as unknown,
  }));

/** Signed in on a phone, on the Today page, with the worker holding the day's copy and a queued step in storage. */
async function filledPhone(user: { id: number; email: string }): Promise<Page> {
  const context = await phoneContext(browser, PHONE);
  const page = await context.newPage();
  // Said when the storage is not as filled: which answers of this context asked the browser to clear data.
  const cleared: string[] = [];
  context.on('response', (r) => void r.allHeaders().then((h) => h['clear-site-data'] && cleared.push(`${r.status()} ${r.url()}: ${h['clear-site-data']}`)));
  await signInAs(page, stack.baseUrl, user.email, DEMO_PASSWORD, '/today');
  // Polled from the test: each answer is the page's awaited result.
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          const registration = await navigator.serviceWorker.getRegistration();
          if (!registration?.active || new URL(registration.active.scriptURL).pathname !== '/sw.js') return false;
          // The page names its user before it registers the worker (a new user's sign-in first deletes what another left).
          if (localStorage.getItem('bb-offline-user') === null) return false;
          return Boolean(await (await caches.open('bb-today-v1')).match(location.pathname + location.search, { ignoreVary: true }));
        }),
      { timeout: 30_000, interval: 250 },
    )
    .toBe(true);
  await page.waitForLoadState('networkidle');
  await page.evaluate((step) => localStorage.setItem('bb-offline-queue', JSON.stringify([step])), queuedStep(user.id));
  const before = await kept(page);
  expect(before, cleared.join('; ')).toMatchObject({ dayCache: true, workers: 1, queue: [queuedStep(user.id)] });
  return page;
}

/** The `Clear-Site-Data` values of the answers the page receives from now on. */
function clearSiteData(page: Page): string[] {
  const seen: string[] = [];
  // The context's answers: also those the service worker fetched (the Today page is its to answer).
  page.context().on('response', (response: Response) => {
    void response.allHeaders().then((headers) => {
      const value = headers['clear-site-data'];
      if (value) seen.push(value);
    });
  });
  return seen;
}

const ENDINGS: { name: string; end: (user: { id: number; email: string }) => Promise<void> }[] = [
  {
    name: 'expired (past its absolute lifetime)',
    async end(user) {
      await stack.upstream.db.query("update sessions set created_at = now() - interval '400 days' where user_id = $1", [user.id]);
      // The access token in the cookie runs out; its refresh is then refused for the session's age.
      await new Promise((resolve) => setTimeout(resolve, (ACCESS_TTL_SECONDS + 1) * 1000));
    },
  },
  {
    name: 'deactivated by an Admin',
    async end(user) {
      const login = await upstreamCall<{ data: { token: string } }>(stack.upstream.url, 'account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD } });
      const { rows } = await stack.upstream.db.query<{ version: number }>('select version from users where id = $1', [user.id]);
      const res = await upstreamCall(stack.upstream.url, `users/${user.id}/`, {
        method: 'PUT',
        body: { version: rows[0]!.version, user_type: 2, is_active: false },
        token: login.body.data.token,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  },
  {
    name: 'signed out elsewhere (its session revoked)',
    async end(user) {
      await stack.upstream.db.query('update sessions set revoked_at = now() where user_id = $1', [user.id]);
    },
  },
];

describe('a session that ended other than by a sign-out (issue 32 R5, ADR 067)', () => {
  it.each(ENDINGS)('$name: the next page load deletes the day’s copy and keeps the queued step without the stop’s personal data', async ({ name, end }) => {
    const user = await newBuddy(name.split(' ')[0]!);
    const page = await filledPhone(user);
    const headers = clearSiteData(page);
    await end(user);
    await page.goto(`${stack.baseUrl}/today`);
    await page.waitForURL(/\/login\?redirect=%2Ftoday$/);
    await hydrated(page);
    // The answer that found the session ended told the browser to drop its HTTP cache, not its storage.
    expect(headers).toContain('"cache"');
    expect(headers.some((value) => value.includes('storage'))).toBe(false);
    await expect.poll(() => page.evaluate(() => caches.has('bb-today-v1')), { timeout: 30_000, interval: 250 }).toBe(false);
    const after = await kept(page);
    expect(after.dayCache).toBe(false);
    expect(after.workers).toBe(0);
    const { before: _before, ...step } = queuedStep(user.id);
    expect(after.queue).toEqual([{ ...step, before: { id: 987654321, status: 2, version: 3 } }]);
    expect(JSON.stringify(after.queue)).not.toMatch(/Drottninggatan|\+46|Door code/);
    await page.context().close();
  });

  it('keeps the queued step for the same user signing in again, and deletes it when another user signs in on that phone', async () => {
    const user = await newBuddy('again');
    const other = await newBuddy('other');
    const page = await filledPhone(user);
    await stack.upstream.db.query('update sessions set revoked_at = now() where user_id = $1', [user.id]);
    await page.goto(`${stack.baseUrl}/today`);
    await page.waitForURL(/\/login/);
    await hydrated(page);
    await expect.poll(() => page.evaluate(() => caches.has('bb-today-v1')), { timeout: 30_000, interval: 250 }).toBe(false);

    await signInAs(page, stack.baseUrl, user.email, DEMO_PASSWORD, '/today');
    await expect.poll(() => page.evaluate(async () => Boolean(await navigator.serviceWorker.getRegistration())), { timeout: 30_000, interval: 250 }).toBe(true);
    await page.waitForLoadState('networkidle');
    expect(((await kept(page)).queue as { key: string }[]).map((s) => s.key)).toEqual([`r5-step-${user.id}`]);

    await page.context().clearCookies();
    await signInAs(page, stack.baseUrl, other.email, DEMO_PASSWORD, '/today');
    await page.waitForFunction(() => localStorage.getItem('bb-offline-user') !== null && localStorage.getItem('bb-offline-queue') === null);
    expect((await kept(page)).queue).toBeNull();
    await page.context().close();
  });
});

describe('a sign-out deletes everything the browser kept (issue 32 R5, ADR 067)', () => {
  it('the no-JS POST /logout: its answer clears the site’s storage and cache', async () => {
    const user = await newBuddy('nojs');
    const page = await filledPhone(user);
    const headers = clearSiteData(page);
    // The form of the /forbidden page ("Sign in with another account"), posted without the app's script.
    await page.evaluate(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/logout';
      document.body.append(form);
      form.submit();
    });
    await page.waitForURL(`${stack.baseUrl}/login`);
    await hydrated(page);
    expect(headers).toContain('"cache", "storage"');
    const after = await kept(page);
    expect(after).toEqual({ dayCache: false, caches: [], workers: 0, queue: null });
    await page.context().close();
  });

  it('the menu’s Logout: the same', async () => {
    const user = await newBuddy('menu');
    const page = await filledPhone(user);
    const headers = clearSiteData(page);
    await page.getByTestId('account-menu').tap();
    await page.getByRole('menuitem', { name: 'Logout' }).tap();
    // The filled phone keeps a step: the menu asks first (ADR 066), and signing out deletes it.
    await page.getByRole('button', { name: 'Sign out and delete them' }).tap();
    await page.waitForURL(`${stack.baseUrl}/login`);
    await hydrated(page);
    expect(headers).toContain('"cache", "storage"');
    expect(await kept(page)).toEqual({ dayCache: false, caches: [], workers: 0, queue: null });
    await page.context().close();
  });
});
