import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate, formatMoney } from '../../shared/format.ts';
import { proRataRefund, todayUtc } from '../../upstream/lib/refund.ts';
import { gotoHydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { activateAccount } from '../support/browser-stack.ts';
import { DEMO_PASSWORD, latestMail, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** The refund the upstream must pay for cancelling subscription `id` today (ADR 012). */
async function expectedRefund(id: number) {
  const { rows } = await stack.upstream.db.query<{ amount_minor: number; start: string; end: string; currency: 'sek' | 'gbp' }>(
    `select (amount * 100)::bigint as amount_minor, to_char(current_period_start, 'YYYY-MM-DD') as start, to_char(current_period_end, 'YYYY-MM-DD') as end, currency from subscriptions where id = $1`,
    [id],
  );
  const row = rows[0]!;
  const refund = proRataRefund({ amountMinor: Number(row.amount_minor), periodStart: row.start, periodEnd: row.end, today: todayUtc() })!;
  return { ...refund, currency: row.currency };
}

async function activeSubscription(currency: 'sek' | 'gbp'): Promise<number> {
  const { rows } = await stack.upstream.db.query<{ id: number }>(
    "select id from subscriptions where status = 'active' and not cancel_at_period_end and currency = $1 and current_period_end > current_date + 2 order by id limit 1",
    [currency],
  );
  return Number(rows[0]!.id);
}

describe('subscriptions in the browser', () => {
  it('an admin cancels a subscription behind the confirm dialog and sees the refund in kr; dismissing clears it', async () => {
    const id = await activeSubscription('sek');
    const refund = await expectedRefund(id);
    await gotoHydrated(page, stack.baseUrl + '/users');
    await page.getByTestId('tab-subscriptions').click();
    await page.waitForURL(/\/users\?tab=subscriptions$/);
    const row = page.getByTestId(`row-${id}`);
    await row.getByTestId(`cancel-${id}`).click();
    await page.getByRole('heading', { name: 'Cancel subscription' }).waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).click();
    await row.getByText('Active', { exact: true }).waitFor();

    await row.getByTestId(`cancel-${id}`).click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    const feedback = page.getByTestId('subscription-feedback');
    await feedback.getByText(`Subscription #${id} is now canceled.`).waitFor();
    const amount = formatMoney(refund.amountMinor / 100, 'sek', 'en');
    expect(amount).toMatch(/^\d+\.\d\d kr$/);
    await feedback.getByText(`Refunded ${amount} for ${refund.unusedDays} unused of ${refund.periodDays} days.`).waitFor();
    await page.getByTestId('toasts').getByText(`Subscription #${id} has been canceled.`).waitFor();
    await row.getByText('Canceled', { exact: true }).waitFor();
    expect(await row.getByTestId(`cancel-${id}`).count()).toBe(0);
    await screenshot(page, 'subscription-canceled-refund');

    await page.getByTestId('subscription-feedback-reset').click();
    await feedback.waitFor({ state: 'detached' });

    // Issue 13: the refund is listed under the subscription, with who cancelled.
    await row.getByTestId(`refunds-${id}`).click();
    const dialog = page.getByRole('dialog', { name: `Refunds of subscription #${id}` });
    await dialog.waitFor();
    const listed = dialog.locator('tbody tr');
    await listed.first().waitFor();
    expect(await listed.count()).toBe(1);
    await listed.getByRole('cell', { name: amount, exact: true }).waitFor();
    await listed.getByRole('cell', { name: `${refund.unusedDays} of ${refund.periodDays}`, exact: true }).waitFor();
    await listed.getByRole('cell', { name: 'Ada Admin', exact: true }).waitFor();
    await screenshot(page, 'subscription-refunds-dialog');
    await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('an admin sets a subscription to end with its period behind a confirm dialog, sees it flagged, and resumes it (issue 13)', async () => {
    const id = await activeSubscription('sek');
    const { rows } = await stack.upstream.db.query<{ end: string }>("select to_char(current_period_end, 'YYYY-MM-DD') as end from subscriptions where id = $1", [id]);
    const end = formatDate(rows[0]!.end, 'en');
    expect(end).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    await gotoHydrated(page, stack.baseUrl + '/users?tab=subscriptions&f_status=active');
    const row = page.getByTestId(`row-${id}`);
    await row.getByTestId(`cancel-at-end-${id}`).click();
    await page.getByRole('heading', { name: 'Cancel at the end of the period' }).waitFor();
    await page.getByTestId('confirm-message').getByText(`ends on ${end}?`, { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    // What happened, in words: the subscription ends on that day and stays active until then (issue 19).
    await page.getByTestId('toasts').getByText(`Subscription #${id} will end on ${end}; it stays active until then.`).waitFor();
    await page.getByTestId('subscription-ends').getByText(`Subscription #${id} will end on ${end}; it stays active until then, and nothing is refunded.`).waitFor();
    expect(await page.getByTestId('subscription-feedback').innerText()).not.toContain('is now active');
    await row.getByTestId(`ends-${id}`).getByText(`Ends ${end}`).waitFor();
    await row.getByText('Active', { exact: true }).waitFor();
    expect(await row.getByTestId(`cancel-at-end-${id}`).count()).toBe(0);
    expect((await stack.upstream.db.query<{ flagged: boolean }>('select cancel_at_period_end as flagged from subscriptions where id = $1', [id])).rows[0]!.flagged).toBe(true);
    await screenshot(page, 'subscription-cancel-at-period-end');

    // Undo: activate while flagged, shown as "Resume".
    await row.getByTestId(`activate-${id}`).getByText('Resume').click();
    await page.getByRole('heading', { name: 'Keep the subscription' }).waitFor();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText(`Subscription #${id} continues after this period.`).waitFor();
    await row.getByTestId(`ends-${id}`).waitFor({ state: 'detached' });
    await row.getByTestId(`cancel-at-end-${id}`).waitFor();
    expect((await stack.upstream.db.query<{ flagged: boolean }>('select cancel_at_period_end as flagged from subscriptions where id = $1', [id])).rows[0]!.flagged).toBe(false);
  });

  it("lists a subscription's past refunds on its user's page, in Swedish and on a phone (issue 13)", async () => {
    const { rows } = await stack.upstream.db.query<{ id: number; user_id: number; amount_minor: number; unused_days: number; period_days: number }>(
      "select s.id, s.user_id, r.amount_minor, r.unused_days, r.period_days from subscriptions s join subscription_refunds r on r.subscription_id = s.id join users u on u.id = r.created_by where u.email = 'admin@example.com' and s.status = 'canceled' and s.currency = 'sek' order by r.created_at limit 1",
    );
    const seeded = rows[0]!;
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    try {
      await signInAs(small, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
      await small.evaluate(() => localStorage.setItem('lang', 'sv'));
      await small.context().addCookies([{ name: 'lang', value: 'sv', url: stack.baseUrl }]);
      await gotoHydrated(small, stack.baseUrl + `/users/${seeded.user_id}`);
      // By keyboard: the button is reachable and opens the dialog with Enter.
      await small.getByTestId(`refunds-${seeded.id}`).focus();
      await small.keyboard.press('Enter');
      const dialog = small.getByRole('dialog', { name: `Återbetalningar för abonnemang #${seeded.id}` });
      await dialog.waitFor();
      await dialog.getByRole('cell', { name: formatMoney(Number(seeded.amount_minor) / 100, 'sek', 'sv'), exact: true }).waitFor();
      await dialog.getByRole('cell', { name: `${seeded.unused_days} av ${seeded.period_days}`, exact: true }).waitFor();
      await screenshot(small, 'subscription-refunds-phone-sv');
    } finally {
      await phone.close();
    }
  });

  it('in Swedish: a pound subscription is canceled with the refund in £', async () => {
    const id = await activeSubscription('gbp');
    const refund = await expectedRefund(id);
    await page.getByTestId('language-switch').selectOption('sv');
    await gotoHydrated(page, stack.baseUrl + `/users?tab=subscriptions&f_status=active`);
    expect(await page.getByTestId('tab-subscriptions').innerText()).toContain('Abonnemang');
    await page.getByTestId(`cancel-${id}`).click();
    await page.getByRole('heading', { name: 'Avsluta abonnemang' }).waitFor();
    await page.getByRole('button', { name: 'Ja', exact: true }).click();
    const amount = formatMoney(refund.amountMinor / 100, 'gbp', 'sv');
    expect(amount).toMatch(/^£\d+,\d\d$/);
    await page.getByTestId('subscription-feedback').getByText(`Abonnemang #${id} är nu avslutat.`).waitFor();
    // Plan names come in the language asked for.
    await page.getByTestId('list-subscriptions').getByRole('cell', { name: 'En cykel', exact: true }).first().waitFor();
    await page.getByTestId('subscription-refund').getByText(`Återbetalat ${amount} för ${refund.unusedDays} oanvända av ${refund.periodDays} dagar.`).waitFor();
    await screenshot(page, 'subscription-refund-sv');
    await page.getByTestId('language-switch').selectOption('en');
  });

  it("shows a user's subscriptions on the user page", async () => {
    const { rows } = await stack.upstream.db.query<{ user_id: number; id: number }>("select user_id, id from subscriptions where status = 'past_due' limit 1");
    await gotoHydrated(page, stack.baseUrl + `/users/${rows[0]!.user_id}`);
    const list = page.getByTestId('list-subscriptions');
    await list.getByTestId(`row-${rows[0]!.id}`).getByText('Past due').waitFor();
    expect(await list.locator('tbody tr').count()).toBe(1);
  });

  it('the public plan page shows the plan in the language of the link', async () => {
    const guest = await browser.newPage();
    await gotoHydrated(guest, stack.baseUrl + '/subscriptions/single-yearly/sv');
    await guest.getByRole('heading', { name: 'Abonnemang: En cykel, årsvis' }).waitFor();
    await guest.getByText('1 990,00 kr per år · £169,00 per år').waitFor();
    await gotoHydrated(guest, stack.baseUrl + '/subscriptions/single-yearly/en');
    await guest.getByRole('heading', { name: 'Subscription: Single bike, yearly' }).waitFor();
    await gotoHydrated(guest, stack.baseUrl + '/subscriptions/no-such-plan');
    await guest.getByTestId('plan-not-found').waitFor();
    await guest.close();
  });
});

describe('events in the browser', () => {
  it('creates an event after the end-before-start message, adds a slot, and shows the APP.EVENT toasts', async () => {
    await gotoHydrated(page, stack.baseUrl + '/events');
    await page.getByTestId('list-new').click();
    await page.waitForURL(/\/events\/new$/);
    const form = page.getByTestId('form-events');
    await form.getByTestId('form-save').click();
    expect(await form.getByText('This field is required').count()).toBeGreaterThanOrEqual(7);
    await form.getByLabel(/^Name\b/).fill('Autumn check at Green Commute');
    await form.getByLabel('Business').fill('Green Commute Ltd');
    await form.getByLabel('Location').fill('1 Cycle Lane, London');
    await form.getByLabel('Contact person').fill('Amy Fox');
    await form.getByLabel('Contact phone').fill('+44 20 7946 0000');
    await form.getByLabel('Start date').fill('2026-10-12');
    await form.getByLabel('End date').fill('2026-10-10');
    await form.getByLabel('Status').selectOption({ label: 'Published' });
    await form.getByTestId('form-save').click();
    await form.getByText('End date cannot be earlier than the start date.').waitFor();
    await screenshot(page, 'event-end-before-start');

    await form.getByLabel('End date').fill('2026-10-13');
    await form.getByTestId('form-save').click();
    await page.waitForURL(/\/events\/\d+$/);
    await page.getByTestId('toasts').getByText('The event Autumn check at Green Commute has been created.').waitFor();

    const slots = page.getByTestId('list-event-slots');
    await slots.getByTestId('list-new').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Date').fill('2026-10-20');
    await dialog.getByLabel('Start time').fill('09:00');
    await dialog.getByLabel('End time').fill('12:00');
    await dialog.getByTestId('form-save').click();
    await dialog.getByText("The slot must be within the event's dates.").waitFor();
    await dialog.getByLabel('Date').fill('2026-10-12');
    await dialog.getByTestId('form-save').click();
    await slots.getByRole('cell', { name: '12 Oct 2026', exact: true }).waitFor();

    await page.getByTestId('form-events').getByLabel('Location').fill('2 Cycle Lane, London');
    await page.getByTestId('form-events').getByTestId('form-save').click();
    await page.getByTestId('toasts').getByText('The event Autumn check at Green Commute has been saved.').waitFor();
    await screenshot(page, 'event-with-slot');
  });

  it('exports the filtered events list to a CSV with as many rows as the list', async () => {
    await gotoHydrated(page, stack.baseUrl + '/events?f_status=2');
    const total = Number(/· (\d+) results?/.exec(await page.getByTestId('list-count').innerText())![1]);
    expect(total).toBeGreaterThanOrEqual(2);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-export').click()]);
    expect(download.suggestedFilename()).toMatch(/^events-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = readFileSync((await download.path())!, 'utf8')
      .split('\r\n')
      .filter(Boolean);
    expect(rows.length - 1).toBe(total);
    const csv = rows.join('\n');
    expect(csv).toContain('Spring bike check at Nordic Bikes');
    expect(csv).toContain('Green Commute service day');
    expect(csv).not.toContain('Commuter day Solna'); // a draft
    await page.getByTestId('toasts').getByText(`Exported ${total} rows.`).waitFor();
  });

  it('filters bookings by a date range kept in the URL', async () => {
    await gotoHydrated(page, stack.baseUrl + '/event-bookings');
    const all = Number(/· (\d+) results?/.exec(await page.getByTestId('list-count').innerText())![1]);
    const today = todayUtc();
    // From and to in quick succession: the second change must not lose the first.
    await page.getByTestId('filter-date-from').fill(today);
    await page.getByTestId('filter-date-to').fill(today);
    await page.waitForURL((url) => url.searchParams.get('f_date_from') === today && url.searchParams.get('f_date_to') === today, { waitUntil: 'commit' });
    expect(await page.getByTestId('filter-date-from').inputValue()).toBe(today);
    const { rows } = await stack.upstream.db.query<{ n: number }>('select count(*)::int as n from event_bookings where date = $1', [today]);
    const expected = Number(rows[0]!.n);
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(all);
    await page.getByTestId('list-count').getByText(`· ${expected} result`).waitFor();
    const dates = await page
      .getByTestId('list-table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((r) => r.textContent ?? ''));
    expect(dates).toHaveLength(expected);
    // The list writes dates as the app does (ADR 045): "26 Nov 2026".
    expect(dates.every((text) => text.includes(formatDate(today, 'en')))).toBe(true);
    await screenshot(page, 'event-bookings-filtered');
  });

  it('in Swedish: the events screen and its date rule speak Swedish', async () => {
    await page.getByTestId('language-switch').selectOption('sv');
    await gotoHydrated(page, stack.baseUrl + '/events/new');
    const form = page.getByTestId('form-events');
    await form.getByLabel('Startdatum').fill('2026-10-12');
    await form.getByLabel('Slutdatum').fill('2026-10-01');
    await form.getByTestId('form-save').click();
    await form.getByText('Slutdatumet kan inte vara tidigare än startdatumet.').waitFor();
    await gotoHydrated(page, stack.baseUrl + '/events');
    await page.getByRole('heading', { name: 'Evenemang' }).waitFor();
    await page.getByTestId('list-new').getByText('Nytt evenemang').waitFor();
    await page.getByTestId('list-table').getByText('Publicerat').first().waitFor();
    await screenshot(page, 'events-sv');
    await page.getByTestId('language-switch').selectOption('en');
  });
});

describe('trial groups in the browser', () => {
  it('invites by e-mail (VIEW while sending, CREATE after), and the statistics follow the invitation and its acceptance', async () => {
    await gotoHydrated(page, stack.baseUrl + '/trial-groups/1');
    const stat = async (name: 'invited' | 'registered' | 'pending') => Number(await page.getByTestId(`stat-${name}`).innerText());
    const [invited, registered] = [await stat('invited'), await stat('registered')];

    // Hold the invitation for a moment to see the form's VIEW mode.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/trpc/trialGroups.invite**', async (route) => {
      await held;
      await route.continue();
    });
    const form = page.getByTestId('trial-invite-form');
    await form.getByTestId('trial-invite-emails').fill('new.pilot@nordicbikes.example');
    await form.getByTestId('trial-invite-submit').click();
    await page.locator('[data-testid="trial-invite-form"][data-mode="VIEW"]').waitFor();
    expect(await form.getByTestId('trial-invite-emails').getAttribute('readonly')).not.toBeNull();
    release();
    await page.locator('[data-testid="trial-invite-form"][data-mode="CREATE"]').waitFor();
    await page.unroute('**/trpc/trialGroups.invite**');
    await page.getByTestId('trial-invite-results').getByText('invited').waitFor();
    await page.getByTestId('toasts').getByText('1 invitation sent.').waitFor();
    await page.waitForFunction((n) => document.querySelector('[data-testid="stat-invited"]')?.textContent === String(n), invited + 1);
    expect(await stat('registered')).toBe(registered);
    await page.getByTestId('invite-new.pilot@nordicbikes.example').getByText('Invited', { exact: true }).waitFor();
    await screenshot(page, 'trial-group-invited');

    const mail = await latestMail(stack.upstream, 'new.pilot@nordicbikes.example');
    const guest = await browser.newPage();
    await activateAccount(guest, stack, mail.link, 'welcome1');
    await guest.close();

    await page.reload();
    await page
      .getByTestId('stat-registered')
      .getByText(String(registered + 1), { exact: true })
      .waitFor();
    await page.getByTestId('invite-new.pilot@nordicbikes.example').getByText('Registered', { exact: true }).waitFor();
    await page.getByTestId('member-new.pilot@nordicbikes.example').waitFor();
    expect(await page.getByTestId('trial-chart').locator('title').textContent()).toBe('Invited, registered and members');
    await screenshot(page, 'trial-group-registered');
  });

  it('reinvites those not registered behind the confirm dialog, and adds an existing user', async () => {
    await gotoHydrated(page, stack.baseUrl + '/trial-groups/1');
    const pending = Number(await page.getByTestId('stat-pending').innerText());
    expect(pending).toBeGreaterThan(0);
    await page.getByTestId('trial-reinvite').click();
    await page.getByTestId('confirm-message').waitFor();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page
      .getByTestId('toasts')
      .getByText(pending === 1 ? '1 invitation sent again.' : `${pending} invitations sent again.`)
      .waitFor();

    await page.getByTestId('trial-add-user').selectOption({ label: 'Sam Shop <shop@example.com>' });
    await page.getByTestId('trial-add-user-submit').click();
    await page.getByTestId('member-shop@example.com').waitFor();
    await page.getByRole('button', { name: 'Remove Sam Shop from the group' }).click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('member-shop@example.com').waitFor({ state: 'detached' });
  });
});
