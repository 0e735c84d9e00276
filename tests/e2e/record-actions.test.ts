import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * RecordActions itself (issue 18), on a service's page: the buttons are those the status flow opens to
 * the viewer's roles; a step into a final status asks first and "No" (or Escape) sends nothing; the
 * keyboard reaches every button and runs it; each button's accessible name is what it shows.
 */
let stack: Stack;
let browser: Browser;
let serviceId: number;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  // A request assigned to the demo buddy, waiting to be accepted.
  const { rows } = await stack.upstream.db.query<{ id: number }>(
    `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
     select $1::date, 2, '11:30', 1, u.id, b.id, b.owner_id, 'one_off', 'Kungsgatan 1, Stockholm', 59.3353, 18.0632
       from users u, bicycles b where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) returning id`,
    // Today: a buddy finishes a service on or after its date (ADR 028).
    [daysFromToday(0)],
  );
  serviceId = Number(rows[0]!.id);
  // Its required check items are answered, so finishing it is the status table's business alone (ADR 043).
  await stack.upstream.db.query('insert into service_details (service_id, service_item_id, check_status) select $1, id, 3 from service_items where is_required', [serviceId]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function pageAs(email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signInAs(page, stack.baseUrl, email, DEMO_PASSWORD);
  await gotoHydrated(page, `${stack.baseUrl}/services/${serviceId}`);
  await page.getByTestId('detail-title').waitFor();
  return page;
}

const steps = (page: Page) => page.locator('[data-testid^="transition-"]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-testid')));

/** Tabs from the top of the page until the element with `testId` has focus (the keyboard reaches it). */
async function tabTo(page: Page, testId: string): Promise<void> {
  await page.locator('body').focus();
  for (let i = 0; i < 120; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === testId) return;
  }
  throw new Error(`Tab never reached ${testId}`);
}

describe('RecordActions', () => {
  it('offers an Admin every step from Requested, a Buddy only theirs', async () => {
    const admin = await pageAs('admin@example.com');
    expect(await steps(admin)).toEqual(['transition-2', 'transition-3', 'transition-5']);
    await admin.context().close();

    const buddy = await pageAs('buddy@example.com');
    expect(await steps(buddy)).toEqual(['transition-2', 'transition-3']);
    // The accessible names are the labels shown.
    await buddy.getByRole('button', { name: 'Mark as booked', exact: true }).waitFor();
    await buddy.getByRole('button', { name: 'Cancel (by bike buddy)', exact: true }).waitFor();
    await buddy.context().close();
  });

  it('asks before a destructive step, and No sends nothing', async () => {
    const page = await pageAs('buddy@example.com');
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('services.transition')) sent.push(request.url());
    });
    await page.getByTestId('transition-3').click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByTestId('confirm-message').getByText('Cancel this service as canceled by the bike buddy? This cannot be undone.').waitFor();
    await dialog.getByRole('heading', { name: 'Change the status?' }).waitFor();
    await screenshot(page, 'record-actions-confirm');
    await dialog.getByRole('button', { name: 'No', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForTimeout(300);
    expect(sent).toEqual([]);
    expect(await page.getByTestId('status-status').first().getAttribute('data-status')).toBe('1');
    await page.context().close();
  });

  it('is reached and run by the keyboard: Enter accepts, Escape answers No, Enter on Yes finishes', async () => {
    const page = await pageAs('buddy@example.com');
    await tabTo(page, 'transition-2');
    await page.keyboard.press('Enter');
    await page.getByTestId('toasts').getByText('The service is now: Booked.').waitFor();
    await page.locator('[data-testid="status-status"][data-status="2"]').first().waitFor();
    expect(await steps(page)).toEqual(['transition-4', 'transition-3']);

    // Finishing is final: the dialog opens with Yes focused; Escape keeps the service as it is.
    await tabTo(page, 'transition-4');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Mark this service as finished?', { exact: false }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('status-status').first().getAttribute('data-status')).toBe('2');

    await tabTo(page, 'transition-4');
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('toasts').getByText('The service is now: Finished.').waitFor();
    await page.locator('[data-testid="status-status"][data-status="4"]').first().waitFor();
    expect(await steps(page)).toEqual([]);
    await page.context().close();
  });
});

