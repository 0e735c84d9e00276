import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, hydrated, launchBrowser } from '../support/browser.ts';
import { DEMO_PASSWORD, latestMail, linkPath, startStack, startUpstreamForTests, type Stack, type Upstream } from '../support/stack.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let upstream: Upstream;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  upstream = await startUpstreamForTests(2);
  [stack, browser] = await Promise.all([startStack({ upstream }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await upstream?.close();
});

async function upstreamAdminToken(): Promise<string> {
  const res = await fetch(upstream.url + 'account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
  });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

describe('sessions and account flows in the browser', () => {
  it('refreshes an access token that expires mid-session without the user noticing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await gotoHydrated(page, stack.baseUrl + '/login');
    await page.getByLabel('E-mail').fill('admin@example.com');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(stack.baseUrl + '/');
    await hydrated(page);
    const before = stack.app.refreshStats.refreshes;
    await sleep(3000); // the access token lives 2 s here
    await page.getByRole('link', { name: 'Ada Admin' }).or(page.getByTestId('account-menu')).first().click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await page.waitForURL(stack.baseUrl + '/profile');
    expect(await page.getByTestId('profile-email').innerText()).toBe('admin@example.com');
    expect(stack.app.refreshStats.refreshes).toBeGreaterThan(before);
    // And a full reload after another expiry is still signed in.
    await sleep(3000);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/profile');

    // N parallel calls from the page after the next expiry cause exactly one refresh.
    await sleep(3000);
    const refreshesBefore = stack.app.refreshStats.refreshes;
    const statuses = await page.evaluate(async () => {
      const calls = Array.from({ length: 12 }, () => fetch('/trpc/session.me').then((r) => r.status));
      return Promise.all(calls);
    });
    expect(statuses).toEqual(Array(12).fill(200));
    expect(stack.app.refreshStats.refreshes - refreshesBefore).toBe(1);
    await context.close();
  });

  it('changing the e-mail address takes effect when the mailed link is confirmed', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await gotoHydrated(page, stack.baseUrl + '/login?redirect=%2Fprofile');
    await page.getByLabel('E-mail').fill('buddy@example.com');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(stack.baseUrl + '/profile');
    await hydrated(page);
    await page.getByTestId('change-email').click();
    const form = page.getByTestId('change-email-form');
    await form.getByLabel('New e-mail address').fill('admin@example.com');
    await form.getByRole('button', { name: 'Send confirmation link' }).click();
    await form.getByText('User already exists').waitFor();
    await form.getByLabel('New e-mail address').fill('bo.renamed@example.com');
    await form.getByRole('button', { name: 'Send confirmation link' }).click();
    await page.getByTestId('pending-email').getByText('Waiting for confirmation of bo.renamed@example.com').waitFor();

    const mail = await latestMail(upstream, 'bo.renamed@example.com');
    expect(mail.kind).toBe('confirm');
    const guest = await browser.newPage();
    await gotoHydrated(guest, stack.baseUrl + linkPath(mail.link));
    await guest.getByText('Confirm that bo.renamed@example.com is your e-mail address.').waitFor();
    await guest.getByRole('button', { name: 'Confirm e-mail' }).click();
    await guest.getByTestId('confirm-done').waitFor();
    await guest.close();

    await page.reload();
    expect(await page.getByTestId('profile-email').innerText()).toBe('bo.renamed@example.com');
    expect(await page.getByTestId('pending-email').count()).toBe(0);
    await upstream.db.query("update users set email = 'buddy@example.com' where email = 'bo.renamed@example.com'");
    await context.close();
  });

  it('forgot password → mailed link → reset → sign in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await gotoHydrated(page, stack.baseUrl + '/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(stack.baseUrl + '/forgot-password');
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('E-mail').fill('shop@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByTestId('forgot-done').waitFor();

    const mail = await latestMail(upstream, 'shop@example.com');
    await gotoHydrated(page, stack.baseUrl + linkPath(mail.link));
    await page.getByLabel('New password').fill('fresh-pass');
    await page.getByLabel('Confirm password').fill('different');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByText('Passwords do not match.').waitFor();
    await page.getByLabel('Confirm password').fill('fresh-pass');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByTestId('password-done').waitFor();

    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in to the back office' }).waitFor();
    await page.getByLabel('E-mail').fill('shop@example.com');
    await page.getByLabel('Password').fill('fresh-pass');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(stack.baseUrl + '/');
    await context.close();
  });

  it('forgot password → mailed link → reset → sign in, all without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(stack.baseUrl + '/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('E-mail').fill('buddy@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByTestId('forgot-done').waitFor();

    const mail = await latestMail(upstream, 'buddy@example.com');
    await page.goto(stack.baseUrl + linkPath(mail.link));
    await page.getByLabel('New password').fill('nojs-pass');
    await page.getByLabel('Confirm password').fill('other-pass');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByText('Passwords do not match.').waitFor();
    await page.getByLabel('New password').fill('nojs-pass');
    await page.getByLabel('Confirm password').fill('nojs-pass');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByTestId('password-done').waitFor();

    await page.getByRole('link', { name: 'Back to sign in' }).click();
    await page.getByLabel('E-mail').fill('buddy@example.com');
    await page.getByLabel('Password').fill('nojs-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(stack.baseUrl + '/');
    expect(await page.getByTestId('user-full-name').innerText()).toBe('Bo Buddy');
    await context.close();
  });

  it('accept invitation → set password → the new buddy is signed in to their app', async () => {
    const token = await upstreamAdminToken();
    const invite = await fetch(upstream.url + 'users/invite/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ email: 'new.buddy@example.com', first_name: 'Nea', last_name: 'Newbuddy', roles: ['Buddy'] }),
    });
    expect(invite.status).toBe(200);
    const mail = await latestMail(upstream, 'new.buddy@example.com');

    const context = await browser.newContext();
    const page = await context.newPage();
    await gotoHydrated(page, stack.baseUrl + linkPath(mail.link));
    await page.getByLabel('New password').fill('buddy-pass');
    await page.getByLabel('Confirm password').fill('buddy-pass');
    await page.getByRole('button', { name: 'Activate account' }).click();
    await page.getByTestId('password-done').waitFor();
    await gotoHydrated(page, stack.baseUrl + '/login');
    await page.getByLabel('E-mail').fill('new.buddy@example.com');
    await page.getByLabel('Password').fill('buddy-pass');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(stack.baseUrl + '/');
    expect(await page.getByTestId('user-full-name').innerText()).toBe('Nea Newbuddy');
    await context.close();
  });
});
