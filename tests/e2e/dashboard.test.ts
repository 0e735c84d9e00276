import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, signInAs } from '../support/browser.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { agent, query, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  ({ stack, browser } = await startBrowserStack());
});
afterAll(() => closeBrowserStack(browser, stack));

const counterText = (page: Page, key: string) => page.getByTestId(`counter-${key}`).locator('dd').innerText();

describe('dashboard in the browser', () => {
  it('an Admin sees every §1 counter as the API counts it, the last 30 days and the statistics, in English and Swedish', async () => {
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    const counters = (await query(api, 'dashboard.get')).body.result.data.counters as Record<string, number>;
    expect(Object.keys(counters)).toHaveLength(15);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    for (const [key, value] of Object.entries(counters)) expect(await counterText(page, key), key).toBe(value.toLocaleString('en-GB'));
    await page
      .getByTestId('series-new_users')
      .getByRole('img', { name: /New users, Last 30 days/ })
      .waitFor();
    await page.getByTestId('stats-by-status').getByRole('img', { name: 'Services per status' }).waitFor();
    const finished = (await query(api, 'dashboard.statistics')).body.result.data.servicesByStatus.find((s: { status: number }) => s.status === 4).count;
    expect(await page.getByTestId('stats-by-status-value-3').textContent()).toBe(String(finished));
    await screenshot(page, 'dashboard-admin');

    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByRole('heading', { name: 'Statistik' }).waitFor();
    await page.getByTestId('counter-total_users').getByText('Användare totalt').waitFor();
    await screenshot(page, 'dashboard-admin-sv');
    await page.getByTestId('language-switch').selectOption('en');
    await page.context().close();
  });

  it('a Buddy sees the figures of their own work, and no statistics', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD);
    const api = agent(stack);
    await signIn(api, 'buddy@example.com', DEMO_PASSWORD);
    const own = (await query(api, 'dashboard.get')).body.result.data;
    expect(own.scope).toBe('own');
    expect(await counterText(page, 'services_performed')).toBe(String(own.counters.services_performed));
    expect(await counterText(page, 'scheduled_services')).toBe(String(own.counters.scheduled_services));
    expect(await page.getByTestId('counter-total_users').count()).toBe(0);
    expect(await page.getByTestId('statistics').count()).toBe(0);
    expect((await query(api, 'dashboard.statistics')).status).toBe(403);
    await screenshot(page, 'dashboard-buddy');
    await page.context().close();
  });

  // Issue 33: a counter is a link to the list it counts, filtered as it counts; the list's total is the counter.
  it('each list counter opens its list filtered as it counts, with the same total', async () => {
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    const counters = (await query(api, 'dashboard.get')).body.result.data.counters as Record<string, number>;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    const listTotal = async () => (await page.getByTestId('list-count').innerText()).match(/· ([\d,]+) result/)![1]!.replace(/,/g, '');
    for (const [key, list] of [
      ['services_performed', '/services'],
      ['scheduled_services', '/services'],
      ['one_off_total', '/services'],
      ['total_users', '/users'],
      ['invited_users', '/users'],
    ] as const) {
      const link = page.getByTestId(`counter-${key}`).getByRole('link');
      expect(await link.getAttribute('aria-label'), key).toMatch(/: show the list$/);
      await link.focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === list);
      await page.getByTestId('list-count').waitFor();
      expect(await listTotal(), key).toBe(String(counters[key]));
      await page.goBack();
      await page.getByTestId(`counter-${key}`).waitFor();
    }
    expect(page.url()).not.toContain('?');
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByRole('heading', { name: 'Statistik' }).waitFor();
    await page
      .getByTestId('counter-services_performed')
      .getByRole('link', { name: /: visa listan$/ })
      .waitFor();
    await page.getByTestId('language-switch').selectOption('en');
    await page.context().close();
  });
});