/** Issue 20 (ADR 036): the History tab on the same service's page, and the Admin's Activity page. */
describe('History', () => {
  it('shows an admin the change they just made, with its author, in English and Swedish, reached by the keyboard', async () => {
    const page = await pageAs('admin@example.com');
    const form = page.getByTestId('form-services');
    await form.getByLabel('Notes').fill('History check');
    await form.getByTestId('form-save').click();
    await page
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();

    await tabTo(page, 'tab-history');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\?tab=history$/);
    const newest = page.getByTestId('history-entries').locator('li[data-action]').first();
    await newest.getByTestId('history-author').getByText('Ada Admin').waitFor();
    expect(await newest.getByTestId('history-action').innerText()).toBe('Updated');
    expect(await newest.locator('[data-field="notes"]').innerText()).toMatch(/^Notes: .*History check$/s);
    // The buddy's steps of the tests above, by the buddy.
    const steps = page.getByTestId('history-entries').locator('li[data-action="transition"]');
    await steps.first().getByTestId('history-author').getByText('Bo Buddy').waitFor();
    expect(await steps.first().locator('[data-field="status"]').innerText()).toMatch(/Booked.*Finished/s);
    expect(await page.getByTestId('tab-history').getAttribute('aria-current')).toBe('page');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'record-history');

    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByTestId('tab-history').getByText('Historik').waitFor();
    await newest.getByTestId('history-action').getByText('Ändrad').waitFor();
    expect(await newest.locator('[data-field="notes"]').innerText()).toMatch(/^Anteckningar: .*History check$/s);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'record-history-sv');

    // The record itself is a tab away; Back returns to the history.
    await page.getByTestId('tab-record').click();
    await page.getByTestId('form-services').waitFor();
    await page.goBack();
    await page.getByTestId('history-entries').waitFor();
    await page.context().close();
  });

  it('shows the buddy the history of their own service', async () => {
    const page = await pageAs('buddy@example.com');
    await page.getByTestId('tab-history').click();
    await page.getByTestId('history-entries').locator('li[data-action="update"]').first().getByText('Ada Admin').waitFor();
    await page.context().close();
  });

  it('lists every change on the Activity page, filtered by kind of record and person', async () => {
    const page = await pageAs('admin@example.com');
    await page.getByRole('link', { name: /Aktivitet|Activity/ }).click();
    await page.waitForURL(`${stack.baseUrl}/activity`);
    await page.getByTestId('history-entries').waitFor();
    await page.getByTestId('activity-entity').selectOption('services');
    await page.waitForURL(/entity=services/);
    const records = () => page.getByTestId('history-entries').getByTestId('history-record').allInnerTexts();
    // Each service by its title, as its own page heads it (issue 33), its date as the app writes dates: "Service #12 · 20 Nov 2026".
    await expect.poll(async () => (await records()).every((text) => /^Service #\d+ · \d{1,2} [A-Z][a-z]{2} \d{4}$/.test(text))).toBe(true);
    // The person is a type-ahead (issue 33): typing searches the API, the keyboard picks a match.
    const buddy = page.getByRole('combobox', { name: 'Person' });
    await buddy.focus();
    await page.keyboard.type('Bo Bud');
    const matches = page.getByRole('listbox', { name: 'Person' });
    await expect.poll(async () => (await matches.getByRole('option').allInnerTexts()).filter((text) => text !== 'Person: anyone')).toEqual(['Bo Buddy <buddy@example.com>']);
    await page.keyboard.press('ArrowDown');
    expect(await buddy.getAttribute('aria-activedescendant')).toBe(await matches.getByRole('option', { name: 'Bo Buddy <buddy@example.com>' }).getAttribute('id'));
    await page.keyboard.press('Enter');
    await page.waitForURL(/user_id=/);
    await expect.poll(() => buddy.inputValue()).toBe('Bo Buddy <buddy@example.com>');
    expect(await matches.count()).toBe(0);
    // The previous page stays in view until the filtered one arrives.
    await expect.poll(async () => [...new Set(await page.getByTestId('history-entries').getByTestId('history-author').allInnerTexts())]).toEqual(['Bo Buddy']);
    await page.getByTestId('history-entries').locator('li[data-action="transition"]').first().waitFor();
    // The same filters as CSV, through the back office's export route.
    await page.getByTestId('csv-export').click();
    await page.getByTestId('toasts').getByText('Exported 2 rows.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'activity');
    await page.context().close();
  });
  it('names the record of each entry on the Activity page by its name, not its id, in English and Swedish (issue 33)', async () => {
    // This test's own sign-in is an entry about the Admin's account.
    const page = await pageAs('admin@example.com');
    const admin = Number((await stack.upstream.db.query<{ id: number }>("select id from users where email = 'admin@example.com'")).rows[0]!.id);
    await gotoHydrated(page, `${stack.baseUrl}/activity?entity=users&action=sign_in&user_id=${admin}`);
    const first = page.getByTestId('history-entries').getByTestId('history-record').first();
    expect(await first.innerText()).toBe('User Ada Admin');
    expect(await first.getAttribute('href')).toBe(`/users/${admin}`);
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByTestId('history-entries').getByTestId('history-record').first().getByText('Användare Ada Admin', { exact: true }).waitFor();
    await page.getByTestId('language-switch').selectOption('en');
    await page.context().close();
  });
});
