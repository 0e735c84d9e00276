import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROUTES, guardRoute, type AppRoute } from '../../shared/route-table.ts';
import { routerKey } from '../../shared/entity/define.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import { rolesFromScope } from '../../shared/roles.ts';
import { CALENDAR_VIEWS } from '../../client/components/calendar-dates.ts';
import { USERS_TABS } from '../../client/pages/users-tabs.ts';
import { gotoHydrated, screenshotOf, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { agent, query, signIn } from '../support/http.ts';
import { NARROW_PHONE, WIDE_SCREEN, layoutProblems, layoutReport, overflowReport, phoneContext } from '../support/phone.ts';
import { trackRequests } from '../support/settle.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 13: no staff page scrolls sideways on a 360 px phone. Signed in as the demo Admin and the demo
 * Buddy, every login route of the route table the role may open is visited — detail routes with a real
 * id from the demo data, creation pages, the other tabs and calendar views — and the document must be no
 * wider than the phone, no visible element may stick out of it, and no box may scroll sideways inside it.
 * Issue 19 adds, on every page: no controls drawn over each other or spilling their words, no table
 * header cut off; and the same sweep in Swedish at 360 px and, for every list, at 1440 px. The routes
 * come from the route table (detail routes' ids from their entity's list), so a new route is swept
 * without a line here. Screenshots are taken of failures (all pages with SWEEP_SCREENSHOTS=1).
 */
let stack: Stack;
let browser: Browser;
const ALL_SCREENSHOTS = process.env.SWEEP_SCREENSHOTS === '1';

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

/** Extra states of a route worth their own look: other tabs and calendar views (creation pages are added below). */
const otherViews = CALENDAR_VIEWS.filter((view) => view !== 'week').map((view) => `?view=${view}`);
const VARIANTS: Record<string, string[]> = {
  '/users': Object.keys(USERS_TABS).map((tab) => `?tab=${tab}`),
  '/bike-buddy-scheduler': ['?tab=away'],
  '/services/calendar': otherViews,
  '/bike-buddy-scheduler/calendar': otherViews,
};

interface SweptUrl {
  url: string;
  /** An entity's list (or one of its tabs): swept at 1440 px too. */
  list: boolean;
}

async function urlsFor(email: string, scope: string[]): Promise<SweptUrl[]> {
  const client = agent(stack);
  await signIn(client, email, DEMO_PASSWORD);
  const roles = rolesFromScope(scope);
  const routes = (APP_ROUTES as readonly AppRoute[]).filter((r) => r.roles && guardRoute(r, { roles }, r.path).kind === 'allow');
  const urls: SweptUrl[] = [];
  for (const route of routes) {
    const list = route.screen?.kind === 'list';
    if (route.screen?.kind === 'detail') {
      const def = entityByName(route.screen.entity);
      if (!def) throw new Error(`${route.path}: no entity ${route.screen.entity}`);
      const router = routerKey(def);
      urls.push({ url: route.path.replace(':id', String(await firstId(client, router))), list: false });
      // Creation pages of entities with a page of their own (an Admin's; users are invited, not created).
      if (roles.includes('Admin') && !def.updateOnly && !def.readOnly) urls.push({ url: route.path.replace(':id', 'new'), list: false });
    } else {
      if (route.path.includes(':')) throw new Error(`${route.path}: a login route with a parameter the sweep cannot fill`);
      urls.push({ url: route.path, list });
      for (const variant of VARIANTS[route.path] ?? []) urls.push({ url: route.path + variant, list });
    }
  }
  return urls;
}

/** Client-side navigation, as a link in the app does: no new document, no server render (fast). */
async function navigate(page: Page, settled: () => Promise<void>, url: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, url);
  await settled();
}

const shotName = (prefix: string, url: string) => `${prefix}${url.replace(/[/?=&]+/g, '-').replace(/-$/, '') || '-home'}`;

/** Checks each URL's layout (after `open` has brought it up) and collects what is wrong, with a screenshot of each failure. */
async function sweepLayout(page: Page, urls: string[], prefix: string, open: (url: string) => Promise<void>): Promise<string[]> {
  const failures: string[] = [];
  let current = '';
  // A page whose first render in the browser differs from the server's (a text its translations lack)
  // is thrown away and rendered again, showing "Loading…" where the server had the page: React reports it
  // as an error on the page. A page that throws after a client-side navigation is reported the same way.
  const onError = (error: Error) => failures.push(`${prefix} ${current}: ${error.message.slice(0, 300)}`);
  page.on('pageerror', onError);
  for (const url of urls) {
    current = url;
    await open(url);
    const problems = layoutProblems(await layoutReport(page));
    if (problems.length) {
      failures.push(`${prefix} ${url}:\n${problems.join('\n')}`);
      await screenshot(page, `${shotName(prefix, url)}-FAILED`);
    } else if (ALL_SCREENSHOTS) {
      await screenshot(page, shotName(prefix, url));
    }
  }
  page.off('pageerror', onError);
  return failures;
}

