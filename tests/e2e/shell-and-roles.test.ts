import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, hydrated, screenshot } from '../support/browser.ts';
import { PHONE, phoneContext } from '../support/phone.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  ({ stack, browser } = await startBrowserStack());
});
afterAll(() => closeBrowserStack(browser, stack));

async function login(page: Page, email: string, path = '/') {
  await gotoHydrated(page, stack.baseUrl + path);
  expect(new URL(page.url()).pathname).toBe('/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByTestId('login-submit').click();
  // Signing in loads the app (or /forbidden) as a new page (ADR 024): wait until it is interactive.
  await page.waitForURL((url) => url.pathname !== '/login');
  await hydrated(page);
}

async function sidebarLabels(page: Page) {
  await page.locator('#sidebar [data-label]').first().waitFor();
  return page.locator('#sidebar [data-label]').allInnerTexts();
}

describe('the user story of the foundation', () => {
  it('shows a server-rendered login form that works before JavaScript runs', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(stack.baseUrl + '/users');
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByRole('heading', { name: 'Sign in to the back office' }).waitFor();
    await page.getByLabel('E-mail').fill('admin@example.com');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(stack.baseUrl + '/users');
    expect(await page.getByTestId('user-full-name').innerText()).toBe('Ada Admin');
    await context.close();
  });

  it('validates the login form in the browser with the §5 texts', async () => {
    const page = await browser.newPage();
    await gotoHydrated(page, stack.baseUrl + '/login');
    await page.getByLabel('E-mail').fill('not-an-email');
    await page.getByLabel('Password').fill('ab');
    await page.getByTestId('login-submit').click();
    await page.getByText('Provided value is not Email.').waitFor();
    await page.getByText('Password must be at least 3 characters.').waitFor();
    await page.getByLabel('E-mail').fill('admin@example.com');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error').innerText()).resolves.toBe('Invalid credentials.');
    await page.close();
  });

  it('admin: full sidebar, Swedish survives a reload, logout returns to /login', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'admin@example.com', '/bicycles');
    await page.waitForURL(stack.baseUrl + '/bicycles');
    expect(await page.getByTestId('user-full-name').innerText()).toBe('Ada Admin');
    const labels = await sidebarLabels(page);
    expect(labels).toHaveLength(24);
    expect(labels).toContain('Promo codes');
    expect(labels).toContain('Activity');
    expect(await page.getByTestId('app-version').innerText()).toMatch(/Version test/);
    await screenshot(page, 'admin-shell-en');

    await page.getByTestId('language-switch').selectOption('sv');
    await page.locator('#sidebar').getByText('Företag').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe('sv');
    await page.reload();
    expect(await page.locator('html').getAttribute('lang')).toBe('sv');
    expect(await sidebarLabels(page)).toContain('Kampanjkoder');
    expect(await page.locator('footer').innerText()).toContain('Vi uppfinner cykelservice på nytt');
    await screenshot(page, 'admin-shell-sv');

    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Logga ut' }).click();
    await page.waitForURL(stack.baseUrl + '/login');
    await page.goto(stack.baseUrl + '/');
    await page.waitForURL(/\/login\?redirect=/);
    await context.close();
  });

  // Issue 33: the 24 entries under four headings, declared with the routes and the entities' screens.
  it('groups the sidebar: daily work, people, catalogues, settings, each a list named by its heading, in the drawer too', async () => {
    const groupsOf = (page: Page) =>
      page.locator('#sidebar ul[aria-labelledby]').evaluateAll((lists) =>
        lists.map((list) => ({
          heading: document.getElementById(list.getAttribute('aria-labelledby')!)!.textContent,
          links: [...list.querySelectorAll('[data-label]')].map((label) => label.textContent),
        })),
      );
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'admin@example.com', '/');
    await page.getByTestId('home-welcome').waitFor();
    const groups = await groupsOf(page);
    expect(groups.map((g) => g.heading)).toEqual(['Daily work', 'People', 'Catalogues', 'Settings']);
    expect(groups[0]!.links).toEqual(['Home', 'Today', 'Bike Buddy Scheduler', 'Event bookings', 'Services', 'Dispatch board', 'Bike Expert']);
    expect(groups[1]!.links).toEqual(expect.arrayContaining(['Users', 'Companies']));
    expect(groups[2]!.links).toEqual(expect.arrayContaining(['Products', 'Service types', 'Promo codes']));
    expect(groups[3]!.links).toEqual(expect.arrayContaining(['Roles', 'Activity']));
    expect(groups.flatMap((g) => g.links)).toHaveLength(24);
    expect((await axeViolations(page, '#sidebar')).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    // Keyboard: the headings are not stops; Tab goes from link to link across the groups.
    await page.locator('#sidebar').getByRole('link', { name: 'Bike Expert' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('ul')?.getAttribute('aria-labelledby'))).toBe('nav-group-people');
    // Collapsed to icons, the headings are there for screen readers only.
    await page.getByRole('button', { name: 'Collapse sidebar' }).click();
    expect(await page.locator('#nav-group-people').evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
    await page.getByRole('button', { name: 'Expand sidebar' }).click();
    await page.getByTestId('language-switch').selectOption('sv');
    await page.locator('#nav-group-daily').getByText('Dagligt arbete').waitFor();
    expect((await groupsOf(page)).map((g) => g.heading)).toEqual(['Dagligt arbete', 'Personer', 'Kataloger', 'Inställningar']);
    await page.getByTestId('language-switch').selectOption('en');
    await context.close();

    // A buddy's phone: the drawer shows the one group a buddy has.
    const phone = await phoneContext(browser, PHONE);
    const buddy = await phone.newPage();
    await login(buddy, 'buddy@example.com', '/');
    await buddy.getByTestId('menu-button').click();
    await buddy.locator('#nav-group-daily').waitFor();
    expect(await groupsOf(buddy)).toEqual([{ heading: 'Daily work', links: ['Home', 'Today', 'Bike Buddy Scheduler', 'Services'] }]);
    expect((await axeViolations(buddy, '#sidebar')).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await phone.close();
  });

  it('buddy sees home, scheduler and services only', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'buddy@example.com');
    await page.waitForURL(stack.baseUrl + '/');
    await page.getByTestId('home-welcome').waitFor();
    expect(await sidebarLabels(page)).toEqual(['Home', 'Today', 'Bike Buddy Scheduler', 'Services']);
    // Keyboard: the first Tab offers to skip the header and sidebar, and Enter lands in the content.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await context.close();
  });

  it('buddy + shop reaches the users list', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'shop@example.com', '/users');
    await page.waitForURL(stack.baseUrl + '/users');
    expect(await sidebarLabels(page)).toEqual(['Home', 'Today', 'Bike Buddy Scheduler', 'Services', 'Users']);
    await context.close();
  });

  it('a user without a whitelisted role lands on /forbidden', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'user@example.com');
    await page.waitForURL(stack.baseUrl + '/forbidden');
    expect(await page.getByTestId('forbidden-text').innerText()).toBe('You can not access this page...');
    await page.goto(stack.baseUrl + '/');
    await page.waitForURL(stack.baseUrl + '/forbidden');
    await context.close();
  });

  it('profile: view and update, confirmed with a toast', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await login(page, 'buddy@example.com', '/profile');
    await page.waitForURL(stack.baseUrl + '/profile');
    expect(await page.getByTestId('profile-email').innerText()).toBe('buddy@example.com');
    await page.getByLabel('City').fill('Göteborg');
    await page.getByTestId('profile-save').click();
    await page.getByTestId('toasts').getByText('Your profile has been saved.').waitFor();
    await page.reload();
    await hydrated(page);
    expect(await page.getByLabel('City').inputValue()).toBe('Göteborg');
    await context.close();
  });
});
