import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROUTES, guardRoute, type AppRoute } from '../../shared/route-table.ts';
import { rolesFromScope } from '../../shared/roles.ts';
import { gotoHydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { agent, query, signIn } from '../support/http.ts';
import { NARROW_PHONE, overflowReport, phoneContext } from '../support/phone.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 13: no staff page scrolls sideways on a 360 px phone. Signed in as the demo Admin and the demo
 * Buddy, every login route of the route table the role may open is visited — detail routes with a real
 * id from the demo data, creation pages, the other tabs and calendar views — and the document must be no
 * wider than the phone, no visible element may stick out of it, and no box may scroll sideways inside it.
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

/** The first record's id of an entity list, as the role reads it. */
async function firstId(client: ReturnType<typeof agent>, router: string): Promise<number> {
  const res = await query(client, `${router}.list`, {});
  const id = res.body.result?.data?.results?.[0]?.id;
  if (!id) throw new Error(`${router}.list gave no record: ${res.status} ${res.text.slice(0, 200)}`);
  return id as number;
}

const DETAIL_ROUTERS: Record<string, string> = {
  '/companies/:id': 'companies',
  '/events/:id': 'events',
  '/promo-codes/:id': 'promoCodes',
  '/services/:id': 'services',
  '/users/:id': 'users',
  '/bicycles/:id': 'bicycles',
  '/trial-groups/:id': 'trialGroups',
};

/** Extra states of a route worth their own look: other tabs, calendar views, creation pages. */
const VARIANTS: Record<string, string[]> = {
  '/users': ['?tab=subscriptions', '?tab=plans'],
  '/bike-buddy-scheduler': ['?tab=away'],
  '/services/calendar': ['?view=month', '?view=day'],
  '/bike-buddy-scheduler/calendar': ['?view=month', '?view=day'],
};

async function urlsFor(email: string, scope: string[]): Promise<string[]> {
  const client = agent(stack);
  await signIn(client, email, DEMO_PASSWORD);
  const roles = rolesFromScope(scope);
  const routes = (APP_ROUTES as readonly AppRoute[]).filter((r) => r.roles && guardRoute(r, { roles }, r.path).kind === 'allow');
  const urls: string[] = [];
  for (const route of routes) {
    const router = DETAIL_ROUTERS[route.path];
    if (router) {
      urls.push(route.path.replace(':id', String(await firstId(client, router))));
      // Creation pages of entities with their own page (Admin: a buddy creates nothing there).
      if (roles.includes('Admin') && router !== 'users') urls.push(route.path.replace(':id', 'new'));
    } else {
      urls.push(route.path);
      for (const variant of VARIANTS[route.path] ?? []) urls.push(route.path + variant);
    }
  }
  return urls;
}

async function sweep(context: BrowserContext, page: Page, urls: string[], who: string) {
  const failures: string[] = [];
  // A page whose first render in the browser differs from the server's (a text its translations lack)
  // is thrown away and rendered again, showing "Loading…" where the server had the page: React reports it
  // as an error on the page.
  let current = '';
  page.on('pageerror', (error) => failures.push(`${current}: ${error.message.slice(0, 300)}`));
  for (const url of urls) {
    current = url;
    await gotoHydrated(page, stack.baseUrl + url);
    // Data the page loads after hydration (choice lists, maps) can widen it too.
    await page.waitForLoadState('networkidle');
    const report = await overflowReport(page);
    const name = `phone-360-${who}${url.replace(/[/?=&]+/g, '-').replace(/-$/, '') || '-home'}`;
    if (report.scrollWidth > NARROW_PHONE.width || report.outside.length || report.innerScrollers.length) {
      failures.push(
        `${url}: scrollWidth ${report.scrollWidth}\n  outside: ${report.outside.join('\n           ')}\n  scrolls sideways: ${report.innerScrollers.join('\n           ')}`,
      );
      await screenshot(page, `${name}-FAILED`);
    } else {
      await screenshot(page, name);
    }
  }
  await context.close();
  expect(failures, failures.join('\n')).toEqual([]);
}

describe('no horizontal scroll at 360 px', () => {
  it('on every page an Admin may open', async () => {
    const urls = await urlsFor('admin@example.com', ['Admin']);
    expect(urls.length).toBeGreaterThan(35);
    const context = await phoneContext(browser, NARROW_PHONE);
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    await sweep(context, page, urls, 'admin');
  }, 240_000);

  it('in the dialogs: record form, invitations, confirmation', async () => {
    const context = await phoneContext(browser, NARROW_PHONE);
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    const failures: string[] = [];
    const check = async (name: string, open: () => Promise<void>) => {
      await open();
      const dialog = page.getByRole(name === 'confirm' ? 'alertdialog' : 'dialog');
      await dialog.waitFor();
      const box = (await dialog.boundingBox())!;
      const report = await overflowReport(page);
      if (box.x < 0 || box.x + box.width > NARROW_PHONE.width || report.scrollWidth > NARROW_PHONE.width || report.outside.length || report.innerScrollers.length) {
        failures.push(
          `${name}: dialog [${Math.round(box.x)}..${Math.round(box.x + box.width)}] scrollWidth ${report.scrollWidth}\n  outside: ${report.outside.join('\n           ')}\n  scrolls sideways: ${report.innerScrollers.join('\n           ')}`,
        );
      }
      await screenshot(page, `phone-360-dialog-${name}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    };
    await gotoHydrated(page, `${stack.baseUrl}/languages`);
    await check('record', () => page.getByTestId('list-new').click());
    await check('confirm', () =>
      page
        .getByTestId('list-table')
        .locator('tbody tr')
        .first()
        .getByRole('button', { name: /^Delete/ })
        .click(),
    );
    await gotoHydrated(page, `${stack.baseUrl}/users`);
    await check('invite', () => page.getByTestId('invite').click());
    await check('bulk-invite', () => page.getByTestId('bulk-invite').click());
    await context.close();
    expect(failures, failures.join('\n')).toEqual([]);
  }, 120_000);

  it('on every page a Buddy may open', async () => {
    const urls = await urlsFor('buddy@example.com', ['Buddy']);
    expect(urls).toContain('/services/calendar');
    const context = await phoneContext(browser, NARROW_PHONE);
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD);
    await sweep(context, page, urls, 'buddy');
  }, 120_000);
});