async function sweep(context: BrowserContext, page: Page, urls: string[], who: string) {
  const settled = trackRequests(page);
  const failures = await sweepLayout(page, urls, `phone-360-${who}`, async (url) => {
    await gotoHydrated(page, stack.baseUrl + url);
    // Data the page loads after hydration (choice lists, maps) can widen it too: wait until nothing is asked for
    // (as networkidle does, without its fixed half second a page).
    await settled();
  });
  await context.close();
  expect(failures, failures.join('\n')).toEqual([]);
}

describe('no horizontal scroll at 360 px', () => {
  it('on every page an Admin may open', async () => {
    const urls = (await urlsFor('admin@example.com', ['Admin'])).map((u) => u.url);
    expect(urls.length).toBeGreaterThan(35);
    expect(urls).toContain('/users?tab=subscriptions');
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
    const urls = (await urlsFor('buddy@example.com', ['Buddy'])).map((u) => u.url);
    expect(urls).toContain('/services/calendar');
    // With our service worker, which a buddy's phone runs for the offline day (ADR 042): every page a buddy opens
    // still loads and lays out with it in control. The other contexts block it (ADR 077: a second download of every asset).
    const context = await phoneContext(browser, NARROW_PHONE, { serviceWorkers: 'allow' });
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD);
    await sweep(context, page, urls, 'buddy');
  }, 120_000);
});

/** A signed-in Admin's context in Swedish: the language cookie and the stored choice, as the language switch sets them. */
async function swedish(context: BrowserContext, page: Page): Promise<void> {
  await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  await page.evaluate(() => localStorage.setItem('lang', 'sv'));
  await context.addCookies([{ name: 'lang', value: 'sv', url: stack.baseUrl }]);
  await gotoHydrated(page, stack.baseUrl + '/');
  expect(await page.locator('html').getAttribute('lang')).toBe('sv');
}

/**
 * A toast sits below the header: its box does not meet the header's, and each header control is still
 * what a tap at its middle reaches. Saving a language unchanged makes one.
 */
async function toastBelowHeader(page: Page, settled: () => Promise<void>): Promise<string[]> {
  await navigate(page, settled, '/languages');
  await page.getByTestId('list-table').locator('tbody tr').first().locator('button[title]').first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('form-save').click();
  const toast = page.getByTestId('toasts').locator('> *').first();
  await toast.waitFor();
  const header = (await page.locator('header.app-header').boundingBox())!;
  const box = (await toast.boundingBox())!;
  const problems: string[] = [];
  if (box.y < header.y + header.height) problems.push(`toast at y=${Math.round(box.y)} meets the header (bottom ${Math.round(header.y + header.height)})`);
  const covered = await page.evaluate(() =>
    [...document.querySelectorAll('header.app-header button, header.app-header select, header.app-header a')]
      .filter((el) => el.getBoundingClientRect().width > 1 && getComputedStyle(el).visibility !== 'hidden')
      .filter((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !hit || !el.contains(hit);
      })
      .map((el) => el.outerHTML.slice(0, 80)),
  );
  for (const el of covered) problems.push(`header control covered: ${el}`);
  if (problems.length) await screenshot(page, `toast-over-header-${Math.round(page.viewportSize()!.width)}-FAILED`);
  await dialog.waitFor({ state: 'detached' });
  return problems;
}

describe('in Swedish (issue 19)', () => {
  it('every page an Admin may open at 360 px, and every list at 1440 px: no sideways scroll, no overlapping controls, no clipped header; toasts below the header', async () => {
    const urls = await urlsFor('admin@example.com', ['Admin']);
    const lists = urls.filter((u) => u.list).map((u) => u.url);
    expect(lists).toEqual(expect.arrayContaining(['/users?tab=subscriptions', '/event-bookings', '/users']));

    // One page per size, moving from route to route inside the app as a person does (no server render each).
    const phone = await phoneContext(browser, NARROW_PHONE);
    const small = await phone.newPage();
    await swedish(phone, small);
    const smallSettled = trackRequests(small);
    const failures = await sweepLayout(
      small,
      urls.map((u) => u.url),
      'sv-360',
      (url) => navigate(small, smallSettled, url),
    );
    // The subscription cards on a phone, looked at: their action buttons side by side, each word readable.
    await navigate(small, smallSettled, '/users?tab=subscriptions');
    const cards = small.getByTestId('list-table').locator('tbody tr');
    for (const i of [0, 1]) await screenshotOf(cards.nth(i), `sv-360-subscription-card-${i + 1}`);
    failures.push(...(await toastBelowHeader(small, smallSettled)).map((p) => `sv-360 toast: ${p}`));

    const desktop = await browser.newContext({ viewport: WIDE_SCREEN, storageState: await phone.storageState() });
    await phone.close();
    const wide = await desktop.newPage();
    await gotoHydrated(wide, stack.baseUrl + '/');
    const wideSettled = trackRequests(wide);
    failures.push(...(await sweepLayout(wide, lists, 'sv-1440', (url) => navigate(wide, wideSettled, url))));
    failures.push(...(await toastBelowHeader(wide, wideSettled)).map((p) => `sv-1440 toast: ${p}`));

    // What issue 19 saw, looked at: the subscriptions and event bookings tables in Swedish at 1440 px.
    for (const url of ['/users?tab=subscriptions', '/event-bookings', '/users']) {
      await navigate(wide, wideSettled, url);
      await screenshotOf(wide, shotName('sv-1440', url));
    }
    await desktop.close();
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);
});
