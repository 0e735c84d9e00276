import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setUserRoles } from '../../upstream/users.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { gotoHydrated, screenshot, signInAs } from '../support/browser.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

/**
 * Live updates in the browser (ADR 037): a change made elsewhere shows on the open list without a reload,
 * and an edit form with unsaved edits says its record was changed by someone else.
 */
let stack: Stack;
let browser: Browser;
let page: Page;
/** A second Admin's token: changes by someone other than the one in the browser. */
let otherToken = '';

async function patchBicycle(id: number, data: Record<string, unknown>) {
  const current = await fetch(`${stack.upstream.url}bicycles/${id}/`, { headers: { authorization: `Bearer ${otherToken}` } });
  const { version } = ((await current.json()) as { data: { version: number } }).data;
  const res = await fetch(`${stack.upstream.url}bicycles/${id}/`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ version, ...data }),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  ({ stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com' }));
  const { rows } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'shop@example.com'");
  await setUserRoles(stack.upstream.db, Number(rows[0]!.id), ['Admin']);
  const login = await fetch(stack.upstream.url + 'account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'shop@example.com', password: DEMO_PASSWORD }),
  });
  otherToken = ((await login.json()) as { data: { token: string } }).data.token;
});
afterAll(async () => closeBrowserStack(browser, stack));

const bicycleIds = async () => (await stack.upstream.db.query<{ id: number }>('select id from bicycles order by id desc limit 2')).rows.map((r) => Number(r.id));

/** A day far ahead for the dispatch board, and the requests made on it (the third test's, moved in the fourth). */
const DAY = '2098-07-01';
const requests = { buddy: 0, second: 0 };

/** The page's stream answering (its headers are sent once it is attached to the back office's subscription). */
const liveStream = () => page.waitForResponse((res) => new URL(res.url()).pathname === '/live' && res.status() === 200, { timeout: 15_000 });

