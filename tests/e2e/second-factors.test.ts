import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, hydrated, launchBrowser } from '../support/browser.ts';
import { DEMO_PASSWORD, latestMail, startStack, type Stack } from '../support/stack.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * Issue 32 in Chromium (ADR 068): enrolling an authenticator app, the second step of a sign-in with a code and
 * with a recovery code, in English and Swedish; the Admin policy sending a sign-in to enrol; the sessions page
 * ending another session. Each test signs in its own new user.
 */

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const PASSWORD = 'chosen-pass';
let nextUser = 1;
const now = () => Math.floor(Date.now() / 1000);
const codeAt = (secret: string, steps = 0) => generateSync({ secret, epoch: now() + steps * 30 });

/** A call to the API itself (its own `upstreamCall`), answering the status and the envelope's data. */
async function api<T>(path: string, init: { body?: unknown; token?: string; method?: string } = {}): Promise<{ status: number; data: T }> {
  const { status, body } = await upstreamCall<{ data: T }>(stack.upstream.url, path, init);
  return { status, data: body.data };
}
const adminToken = async () => (await api<{ token: string }>('account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD } })).data.token;

/** A new user of these roles, invited and accepted through the API; the app speaks their profile's language after sign-in (ADR 023). */
async function newUser(roles: string[], language: 'en' | 'sv' = 'en'): Promise<string> {
  const email = `e2e.factor${nextUser++}.${Date.now()}@example.com`;
  expect((await api('users/invite/', { token: await adminToken(), body: { email, roles } })).status).toBe(200);
  const token = (await latestMail(stack.upstream, email)).link.split('/').pop()!;
  expect((await api('account/accept-invite', { body: { token, password: PASSWORD, password_confirm: PASSWORD } })).status).toBe(200);
  const signedIn = (await api<{ token: string; refresh_token: string }>('account/login', { body: { email, password: PASSWORD } })).data;
  expect((await api('account/', { token: signedIn.token, method: 'PUT', body: { first_name: 'Fia', last_name: 'Faktor', language } })).status).toBe(200);
  // Signed out again: the sessions the tests count are the browser's.
  expect((await api('account/logout', { body: { refresh_token: signedIn.refresh_token } })).status).toBe(200);
  return email;
}

/** Enrols an authenticator app through the API; answers its secret and recovery codes. */
async function enrolThroughApi(email: string): Promise<{ secret: string; codes: string[] }> {
  const { token } = (await api<{ token: string }>('account/login', { body: { email, password: PASSWORD } })).data;
  const { secret } = (await api<{ secret: string }>('account/factors/totp', { token, body: {} })).data;
  const confirmed = await api<{ recovery_codes: string[] }>('account/factors/totp/confirm', { token, body: { code: codeAt(secret) } });
  expect(confirmed.status).toBe(200);
  return { secret, codes: confirmed.data.recovery_codes };
}

async function contextIn(lang: 'en' | 'sv'): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: lang === 'sv' ? 'sv-SE' : 'en-GB' });
  await context.addCookies([{ name: 'lang', value: lang, url: stack.baseUrl }]);
  return context;
}

const TEXT = {
  en: { email: 'E-mail', password: 'Password', code: 'Code', title: 'Two-step verification', wrong: 'The code is not valid' },
  sv: { email: 'E-post', password: 'Lösenord', code: 'Kod', title: 'Tvåstegsverifiering', wrong: 'Koden är inte giltig' },
} as const;

/** The password step through the form; answers once the code page is shown. */
async function passwordStep(page: Page, email: string, lang: 'en' | 'sv') {
  await gotoHydrated(page, stack.baseUrl + '/login');
  await page.getByLabel(TEXT[lang].email).fill(email);
  await page.getByLabel(TEXT[lang].password).fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.waitForURL((url) => url.pathname === '/login/second-factor');
  await hydrated(page);
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(TEXT[lang].title);
}

/** Types a code and submits with the keyboard (Enter), as a person with a keyboard would. */
async function submitCode(page: Page, lang: 'en' | 'sv', code: string) {
  const field = page.getByLabel(TEXT[lang].code);
  await field.fill(code);
  await field.press('Enter');
}

async function expectSerious(page: Page) {
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious).toEqual([]);
}

