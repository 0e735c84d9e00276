import type { Server } from 'node:http';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../../upstream/start.ts';
import { hydrated, launchBrowser } from '../support/browser.ts';
import { startGoogleKeys } from '../support/google-keys.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD, startStack, type Stack, type Upstream } from '../support/stack.ts';

/**
 * The public pages' own script (ADR 024) in a browser: what it loads, the messages it gives before posting,
 * the language switch, and Google sign-in (Google's script faked at the network edge, its ID tokens
 * signed by a local key the API trusts).
 */
const GOOGLE_CLIENT = 'test-client.apps.googleusercontent.com';
let jwks: Server;
let privateKey: CryptoKey;
let upstream: Upstream;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  let certsUrl: string;
  ({ server: jwks, privateKey, certsUrl } = await startGoogleKeys());
  upstream = await startUpstream({
    port: 0,
    host: '127.0.0.1',
    seedDemo: true,
    demoPassword: DEMO_PASSWORD,
    logger: testLogger('upstream', 'info'),
    config: { scryptCost: 1024, logMailLinks: false, corsOrigins: ['*'], googleClientId: GOOGLE_CLIENT, googleJwksUrl: certsUrl },
  });
  [stack, browser] = await Promise.all([startStack({ upstream, app: { googleClientId: GOOGLE_CLIENT } }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await upstream?.close();
  jwks?.close();
});

const idToken = (email: string) =>
  new SignJWT({ email, email_verified: true })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer('https://accounts.google.com')
    .setAudience(GOOGLE_CLIENT)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);

/** Google's client script, faked: its button hands the page the ID token given. */
async function fakeGoogle(page: Page, credential: string) {
  await page.route('https://accounts.google.com/gsi/client', (route) =>
    route.fulfill({
      contentType: 'text/javascript',
      body: `window.google = { accounts: { id: {
        initialize(options) { window.__gsi = options; },
        renderButton(element) { const b = document.createElement('button'); b.type = 'button'; b.textContent = 'Google'; b.onclick = () => window.__gsi.callback({ credential: ${JSON.stringify(credential)} }); element.appendChild(b); },
      } } };`,
    }),
  );
}

describe('the public pages in a browser', () => {
  it('load the public script and nothing of the app', async () => {
    const page = await browser.newPage();
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script' && request.url().startsWith(stack.baseUrl)) scripts.push(new URL(request.url()).pathname);
    });
    await page.route('https://accounts.google.com/**', (route) => route.abort());
    await page.goto(stack.baseUrl + '/login');
    await hydrated(page);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^\/static\/entry-public-[\w-]+\.js$/);
    await page.close();
  });

  it('give the server’s messages before posting, in the page’s language, and switch language', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route('https://accounts.google.com/**', (route) => route.abort());
    await page.goto(stack.baseUrl + '/reset-password/some-token');
    await hydrated(page);
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByRole('heading', { name: 'Välj ett nytt lösenord' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('sv');
    await hydrated(page);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url());
    });
    await page.getByLabel('Nytt lösenord').fill('ab');
    await page.getByLabel('Bekräfta lösenord').fill('abc');
    await page.getByRole('button', { name: 'Spara nytt lösenord' }).click();
    await page.getByText('Lösenordet måste ha minst 3 tecken.').waitFor();
    await page.getByLabel('Nytt lösenord').fill('abc-def');
    await page.getByRole('button', { name: 'Spara nytt lösenord' }).click();
    await page.getByText('Lösenorden matchar inte.').waitFor();
    expect(posts).toEqual([]);
    // A valid form goes to the server, whose answer (the token is unknown) replaces the form's region.
    await page.getByLabel('Nytt lösenord').fill('abc');
    await page.getByRole('button', { name: 'Spara nytt lösenord' }).click();
    await page.getByTestId('password-error').waitFor();
    expect(posts).toHaveLength(1);
    await context.close();
  });

  it('sign in with Google through the API, and say so when the account is unknown', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await fakeGoogle(page, await idToken('nobody@example.com'));
    await page.goto(stack.baseUrl + '/login?redirect=%2Fbicycles');
    await hydrated(page);
    await page.getByTestId('google-signin').getByRole('button', { name: 'Google' }).click();
    await expect(page.getByTestId('login-error').innerText()).resolves.toBe('Invalid credentials.');

    await page.unrouteAll();
    await fakeGoogle(page, await idToken('admin@example.com'));
    await page.reload();
    await hydrated(page);
    await page.getByTestId('google-signin').getByRole('button', { name: 'Google' }).click();
    await page.waitForURL(stack.baseUrl + '/bicycles');
    await hydrated(page);
    expect(await page.getByTestId('user-full-name').innerText()).toBe('Ada Admin');
    await context.close();
  });
});