describe('live updates in the browser', () => {
  it('an open list shows a change made elsewhere without a reload', async () => {
    const [first] = await bicycleIds();
    const streaming = liveStream();
    await gotoHydrated(page, `${stack.baseUrl}/bicycles`);
    // The newest first (the list's default order). The live module loads once the page is idle.
    await streaming;
    await patchBicycle(first!, { brand_and_model: 'Live Roadster 3000' });
    await page.getByText('Live Roadster 3000').first().waitFor({ timeout: 10_000 });
  });

  it('an edit form with unsaved edits says the record was changed by someone else', async () => {
    const [, second] = await bicycleIds();
    const streaming = liveStream();
    await gotoHydrated(page, `${stack.baseUrl}/bicycles/${second}`);
    const form = page.getByTestId('form-bicycles');
    await form.getByLabel('Groupset').fill('Mine 11');
    await streaming;
    await patchBicycle(second!, { brand_and_model: 'Theirs 7' });
    await page.getByTestId('changed-elsewhere').waitFor({ timeout: 10_000 });
    // Their change is in the field the user had not touched; the user's edit stays.
    await expect.poll(() => form.getByLabel('Brand and model').inputValue(), { timeout: 10_000 }).toBe('Theirs 7');
    expect(await form.getByLabel('Groupset').inputValue()).toBe('Mine 11');
    // Their change is named in the notice (ADR 063); nothing to choose, so it is only acknowledged.
    await page.getByTestId('changed-elsewhere-taken').getByText('Brand and model').waitFor();
    await page.getByTestId('changed-elsewhere').getByRole('button', { name: 'OK', exact: true }).click();
    expect(await page.getByTestId('changed-elsewhere').count()).toBe(0);
  });

  it('an open record page and the dispatch board follow changes made elsewhere, without a reload', async () => {
    const [first] = await bicycleIds();
    let streaming = liveStream();
    await gotoHydrated(page, `${stack.baseUrl}/bicycles/${first}`);
    await streaming;
    const field = page.getByTestId('form-bicycles').getByLabel('Brand and model');
    await patchBicycle(first!, { brand_and_model: 'Live Tourer 9' });
    // From the write's answer (its commit is before it) to the value on screen.
    let committed = Date.now();
    await expect.poll(() => field.inputValue(), { timeout: 10_000, interval: 20 }).toBe('Live Tourer 9');
    const recordMs = Date.now() - committed;

    // A new request: counted beside "Dispatch board" in the sidebar while elsewhere, then in the board's tray.
    const day = DAY;
    const { rows: buddies } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'buddy@example.com'");
    const buddy = Number(buddies[0]!.id);
    requests.buddy = buddy;
    const asOther = (path: string, body: unknown) =>
      fetch(`${stack.upstream.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const slot = await asOther('buddy-work-slots/', { buddy_id: buddy, service_date: day, service_slot_id: 1, max_services_per_day: 3, is_working_day: true });
    expect(slot.status, await slot.clone().text()).toBe(201);
    const request = async (notes: string) => {
      const res = await asOther('services/', {
        service_date: day,
        service_slot_id: 1,
        status: 1,
        buddy_id: buddy,
        bicycle_id: 1,
        origin_type: 'one_off',
        address: 'Sergels torg',
        latitude: 59.33258,
        longitude: 18.0649,
        notes,
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: { id: number } }).data.id;
    };
    const waiting = await request('Live request 1');
    const count = page.getByTestId('sidebar-count-dispatch');
    await count.waitFor({ timeout: 10_000 });
    expect(await count.innerText()).toBe('1 new');
    await page.getByRole('link', { name: 'Dispatch board 1 new' }).waitFor();
    await screenshot(page, 'sidebar-new-requests');

    streaming = liveStream();
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    await streaming;
    // Opening the board is seeing what was new.
    expect(await count.count()).toBe(0);
    await page.getByTestId('dispatch-tray').getByTestId(`dispatch-service-${waiting}`).waitFor();
    const id = await request('Live request 2');
    requests.second = id;
    committed = Date.now();
    await page.getByTestId('dispatch-tray').getByTestId(`dispatch-service-${id}`).waitFor({ timeout: 10_000 });
    const boardMs = Date.now() - committed;
    expect(await count.count()).toBe(0);
    // CI never times things (machines differ up to 3×): the figure is written down; the 1 s target is the bench's (bench/live.ts).
    process.stderr.write(`live e2e: record page ${recordMs} ms, dispatch board ${boardMs} ms after the commit\n`);
  });

  it("two browsers: what one admin saves on a record page and moves on the dispatch board shows in the other's, without a reload", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const other = await context.newPage();
    try {
      await signInAs(other, stack.baseUrl, 'shop@example.com', DEMO_PASSWORD);
      const [first] = await bicycleIds();
      let streaming = liveStream();
      await gotoHydrated(page, `${stack.baseUrl}/bicycles/${first}`);
      await streaming;
      await gotoHydrated(other, `${stack.baseUrl}/bicycles/${first}`);
      const theirs = other.getByTestId('form-bicycles');
      await theirs.getByLabel('Brand and model').fill('Two Browsers 2');
      await theirs.getByTestId('form-save').click();
      await other.getByRole('button', { name: 'Yes', exact: true }).click();
      await other
        .getByTestId('toasts')
        .getByText(/has been saved/)
        .waitFor();
      await expect.poll(() => page.getByTestId('form-bicycles').getByLabel('Brand and model').inputValue(), { timeout: 10_000 }).toBe('Two Browsers 2');

      streaming = liveStream();
      await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${DAY}`);
      await streaming;
      await page.getByTestId('dispatch-tray').getByTestId(`dispatch-service-${requests.second}`).waitFor();
      await gotoHydrated(other, `${stack.baseUrl}/dispatch?date=${DAY}`);
      // The other admin moves the request onto the buddy's morning by keyboard.
      const pick = other.getByTestId('dispatch-tray').getByTestId(`dispatch-service-${requests.second}`).getByRole('button');
      await pick.focus();
      await other.keyboard.press('Enter');
      await other.getByTestId(`dispatch-move-here-${requests.buddy}-1`).focus();
      await other.keyboard.press('Enter');
      await page.getByTestId(`dispatch-cell-${requests.buddy}-1`).getByTestId(`dispatch-service-${requests.second}`).waitFor({ timeout: 10_000 });
      expect(await page.getByTestId('dispatch-tray').getByTestId(`dispatch-service-${requests.second}`).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