describe('second factors in the browser', () => {
  for (const lang of ['en', 'sv'] as const) {
    it(`enrols an authenticator app on the security page, then signs in with its code (${lang})`, async () => {
      const email = await newUser(['Buddy'], lang);
      const context = await contextIn(lang);
      const page = await context.newPage();
      await gotoHydrated(page, stack.baseUrl + '/login?redirect=%2Fsecurity');
      await page.getByLabel(TEXT[lang].email).fill(email);
      await page.getByLabel(TEXT[lang].password).fill(PASSWORD);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(stack.baseUrl + '/security');
      await hydrated(page);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(lang === 'sv' ? 'Inloggningssäkerhet' : 'Sign-in security');
      await page.getByTestId('totp-start').click();
      const secret = (await page.getByTestId('totp-secret').innerText()).trim();
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
      expect(await page.getByTestId('totp-qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
      await expectSerious(page);
      await page.getByTestId('totp-confirm-form').getByRole('textbox').fill(codeAt(secret));
      await page.getByTestId('totp-confirm').click();
      const codes = page.getByTestId('recovery-codes').getByRole('listitem');
      await codes.first().waitFor();
      expect(await codes.count()).toBe(10);
      await expectSerious(page);
      await page.getByTestId('recovery-codes-done').click();
      await page.getByTestId('totp-enrolled').waitFor();
      await context.close();

      // A new sign-in asks for the code: a wrong one is refused, the app's next one signs in.
      const again = await contextIn(lang);
      const next = await again.newPage();
      await passwordStep(next, email, lang);
      await expectSerious(next);
      await submitCode(next, lang, codeAt(secret, 1) === '000000' ? '111111' : '000000');
      await next.getByTestId('second-factor-error').getByText(TEXT[lang].wrong).waitFor();
      await submitCode(next, lang, codeAt(secret, 1));
      await next.waitForURL(stack.baseUrl + '/');
      await hydrated(next);
      await again.close();
    });

    it(`signs in with a recovery code once; the same code is refused after (${lang})`, async () => {
      const email = await newUser(['Buddy']);
      const { codes } = await enrolThroughApi(email);
      const context = await contextIn(lang);
      const page = await context.newPage();
      await passwordStep(page, email, lang);
      await submitCode(page, lang, codes[0]!);
      await page.waitForURL(stack.baseUrl + '/');
      await context.close();

      const again = await contextIn(lang);
      const next = await again.newPage();
      await passwordStep(next, email, lang);
      await submitCode(next, lang, codes[0]!);
      await next.getByTestId('second-factor-error').getByText(TEXT[lang].wrong).waitFor();
      expect(new URL(next.url()).pathname).toBe('/login/second-factor');
      await again.close();
    });
  }

  it('the Admin policy sends a sign-in of a required role to enrol, and nothing else opens until it has', async () => {
    const email = await newUser(['Buddy', 'Shop']);
    const admin = await contextIn('en');
    const adminPage = await admin.newPage();
    await gotoHydrated(adminPage, stack.baseUrl + '/login?redirect=%2Fsecurity');
    await adminPage.getByLabel('E-mail').fill('admin@example.com');
    await adminPage.getByLabel('Password').fill(DEMO_PASSWORD);
    await adminPage.getByTestId('login-submit').click();
    await adminPage.waitForURL(stack.baseUrl + '/security');
    await hydrated(adminPage);
    // Only Shop: the other tests' Buddy users and the Admin are not concerned.
    await adminPage.getByTestId('policy-Shop').check();
    await adminPage.getByTestId('policy-save').click();
    await adminPage.getByText('The policy has been saved.').waitFor();
    try {
      const context = await contextIn('en');
      const page = await context.newPage();
      await gotoHydrated(page, stack.baseUrl + '/login');
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(stack.baseUrl + '/security');
      await hydrated(page);
      await page.getByTestId('enrol-required').waitFor();
      await page.goto(stack.baseUrl + '/users');
      expect(new URL(page.url()).pathname).toBe('/security');
      await hydrated(page);
      await page.getByTestId('totp-start').click();
      const secret = (await page.getByTestId('totp-secret').innerText()).trim();
      await page.getByTestId('totp-confirm-form').getByRole('textbox').fill(codeAt(secret));
      await page.getByTestId('totp-confirm').click();
      await page.getByTestId('recovery-codes-done').click();
      await page.getByTestId('totp-enrolled').waitFor();
      await page.goto(stack.baseUrl + '/users');
      expect(new URL(page.url()).pathname).toBe('/users');
      await context.close();
    } finally {
      await api('second-factor-policy', { token: await adminToken(), method: 'PUT', body: { roles: [] } });
      await admin.close();
    }
  });

  it('lists the user’s sessions and ends another one at once', async () => {
    const email = await newUser(['Buddy'], 'sv');
    const [one, two] = [await contextIn('sv'), await contextIn('sv')];
    const [a, b] = [await one.newPage(), await two.newPage()];
    for (const page of [b, a]) {
      await gotoHydrated(page, stack.baseUrl + '/login?redirect=%2Fsecurity');
      await page.getByLabel('E-post').fill(email);
      await page.getByLabel('Lösenord').fill(PASSWORD);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(stack.baseUrl + '/security');
      await hydrated(page);
    }
    await a.getByTestId('session-other').waitFor();
    expect(await a.getByTestId('session-current').innerText()).toContain('den här sessionen');
    expect(await a.getByTestId('session-other').innerText()).toContain('Chrome');
    await expectSerious(a);
    await a.getByTestId('session-other').getByRole('button', { name: 'Avsluta session' }).click();
    await a.getByText('Sessionen har avslutats.').waitFor();
    await a.getByTestId('session-other').waitFor({ state: 'detached' });
    // The other browser is signed out: its next page load (the page's own calls, if not the guard) lands on /login.
    await b.reload();
    await b.waitForURL((url) => url.pathname === '/login');
    await one.close();
    await two.close();
  });
});
