import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, hydrated, launchBrowser } from '../support/browser.ts';
import { DEMO_PASSWORD, latestMail, startStack, type Stack } from '../support/stack.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * Passkeys in Chromium (issue 32, ADR 075), with its virtual authenticator through the DevTools protocol: a
 * user registers a passkey on the security page, signs out, signs in with it (its button reached with the
 * keyboard) from /login, or from the second step after the password, in English and Swedish, and removes it with
 * fresh proof (a wrong password refused; then the password in English, a passkey's confirmation in Swedish).
 * WebAuthn needs a domain as its relying party, never an IP address: the browser opens the stack as
 * `localhost`, and the API's relying party is set to that origin.
 */

let stack: Stack;
let browser: Browser;
let base: string;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  base = stack.baseUrl.replace('127.0.0.1', 'localhost');
  // The back office's port is known only once it listens: the relying party follows it (read per request).
  stack.upstream.config.webauthn = { rpId: 'localhost', origins: [base] };
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const PASSWORD = 'chosen-pass';
const TEXT = {
  en: {
    email: 'E-mail',
    password: 'Password',
    logout: 'Logout',
    security: 'Sign-in security',
    passkey: 'Sign in with a passkey',
    name: 'Name of the passkey',
    removed: 'The passkey was removed.',
    password2: 'Your password',
    wrong: 'The password is not right.',
  },
  sv: {
    email: 'E-post',
    password: 'Lösenord',
    logout: 'Logga ut',
    security: 'Inloggningssäkerhet',
    passkey: 'Logga in med lösennyckel',
    name: 'Lösennyckelns namn',
    removed: 'Lösennyckeln togs bort.',
    password2: 'Ditt lösenord',
    wrong: 'Lösenordet stämmer inte.',
  },
} as const;

/** A call to the API itself (its own `upstreamCall`), answering the status and the envelope's data. */
async function api<T>(path: string, init: { body?: unknown; token?: string; method?: string } = {}): Promise<{ status: number; data: T }> {
  const { status, body } = await upstreamCall<{ data: T }>(stack.upstream.url, path, init);
  return { status, data: body.data };
}

/** A new Buddy speaking `language`, invited and accepted through the API, signed out again. */
async function newUser(language: 'en' | 'sv'): Promise<{ email: string; id: number }> {
  const email = `e2e.passkey.${language}.${Date.now()}@example.com`;
  const admin = (await api<{ token: string }>('account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD } })).data.token;
  expect((await api('users/invite/', { token: admin, body: { email, roles: ['Buddy'] } })).status).toBe(200);
  const token = (await latestMail(stack.upstream, email)).link.split('/').pop()!;
  expect((await api('account/accept-invite', { body: { token, password: PASSWORD, password_confirm: PASSWORD } })).status).toBe(200);
  const signedIn = (await api<{ token: string; refresh_token: string }>('account/login', { body: { email, password: PASSWORD } })).data;
  const me = await api<{ id: number }>('account/', { token: signedIn.token, method: 'PUT', body: { first_name: 'Pia', last_name: 'Passkey', language } });
  expect(me.status).toBe(200);
  expect((await api('account/logout', { body: { refresh_token: signedIn.refresh_token } })).status).toBe(200);
  return { email, id: me.data.id };
}

/** The account's history entries of these actions, oldest first, as the API recorded them. */
async function history(userId: number, actions: string[]): Promise<{ action: string; changes: Record<string, unknown> }[]> {
  const { rows } = await stack.upstream.db.query<{ action: string; changes: Record<string, unknown> }>(
    "select action, changes from audit_log where entity = 'users' and record_id = $1 and action = any($2) order by id",
    [userId, actions],
  );
  return rows;
}

async function expectAxeClean(page: Page) {
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious).toEqual([]);
}

/** Tabs from the top of the page to the element, as a keyboard user would; fails when it is not reachable. */
async function tabTo(page: Page, testId: string) {
  for (let i = 0; i < 15; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((id) => document.activeElement?.getAttribute('data-testid') === id, testId)) return;
  }
  throw new Error(`${testId} is not reachable with Tab`);
}

describe('passkeys in the browser', () => {
  for (const lang of ['en', 'sv'] as const) {
    it(`registers a passkey, signs out, signs in with it, and removes it (${lang})`, async () => {
      const user = await newUser(lang);
      const context = await browser.newContext({ locale: lang === 'sv' ? 'sv-SE' : 'en-GB' });
      await context.addCookies([{ name: 'lang', value: lang, url: base }]);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });

      // Registered on the security page, after a password sign-in.
      await gotoHydrated(page, `${base}/login?redirect=%2Fsecurity`);
      await page.getByLabel(TEXT[lang].email).fill(user.email);
      await page.getByLabel(TEXT[lang].password).fill(PASSWORD);
      await page.getByTestId('login-submit').click();
      await page.waitForURL(`${base}/security`);
      await hydrated(page);
      await page.getByLabel(TEXT[lang].name).fill('Laptop');
      // WebAuthn answers only a focused document: the page is brought to the front before each ceremony.
      await page.bringToFront();
      await page.getByTestId('passkey-add').click();
      // Its first factor: recovery codes, shown once.
      await page.getByTestId('recovery-codes').getByRole('listitem').first().waitFor();
      await page.getByTestId('recovery-codes-done').click();
      await page.getByTestId('passkey-row').getByText('Laptop').waitFor();
      if (lang === 'en') await expectAxeClean(page);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).toHaveLength(1);
      expect(credentials[0]!.isResidentCredential).toBe(true);
      expect(await history(user.id, ['factor_added'])).toEqual([{ action: 'factor_added', changes: { factor: [null, 'passkey'] } }]);

      // Signed out through the menu; back in with the passkey, its button reached with the keyboard: in English
      // from /login (the passkey alone); in Swedish after the password, from the second step, which asks a user
      // whose factor is a passkey for no code (ADR 075).
      await page.getByTestId('account-menu').click();
      await page.getByRole('menuitem', { name: TEXT[lang].logout }).click();
      await page.waitForURL(`${base}/login`);
      await hydrated(page);
      expect(await page.getByTestId('passkey-signin').innerText()).toBe(TEXT[lang].passkey);
      if (lang === 'sv') {
        await page.getByLabel(TEXT[lang].email).fill(user.email);
        await page.getByLabel(TEXT[lang].password).fill(PASSWORD);
        await page.getByTestId('login-submit').click();
        await page.waitForURL((url) => url.pathname === '/login/second-factor');
        await hydrated(page);
        await page.getByTestId('passkey-signin').waitFor();
      }
      // Axe on each new page once: the security page (en, above), /login (en) and the second step (sv).
      await expectAxeClean(page);
      await page.bringToFront();
      await tabTo(page, 'passkey-signin');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${base}/`);
      await hydrated(page);
      const signIns = await history(user.id, ['sign_in']);
      expect(signIns.at(-1)?.changes).toEqual({ method: [null, 'passkey'], second_factor: [null, 'passkey'] });
      expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount).toBeGreaterThan(0);

      // Removed: listed no more, and recorded. The security page through the menu (no page load).
      await page.getByTestId('account-menu').click();
      await page.getByRole('menuitem', { name: TEXT[lang].security }).click();
      await page.waitForURL(`${base}/security`);
      // Removing asks for fresh proof (ADR 075): the form opens with the password field focused; a wrong password
      // removes nothing. Then in English the password, in Swedish a passkey's confirmation (the virtual authenticator).
      await page.getByTestId('passkey-remove').click();
      const proof = page.getByTestId('passkey-remove-form');
      await proof.getByLabel(TEXT[lang].password2).waitFor();
      await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('password');
      await page.keyboard.type('not-the-password');
      await page.keyboard.press('Enter');
      await proof.getByText(TEXT[lang].wrong).waitFor();
      expect(await page.getByTestId('passkey-row').count()).toBe(1);
      if (lang === 'en') {
        await expectAxeClean(page);
        await proof.getByLabel(TEXT[lang].password2).fill(PASSWORD);
        await proof.getByTestId('passkey-remove-password').click();
      } else {
        await page.bringToFront();
        await proof.getByTestId('passkey-remove-passkey').click();
      }
      await page.getByText(TEXT[lang].removed).waitFor();
      await page.getByTestId('passkeys-none').waitFor();
      expect((await history(user.id, ['factor_added', 'factor_removed'])).map((e) => e.action)).toEqual(['factor_added', 'factor_removed']);
      await context.close();
    });
  }
});
