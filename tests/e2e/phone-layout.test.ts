import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE, destinationPoint } from '../../shared/geo.ts';
import { LIVE_PATH } from '../../shared/live.ts';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, screenshotOf, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import { agent, mutate, query, signIn } from '../support/http.ts';
import { PHONE, phoneContext } from '../support/phone.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 13 at phone size (390×844, touch): the shell's drawer (open, close, focus, keyboard), lists as
 * cards, calendars as a day agenda, and the buddy's Today page (order, status steps, confirmation,
 * errors, the map's numbered stops, stops outside the range). The 360 px sweep over every route is in
 * phone-sweep.test.ts.
 */
let stack: Stack;
let browser: Browser;
const today = daysFromToday(0);

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/**
 * A phone signed in as `email` on `landing`. Our service worker is blocked unless `worker` (the dead-spot tests): it
 * fetches every asset of the page again into its cache, in each new context (ADR 077).
 */
async function phonePage(email: string, landing = '/', worker = false): Promise<Page> {
  const context = await phoneContext(browser, PHONE, { serviceWorkers: worker ? 'allow' : 'block' });
  const page = await context.newPage();
  await signInAs(page, stack.baseUrl, email, DEMO_PASSWORD, landing);
  // The router moves to the landing page before it has rendered: wait for the signed-in shell and its data.
  await page.locator('#sidebar').waitFor({ state: 'attached' });
  await page.waitForLoadState('networkidle');
  return page;
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Controls of `selector` in `scope` smaller than a thumb (44 × 44 px), described. */
function smallTargets(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((elements) =>
    elements.flatMap((el) => {
      const r = el.getBoundingClientRect();
      return r.height < 44 || r.width < 44 ? [`${el.tagName} "${(el.textContent ?? '').trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`] : [];
    }),
  );
}

/**
 * The service's checklist on a phone, as one form (ADR 043): big choices measured, answered by taps and the
 * keyboard, saved with one Save in one request; then a photo from the "camera" (a file), removed after asking.
 */
async function answerChecklistOnPhone(page: Page, id: number) {
  await page.locator(`[data-service="${id}"]`).getByTestId('stop-details').tap();
  await page.waitForURL(`${stack.baseUrl}/services/${id}`);
  const form = page.getByTestId('checklist-form');
  await form.waitFor();
  const progress = page.getByTestId('checklist-progress');
  expect(await progress.innerText()).toBe('0 of 6 answered · required still open: Brakes, Lights, Tyres');
  expect(await form.getByTestId('required-item').count()).toBe(3);
  expect(await page.getByTestId('checklist-save').isDisabled()).toBe(true);
  expect(await smallTargets(page, '[data-testid="checklist-form"] :is(label.choice, label.repair, button)')).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  // Taps: Brakes need repair (which ticks "Repair needed"), with a note; Tyres adjusted.
  const item = (name: string) => form.locator(`li[aria-label="${name}"]`);
  await item('Brakes').getByRole('radio', { name: 'Needs repair' }).tap();
  expect(await item('Brakes').getByRole('checkbox', { name: 'Repair needed' }).isChecked()).toBe(true);
  await item('Brakes').getByLabel('Notes on Brakes').fill('Front pads worn');
  await item('Tyres').getByRole('radio', { name: 'Adjusted & OK' }).tap();
  // The keyboard: into Lights' choices, Space chooses, the arrows move the choice; Enter on Save sends it.
  await item('Lights').getByRole('radio').first().focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await item('Lights').getByRole('radio', { name: 'Controlled & OK' }).isChecked()).toBe(true);
  // Passing "Needs repair" on the way ticked the repair flag only while it was chosen.
  expect(await item('Lights').getByRole('checkbox', { name: 'Repair needed' }).isChecked()).toBe(false);
  expect(await progress.innerText()).toBe('3 of 6 answered');
  const save = page.getByTestId('checklist-save');
  expect(await save.innerText()).toBe('Save checklist (3 changes)');
  await screenshot(page, 'phone-checklist');
  // What the buddy sees on the phone's screen: an item's choices and the Save bar.
  await item('Lights').scrollIntoViewIfNeeded();
  await screenshotOf(page, 'phone-checklist-screen');
  expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

  const sent: string[] = [];
  page.on('request', (req) => {
    if (req.url().includes('/trpc/') && req.method() === 'POST') sent.push(new URL(req.url()).pathname);
  });
  await save.focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('toasts').getByText('The checklist has been saved (3 items).').waitFor();
  expect(sent).toEqual(['/trpc/services.details.setMany']);
  expect(await save.isDisabled()).toBe(true);
  expect(await item('Brakes').getByLabel('Notes on Brakes').inputValue()).toBe('Front pads worn');

  // Photos: the camera's file input, thumbnails, removal after a confirmation.
  const input = page.getByTestId('photo-input');
  expect(await input.getAttribute('accept')).toBe('image/jpeg,image/png');
  expect(await input.getAttribute('capture')).toBe('environment');
  expect(await smallTargets(page, '[data-testid="photo-add"]')).toEqual([]);
  await input.setInputFiles({ name: 'front-wheel.png', mimeType: 'image/png', buffer: PNG });
  await page.getByTestId('toasts').getByText('The photo has been added.').waitFor();
  await input.setInputFiles({ name: 'rear-wheel.png', mimeType: 'image/png', buffer: PNG });
  const photos = page.getByTestId('service-photo');
  await photos.nth(1).waitFor();
  const thumb = photos.first().getByRole('img', { name: `Photo 1 of service #${id}` });
  await thumb.scrollIntoViewIfNeeded();
  // The thumbnail is the stored file, served back (decode() waits for a lazily loaded image).
  expect(
    await thumb.evaluate((img: HTMLImageElement) =>
      img.decode().then(
        () => img.naturalWidth > 0,
        () => false,
      ),
    ),
  ).toBe(true);
  expect(await smallTargets(page, '[data-testid="photo-remove"]')).toEqual([]);
  await photos.nth(1).getByRole('button', { name: 'Remove photo 2' }).tap();
  await page.getByTestId('confirm-message').getByText('Remove photo 2 from this service?').waitFor();
  await page.getByRole('button', { name: 'No', exact: true }).tap();
  expect(await photos.count()).toBe(2);
  await photos.nth(1).getByRole('button', { name: 'Remove photo 2' }).tap();
  await page.getByRole('button', { name: 'Yes', exact: true }).tap();
  await page.getByTestId('toasts').getByText('The photo has been removed.').waitFor();
  await photos.nth(1).waitFor({ state: 'detached' });
  expect(await photos.count()).toBe(1);
  await page.getByTestId('service-photos').scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-service-photos');
  await screenshotOf(page, 'phone-service-photos-screen');
  expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

const focusedInSidebar = (page: Page) => page.evaluate(() => Boolean(document.activeElement?.closest('#sidebar')));
const isVisible = (page: Page, selector: string) => page.locator(selector).isVisible();

describe('the shell on a phone', () => {
  it('keeps the sidebar in a drawer: menu button, focus moved in and held, Escape, backdrop and navigation close it', async () => {
    const page = await phonePage('buddy@example.com');
    const menu = page.getByTestId('menu-button');
    expect(await isVisible(page, '#sidebar')).toBe(false);
    expect(await menu.getAttribute('aria-controls')).toBe('sidebar');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // The page is not wider than the phone, and the main column has the whole width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect((await page.locator('#main').boundingBox())!.width).toBe(PHONE.width);
    await screenshot(page, 'phone-buddy-home');

    // Keyboard: skip link, then the menu button; Enter opens the drawer with focus inside it.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#sidebar').getByRole('link', { name: 'Today' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await focusedInSidebar(page)).toBe(true);
    expect(await page.locator('#main').getAttribute('inert')).not.toBeNull();
    await screenshot(page, 'phone-buddy-drawer');
    // Tab and Shift+Tab go round the drawer's items and never leave it.
    const items = await page.locator('#sidebar a, #sidebar button').count();
    for (let i = 0; i < items + 2; i++) {
      await page.keyboard.press('Tab');
      expect(await focusedInSidebar(page), `Tab ${i + 1}`).toBe(true);
    }
    for (let i = 0; i < items + 2; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await focusedInSidebar(page), `Shift+Tab ${i + 1}`).toBe(true);
    }
    // Escape closes it and gives focus back to the menu button.
    await page.keyboard.press('Escape');
    await page.locator('#sidebar').waitFor({ state: 'hidden' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.locator('#main').getAttribute('inert')).toBeNull();

    // The backdrop closes it (a tap beside the drawer).
    await menu.tap();
    await page.getByTestId('drawer-backdrop').waitFor();
    await page.mouse.click(PHONE.width - 10, PHONE.height / 2);
    await page.locator('#sidebar').waitFor({ state: 'hidden' });

    // Choosing a page closes it and navigates.
    await menu.tap();
    await page.locator('#sidebar').getByRole('link', { name: 'Services' }).tap();
    await page.waitForURL(`${stack.baseUrl}/services`);
    await page.locator('#sidebar').waitFor({ state: 'hidden' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await page.context().close();
  });

  it('leaves the desktop layout as it was: a sidebar column and no menu button', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD);
    await page.getByTestId('home-today').waitFor();
    expect(await page.getByTestId('menu-button').isVisible()).toBe(false);
    const side = (await page.locator('#sidebar').boundingBox())!;
    expect(side.x).toBe(0);
    expect(side.width).toBe(248);
    expect(await page.getByTestId('user-full-name').isVisible()).toBe(true);
    await screenshot(page, 'desktop-buddy-home');
    await context.close();
  });
});

describe('lists and calendars on a phone', () => {
  it('shows each record of a list as a labelled card with its actions, and folds the filters away', async () => {
    const page = await phonePage('admin@example.com', '/services');
    const table = page.getByTestId('list-table');
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(3);
    const first = rows.first();
    const box = (await first.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(PHONE.width - 24);
    // One card per row, stacked: the second card is below the first, not beside it.
    expect((await rows.nth(1).boundingBox())!.y).toBeGreaterThan(box.y + box.height - 1);
    // Every value is labelled with its column's name.
    const labels = await first.locator('td:not(.row-actions)').evaluateAll((cells) => cells.map((td) => getComputedStyle(td, '::before').content));
    expect(labels).toEqual(expect.arrayContaining(['"Service date"', '"Status"', '"Bicycle"', '"Address"']));
    // Edit and delete are there, big enough for a thumb.
    const edit = first.getByRole('button', { name: /^Edit/ });
    const editBox = (await edit.boundingBox())!;
    expect(editBox.width).toBeGreaterThanOrEqual(40);
    expect(editBox.height).toBeGreaterThanOrEqual(40);
    // Sorting stays reachable as a row of chips.
    expect(await page.getByTestId('sort-service_date').isVisible()).toBe(true);
    // The filters are folded behind one button; the search stays.
    expect(await page.getByTestId('list-search').isVisible()).toBe(true);
    expect(await page.getByTestId('filter-status').isVisible()).toBe(false);
    await page.getByTestId('filters-toggle').tap();
    await page.getByTestId('filter-status').selectOption('2');
    await page.waitForURL(/f_status=2/);
    await expect.poll(() => page.getByTestId('filters-toggle').innerText()).toContain('Filters (1)');
    await page.getByTestId('list-count').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'phone-admin-services-cards');
    await page.context().close();
  });

  it('shows the users list as cards, e-mails wrapped inside them', async () => {
    const page = await phonePage('admin@example.com', '/users');
    const card = page.getByTestId('list-table').locator('tbody tr').first();
    const box = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    expect(await card.locator('td[data-label="E-mail"]').isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'phone-admin-users-cards');
    await page.context().close();
  });

  it('turns the services calendar into a day agenda: one day in time order, previous and next day', async () => {
    const page = await phonePage('buddy@example.com', '/services/calendar');
    const api = agent(stack);
    await signIn(api, 'buddy@example.com', DEMO_PASSWORD);
    const mine = (await query(api, 'services.calendar', { from: today, to: today, filters: {} })).body.result.data.results as { id: number }[];
    expect(mine.length).toBeGreaterThanOrEqual(5);

    expect(await page.getByTestId('calendar-agenda').isVisible()).toBe(true);
    expect(await page.getByTestId('calendar-week').isVisible()).toBe(false);
    const items = page.getByTestId('agenda-item');
    expect(await items.count()).toBe(mine.length);
    // Morning before afternoon.
    const times = await page.getByTestId('calendar-agenda').locator('[data-agenda-time]').allInnerTexts();
    expect(times.findIndex((t) => t.startsWith('Afternoon'))).toBeGreaterThan(times.findLastIndex((t) => t.startsWith('Morning')));
    const dayLabel = await page.getByTestId('agenda-day').innerText();
    await screenshot(page, 'phone-buddy-calendar-agenda');

    await page.getByTestId('agenda-next').tap();
    await page.waitForURL(new RegExp(`date=${daysFromToday(1)}`));
    await page.waitForFunction((label) => document.querySelector('[data-testid="agenda-day"]')?.textContent !== label, dayLabel);
    await page.getByTestId('agenda-previous').tap();
    await page.waitForURL(new RegExp(`date=${today}`));
    await page.getByTestId('agenda-day').getByText(dayLabel, { exact: true }).waitFor();
    expect(await items.count()).toBe(mine.length);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // The scheduler calendar too: the day's slots with the buddy's shifts.
    await gotoHydrated(page, `${stack.baseUrl}/bike-buddy-scheduler/calendar`);
    expect(await page.getByTestId('calendar-agenda').isVisible()).toBe(true);
    // The shifts arrive with the calendar's own query after hydration: wait for the second before counting.
    await page.getByTestId('calendar-agenda').getByTestId('calendar-work-slot').nth(1).waitFor();
    expect(await page.getByTestId('calendar-agenda').getByTestId('calendar-work-slot').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'phone-buddy-scheduler-agenda');
    await page.context().close();
  });
});

describe("the buddy's Today page", () => {
  it('lists the day in visiting order with address, bicycle and owner; finishing asks, then changes the status', async () => {
    const page = await phonePage('buddy@example.com');
    // The home page leads there first.
    await page.getByTestId('home-today').tap();
    await page.waitForURL(`${stack.baseUrl}/today`);
    await page.getByTestId('today-stops').waitFor();
    const stops = page.getByTestId('today-stops').getByTestId('today-stop');
    expect(await stops.count()).toBe(5);
    const times = await stops.getByTestId('stop-time').allInnerTexts();
    const starts = times.map((t) => /(\d\d:\d\d)/.exec(t)![1]!);
    expect(starts).toEqual([...starts].sort());
    expect(starts).toEqual(['08:00', '08:15', '10:00', '13:00', '15:30']);
    const second = stops.nth(2);
    expect(await second.getByTestId('stop-address').innerText()).toContain('Vasagatan 10');
    expect(await second.getByTestId('stop-address').getAttribute('href')).toMatch(/^https:\/\/www\.google\.com\/maps\/dir\/\?api=1&destination=59\.33/);
    expect(await second.getByTestId('stop-bicycle').innerText()).toMatch(/\(WTU\d+\)/);
    expect(await page.getByTestId('today-summary').innerText()).toContain('5 stops, 1 finished');
    // Thumb-sized actions: the 10:00 stop is booked, so it can be finished or cancelled.
    const finish = second.getByTestId('stop-step-4');
    const box = (await finish.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(48);
    expect(await second.getByTestId('stop-step-2').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // The map below the five stops is not downloaded until the buddy scrolls towards it.
    expect(await page.getByTestId('stops-map').getAttribute('data-ready')).toBeNull();
    expect(await page.evaluate(() => performance.getEntriesByType('resource').some((r) => r.name.includes('leaflet-map-view')))).toBe(false);
    await screenshot(page, 'phone-buddy-today');

    // Finishing with required check items unanswered is refused by the API, and the card says which (ADR 043).
    await finish.tap();
    await page.getByTestId('confirm-message').getByText('Mark this service as finished?').waitFor();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    const refusal = second.getByTestId('stop-error');
    await refusal.getByText('Answer the required check items before finishing the service: Brakes, Lights, Tyres.').waitFor();
    expect(await refusal.getAttribute('role')).toBe('alert');
    expect(await second.getByTestId('status-status').getAttribute('data-status')).toBe('2');
    await screenshot(page, 'phone-today-checklist-refused');

    // The checklist is answered on the service page (one form, below), then Finish goes through.
    const id = Number(await second.getAttribute('data-service'));
    await answerChecklistOnPhone(page, id);
    await gotoHydrated(page, `${stack.baseUrl}/today`);
    await page.locator(`[data-service="${id}"]`).getByTestId('stop-step-4').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    await page.getByTestId('toasts').getByText('The service is now: Finished.').waitFor();
    await page.getByTestId('today-summary').getByText('5 stops, 2 finished').waitFor();
    expect(await stops.nth(2).getByTestId('status-status').getAttribute('data-status')).toBe('4');
    expect(await stops.nth(2).getByTestId('stop-step-4').count()).toBe(0);
    await page.context().close();

    // The photo is in the bicycle's history, for the Admin at the desk.
    const admin = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signInAs(admin, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    const bicycle = (await query(api, 'services.get', { id })).body.result.data.bicycle_id;
    await gotoHydrated(admin, `${stack.baseUrl}/bicycles/${bicycle}`);
    const photo = admin.getByTestId(`history-${id}`).getByTestId('history-photos').getByRole('img');
    await photo.first().waitFor();
    expect(await photo.count()).toBe(1);
    await photo.first().scrollIntoViewIfNeeded();
    expect(
      await photo.first().evaluate((img: HTMLImageElement) =>
        img.decode().then(
          () => img.naturalWidth > 0,
          () => false,
        ),
      ),
    ).toBe(true);
    await screenshot(admin, 'bicycle-history-photo');
    await admin.close();
  }, 120_000);

  it('asks before cancelling; No leaves the stop, Yes moves it to the canceled list', async () => {
    const page = await phonePage('buddy@example.com', '/today');
    const stops = page.getByTestId('today-stops').getByTestId('today-stop');
    const last = stops.last();
    expect(await last.getByTestId('status-status').getAttribute('data-status')).toBe('1');
    const id = await last.getAttribute('data-service');
    // Requested: accept or cancel (as the bike buddy); never "cancel by user or admin" for a buddy.
    expect(await last.getByTestId('stop-step-2').isVisible()).toBe(true);
    expect(await last.getByTestId('stop-step-5').count()).toBe(0);
    await last.getByTestId('stop-step-3').tap();
    await page
      .getByTestId('confirm-message')
      .getByText(/Cancel this service as canceled by the bike buddy\?/)
      .waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).tap();
    await page.getByTestId('confirm-message').waitFor({ state: 'detached' });
    expect(await stops.count()).toBe(5);

    await page.locator(`[data-service="${id}"]`).getByTestId('stop-step-3').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    await page.getByTestId('today-canceled').locator(`[data-service="${id}"]`).waitFor();
    expect(await stops.count()).toBe(4);
    await page.context().close();
  });

  it('shows an error in the card when the service changed meanwhile, and shows its new status', async () => {
    // The day's booked stops have their required check items answered (ADR 043), so another device may finish one.
    await stack.upstream.db.query(
      `insert into service_details (service_id, service_item_id, check_status)
       select s.id, i.id, 3 from services s cross join service_items i
        where s.service_date = $1 and s.status = 2 and i.is_required on conflict do nothing`,
      [today],
    );
    const page = await phonePage('buddy@example.com', '/today');
    // The card is to stay as it was: without live updates (ADR 037), which would otherwise race the tap below.
    await page.route(
      (url) => url.pathname === LIVE_PATH,
      (route) => route.abort(),
    );
    await gotoHydrated(page, `${stack.baseUrl}/today`);
    const id = Number(await page.getByTestId('today-stops').locator('[data-status="2"]').first().getAttribute('data-service'));
    const booked = page.locator(`[data-service="${id}"]`);
    // Someone else finishes it first (another device).
    const api = agent(stack);
    await signIn(api, 'buddy@example.com', DEMO_PASSWORD);
    expect((await mutate(api, 'services.transition', { id, to: 4 })).status).toBe(200);
    await booked.getByTestId('stop-step-3').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    const card = page.locator(`[data-service="${id}"]`);
    await card.getByTestId('stop-error').waitFor();
    expect(await card.getByTestId('stop-error').getAttribute('role')).toBe('alert');
    await card.locator('[data-testid="status-status"][data-status="4"]').waitFor();
    await page.context().close();
  });

  it('maps the stops with numbered markers in the operation range and flags a stop outside it', async () => {
    // A service booked before the range was narrowed: the API would refuse it today, the data keeps it.
    const day = daysFromToday(2);
    const far = destinationPoint(DEFAULT_OPERATION_RANGE.centre, 90, DEFAULT_OPERATION_RANGE.radiusMetres + 1500);
    const { rows } = await stack.upstream.db.query<{ id: number }>(
      `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
       select $1::date, 2, '14:45', 2, u.id, b.id, b.owner_id, 'one_off', 'Lidingövägen 99, Lidingö', $2, $3
         from users u, bicycles b where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) returning id`,
      [day, far.lat, far.lng],
    );
    const page = await phonePage('buddy@example.com', `/today?date=${day}`);
    const stops = page.getByTestId('today-stops').getByTestId('today-stop');
    const count = await stops.count();
    expect(count).toBeGreaterThan(0);
    const outside = page.locator(`[data-service="${rows[0]!.id}"]`);
    expect(await outside.getByTestId('stop-outside').innerText()).toBe('Outside the operation range');
    expect(await page.getByTestId('today-outside-note').isVisible()).toBe(true);
    // One numbered marker per stop, the one outside the range marked.
    const map = page.getByTestId('stops-map');
    await map.scrollIntoViewIfNeeded();
    await page.locator('[data-testid="stops-map"][data-ready="true"]').waitFor();
    const markers = map.locator('.leaflet-marker-icon');
    await markers.nth(count - 1).waitFor();
    expect(await markers.count()).toBe(count);
    expect((await markers.allInnerTexts()).map(Number)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(await map.locator('.stop-marker[data-outside="true"]').count()).toBe(1);
    expect(await map.locator('path.leaflet-interactive, path').count()).toBeGreaterThan(0);
    await screenshot(page, 'phone-buddy-today-map');
    await page.context().close();
  });

  it('in Swedish, and for an Admin every buddy’s day with a buddy to choose', async () => {
    const page = await phonePage('admin@example.com', '/today');
    const all = await page.getByTestId('today-stops').getByTestId('today-stop').count();
    expect(all).toBeGreaterThanOrEqual(5);
    await page.getByTestId('today-buddy').selectOption({ label: 'Bo Buddy <buddy@example.com>' });
    await page.waitForURL(/buddy=\d+/);
    await page.getByTestId('today-summary').waitFor();
    // The chosen buddy's day replaces everyone's once its data has arrived.
    // (While it loads the list may be empty: fewer than all, but not the buddy's day yet.)
    const shown = page.getByTestId('today-stops').getByTestId('today-stop');
    await expect
      .poll(async () => {
        const n = await shown.count();
        return n > 0 && n < all;
      })
      .toBe(true);
    // An Admin may also cancel on the user's behalf.
    await page.getByTestId('today-stops').locator('[data-status="2"]').first().getByTestId('stop-step-5').waitFor();
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByTestId('today-title').getByText('Idag').waitFor();
    await page.getByTestId('today-summary').getByText(/stopp/).waitFor();
    await screenshot(page, 'phone-admin-today-sv');
    await page.getByTestId('language-switch').selectOption('en');
    await page.context().close();
  });

  it("opens the bicycle's history from a stop's card, read-only, loaded only then; another bicycle stays closed", async () => {
    const page = await phonePage('buddy@example.com', '/today');
    const card = page.getByTestId('today-stops').getByTestId('today-stop').first();
    const bicycleId = Number(
      (await stack.upstream.db.query<{ bicycle_id: number }>('select bicycle_id from services where id = $1', [Number(await card.getAttribute('data-service'))])).rows[0]!
        .bicycle_id,
    );
    const loaded = () => page.evaluate(() => performance.getEntriesByType('resource').some((r) => /bicycle-history[^/]*\.js/.test(r.name)));
    expect(await loaded()).toBe(false);
    const toggle = card.getByTestId('stop-history-toggle');
    expect((await toggle.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.tap();
    const history = card.getByTestId('bicycle-history');
    await history.getByRole('heading', { name: 'Service history' }).waitFor();
    await history.locator('[data-testid^="history-"]').first().waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await loaded()).toBe(true);
    // Past services with their findings, and no way into other buddies' services from here.
    expect(await history.innerText()).toMatch(/items? checked|No checklist/);
    expect(await history.locator('a[href^="/services/"]').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'phone-buddy-today-history');
    await toggle.tap();
    expect(await history.count()).toBe(0);

    // The API answers the buddy for this bicycle, and for one on none of their services not at all.
    const api = agent(stack);
    await signIn(api, 'buddy@example.com', DEMO_PASSWORD);
    expect((await query(api, 'bicycles.history.list', { id: bicycleId })).status).toBe(200);
    const { rows } = await stack.upstream.db.query<{ id: number }>(
      "select b.id from bicycles b where not exists (select 1 from services s join users u on u.id = s.buddy_id where s.bicycle_id = b.id and u.email = 'buddy@example.com') limit 1",
    );
    expect((await query(api, 'bicycles.history.list', { id: Number(rows[0]!.id) })).status).toBe(404);
    expect((await query(api, 'bicycles.get', { id: Number(rows[0]!.id) })).status).toBe(404);
    await page.context().close();
  });

  // Issue 33: stops at one address were markers on top of one another; each is now whole and reachable.
  it('sets the markers of stops at one address around it, each one reachable', async () => {
    const day = daysFromToday(6);
    const point = destinationPoint(DEFAULT_OPERATION_RANGE.centre, 200, 800);
    for (const time of ['09:00', '10:00', '11:00'])
      await stack.upstream.db.query(
        `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
         select $1::date, 1, $2::time, 2, u.id, b.id, b.owner_id, 'one_off', 'Hornsgatan 1, Stockholm', $3, $4
           from users u, bicycles b where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles)`,
        [day, time, point.lat, point.lng],
      );
    const page = await phonePage('buddy@example.com', `/today?date=${day}`);
    const map = page.getByTestId('stops-map');
    await map.scrollIntoViewIfNeeded();
    await page.locator('[data-testid="stops-map"][data-ready="true"]').waitFor();
    // This test's three (the demo data may have other stops that day).
    const markers = map.locator('.leaflet-marker-icon[title*="Hornsgatan 1, Stockholm"]');
    await markers.nth(2).waitFor();
    const boxes = await markers.evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2 })));
    expect(boxes).toHaveLength(3);
    for (const [i, a] of boxes.entries()) for (const b of boxes.slice(i + 1)) expect(Math.hypot(a.x - b.x, a.y - b.y), 'markers apart').toBeGreaterThanOrEqual(28);
    // Each marker is the element at its own centre (none covered), and a keyboard stop.
    const reachable = await markers.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)) && el.getAttribute('tabindex') === '0';
      }),
    );
    expect(reachable).toEqual([true, true, true]);
    await page.context().close();
  });

  it('suggests a shorter order of the stops with the distances before and after, and applies it', async () => {
    // Four stops without a time on a line east of the centre, booked out of order (0, 2, 1, 3 km), and one at an
    // agreed time at the end: the suggestion keeps that one last and walks the others along the line.
    const day = daysFromToday(4);
    const east = (km: number) => destinationPoint(DEFAULT_OPERATION_RANGE.centre, 90, km * 1000);
    const ids: number[] = [];
    for (const [km, slot, time] of [
      [0, 1, null],
      [2, 1, null],
      [1, 1, null],
      [3, 1, null],
      [3.5, 2, '13:30'],
    ] as const) {
      const point = east(km);
      const { rows } = await stack.upstream.db.query<{ id: number }>(
        `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
         select $1::date, $2, $3::time, 2, u.id, b.id, b.owner_id, 'one_off', $4, $5, $6
           from users u, bicycles b where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) returning id`,
        [day, slot, time, `Stop ${km} km east`, point.lat, point.lng],
      );
      ids.push(Number(rows[0]!.id));
    }
    const [a, b, c, d, e] = ids as [number, number, number, number, number];
    const page = await phonePage('buddy@example.com', `/today?date=${day}`);
    const order = () =>
      page
        .getByTestId('today-stops')
        .getByTestId('today-stop')
        .evaluateAll((cards) => cards.map((card) => Number(card.getAttribute('data-service'))));
    expect(await order()).toEqual([a, b, c, d, e]);
    const toggle = page.getByTestId('route-toggle');
    expect((await toggle.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await toggle.tap();
    const panel = page.getByTestId('route-panel');
    await panel.waitFor();
    expect(await page.getByTestId('route-distances').innerText()).toMatch(/^Estimated distance between the stops: 5\.5 km now, 3\.5 km in the suggested order\. 2 km shorter\.$/);
    expect(
      await page
        .getByTestId('route-order')
        .locator('li')
        .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-service')))),
    ).toEqual([a, c, b, d, e]);
    // Issue 33: a stop without an agreed time is labelled by its slot, not by the slot's start ("08:00").
    const slotName = String((await stack.upstream.db.query<{ name: string }>('select name from service_slots where id = 1')).rows[0]!.name);
    expect(await page.getByTestId('route-order').locator('li').allInnerTexts()).toEqual([
      `${slotName} · Stop 0 km east`,
      `${slotName} · Stop 1 km east`,
      `${slotName} · Stop 2 km east`,
      `${slotName} · Stop 3 km east`,
      '13:30 · Stop 3.5 km east (agreed time)',
    ]);
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'phone-buddy-today-route');

    await page.getByTestId('route-apply').tap();
    await page.getByTestId('toasts').getByText('The new order of the stops is saved.').waitFor();
    await expect.poll(order).toEqual([a, c, b, d, e]);
    const { rows } = await stack.upstream.db.query<{ id: number; route_position: number }>(
      'select id, route_position from services where id = any($1::bigint[]) order by route_position',
      [ids],
    );
    expect(rows.map((r) => [Number(r.id), Number(r.route_position)])).toEqual([
      [a, 1],
      [c, 2],
      [b, 3],
      [d, 4],
      [e, 5],
    ]);
    // The order stays after a reload, and the map numbers the stops in it; nothing shorter is left to suggest.
    await page.reload();
    await page.getByTestId('today-stops').waitFor();
    expect(await order()).toEqual([a, c, b, d, e]);
    await page.getByTestId('route-toggle').tap();
    await page.getByTestId('route-same').waitFor();

    // In Swedish the distances read in Swedish.
    await page.getByTestId('language-switch').selectOption('sv');
    await page
      .getByTestId('route-distances')
      .getByText(/^Beräknat avstånd mellan stoppen: 3,5 km nu/)
      .waitFor();
    await page.getByTestId('language-switch').selectOption('en');
    await page.context().close();
  });

  it('on a desktop: the stops beside the map', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD, '/today');
    await page.getByTestId('today-stops').waitFor();
    const list = (await page.getByTestId('today-stops').boundingBox())!;
    const map = (await page.getByTestId('stops-map').boundingBox())!;
    expect(map.x).toBeGreaterThan(list.x + list.width - 1);
    await page.locator('[data-testid="stops-map"][data-ready="true"]').waitFor();
    expect((await page.locator('#sidebar').boundingBox())!.width).toBe(248);
    await screenshot(page, 'desktop-buddy-today');
    await context.close();
  });
});

describe('the Today page through a dead spot (issue 19, ADR 042)', () => {
  // A past day of its own (finishing needs the date to have come), three booked stops of the demo buddy.
  const day = daysFromToday(-9);
  let stops: number[] = [];
  beforeAll(async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>(
      `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
       select $1::date, 2, t.time::time, 2, u.id, b.id, b.owner_id, 'one_off', t.address, $2, $3
         from users u, bicycles b, (values ('09:00', 'Drottninggatan 1'), ('11:00', 'Kungsgatan 2'), ('13:00', 'Hamngatan 3')) as t(time, address)
        where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles)
        order by t.time returning id`,
      [day, DEFAULT_OPERATION_RANGE.centre.lat, DEFAULT_OPERATION_RANGE.centre.lng],
    );
    stops = rows.map((r) => r.id);
    await answerRequiredItems(stops);
  });

  /** Finishing needs the required check items answered (ADR 043): answered as another device would have. */
  const answerRequiredItems = (ids: number[]) =>
    stack.upstream.db.query(
      `insert into service_details (service_id, service_item_id, check_status)
       select s.id, i.id, 3 from services s cross join service_items i where s.id = any($1::bigint[]) and i.is_required on conflict do nothing`,
      [ids],
    );

  const transitionsOf = async (id: number) =>
    Number(
      (await stack.upstream.db.query<{ n: number }>("select count(*)::int as n from audit_log where entity = 'services' and record_id = $1 and action = 'transition'", [id]))
        .rows[0]!.n,
    );
  const serviceRow = async (id: number) =>
    (await stack.upstream.db.query<{ status: number; version: number }>('select status, version from services where id = $1', [id])).rows[0]!;
  const hydrated = (page: Page) => page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
  /** Our worker controls the page and has kept the day's page (the assets come with it). */
  async function workerReady(page: Page) {
    await page.waitForFunction(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      if (!registration?.active || new URL(registration.active.scriptURL).pathname !== '/sw.js') return false;
      return Boolean(await (await caches.open('bb-today-v1')).match(location.pathname + location.search, { ignoreVary: true }));
    });
  }

  it('keeps the day offline, shows steps taken offline as pending (also after a reload) and sends each once on reconnect', async () => {
    const [first, second] = stops as [number, number];
    const before = await serviceRow(first);
    const page = await phonePage('buddy@example.com', `/today?date=${day}`, true);
    await workerReady(page);
    // The buddy's next visit goes through the worker, which keeps the page and the day's stops as they come.
    expect((await page.reload())?.fromServiceWorker()).toBe(true);
    await hydrated(page);
    await workerReady(page);
    expect(await page.getByTestId('offline-banner').innerText()).toBe('');

    await page.context().setOffline(true);
    const state = await page.evaluate(async () => [
      Boolean(navigator.serviceWorker.controller),
      (await (await caches.open('bb-today-v1')).keys()).map((r) => r.url),
      localStorage.getItem('bb-offline-user'),
    ]);
    const reloaded = await page.reload().catch((error: unknown) => {
      throw new Error(`offline reload failed; before it: ${JSON.stringify(state)}: ${String(error)}`);
    });
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await hydrated(page);
    const card = (id: number) => page.locator(`[data-service="${id}"]`);
    await card(first).waitFor();
    expect(await page.getByTestId('today-stops').getByTestId('today-stop').count()).toBe(3);
    const banner = page.getByTestId('offline-banner');
    expect(await banner.getAttribute('role')).toBe('status');
    await banner.getByText(/You are offline/).waitFor();

    // Finish the first stop and cancel the second while offline: no "Saving…" left hanging, a pending note instead.
    await card(first).getByTestId('stop-step-4').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    await card(first).getByTestId('stop-pending').getByText('Finish: waiting to be sent (offline).').waitFor();
    await card(second).getByTestId('stop-step-3').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    await card(second).getByTestId('stop-pending').waitFor();
    expect(await card(first).getByTestId('stop-step-3').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'phone-buddy-today-offline');

    // Kept across a reload, still offline; nothing reached the API.
    await page.reload();
    await hydrated(page);
    await card(first).getByTestId('stop-pending').waitFor();
    await card(second).getByTestId('stop-pending').waitFor();
    expect(await transitionsOf(first)).toBe(0);
    expect(await transitionsOf(second)).toBe(0);

    // Back online: both are sent, once each.
    await page.context().setOffline(false);
    await card(first).locator('[data-testid="status-status"][data-status="4"]').waitFor();
    await page.getByTestId('today-canceled').locator(`[data-service="${second}"]`).waitFor();
    await page.locator('[data-testid="offline-banner"]:empty').waitFor({ state: 'attached' });
    expect(await page.getByTestId('stop-pending').count()).toBe(0);
    // A reload and another reconnect send nothing again.
    await page.reload();
    await hydrated(page);
    await page.waitForLoadState('networkidle');
    expect(await transitionsOf(first)).toBe(1);
    expect(await transitionsOf(second)).toBe(1);
    expect(await serviceRow(first)).toEqual({ status: 4, version: before.version + 1 });
    expect((await serviceRow(second)).status).toBe(3);
    expect(await page.evaluate(() => localStorage.getItem('bb-offline-queue'))).toBeNull();
    await page.context().close();
  });

  it('shows a stop the office changed meanwhile as a conflict on its card, and sends nothing of it', async () => {
    const third = stops[2]!;
    const page = await phonePage('buddy@example.com', `/today?date=${day}`, true);
    await workerReady(page);
    await page.context().setOffline(true);
    const card = page.locator(`[data-service="${third}"]`);
    await card.getByTestId('stop-step-4').tap();
    await page.getByRole('button', { name: 'Yes', exact: true }).tap();
    await card.getByTestId('stop-pending').waitFor();
    // Meanwhile the office cancels the stop on the customer's behalf.
    const office = agent(stack);
    await signIn(office, 'admin@example.com', DEMO_PASSWORD);
    expect((await mutate(office, 'services.transition', { id: third, to: 5 })).status).toBe(200);

    await page.context().setOffline(false);
    const conflict = page.getByTestId('today-canceled').locator(`[data-service="${third}"]`).getByTestId('stop-conflict');
    await conflict.waitFor();
    expect(await conflict.getAttribute('role')).toBe('alert');
    expect(await conflict.innerText()).toContain('Finish was not sent: the office changed this stop meanwhile.');
    expect(await conflict.getByTestId('stop-conflict-changes').innerText()).toContain('Booked → Canceled');
    // The status no longer allows finishing: no "Send again", only discarding.
    expect(await conflict.getByTestId('stop-send-again').count()).toBe(0);
    const discard = conflict.getByTestId('stop-discard');
    expect((await discard.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await screenshot(page, 'phone-buddy-today-conflict');
    await discard.tap();
    await conflict.waitFor({ state: 'detached' });
    expect(await serviceRow(third)).toMatchObject({ status: 5 });
    expect(await transitionsOf(third)).toBe(1);
    await page.context().close();
  });

  it("a step refused on reconnect shows the API's own reason and what to do; Send again says why not, then goes through (issue 33)", async () => {
    // A day of its own, two booked stops with the required check items still open.
    const other = daysFromToday(-10);
    const open = (
      await stack.upstream.db.query<{ id: number }>(
        `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
         select $1::date, 1, t.time::time, 2, u.id, b.id, b.owner_id, 'one_off', 'Sveavägen 9', $2, $3
           from users u, bicycles b, (values ('09:00'), ('10:00')) as t(time)
          where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) order by t.time returning id`,
        [other, DEFAULT_OPERATION_RANGE.centre.lat, DEFAULT_OPERATION_RANGE.centre.lng],
      )
    ).rows.map((r) => r.id) as [number, number];
    const [english, swedish] = open;
    const finishOffline = async (page: Page, id: number, yes: string) => {
      await workerReady(page);
      const card = page.locator(`[data-service="${id}"]`);
      // The question's dialog is a chunk of its own, loaded the first time: asked once online (and the worker keeps it).
      await card.getByTestId('stop-step-4').tap();
      await page.getByRole('button', { name: yes, exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('alertdialog').waitFor({ state: 'detached' });
      await page.context().setOffline(true);
      await card.getByTestId('stop-step-4').tap();
      await page.getByRole('button', { name: yes, exact: true }).tap();
      await card.getByTestId('stop-pending').waitFor();
      await page.context().setOffline(false);
      const note = card.locator('[data-testid="stop-conflict"][data-state="failed"]');
      await note.waitFor();
      return { card, note };
    };

    const page = await phonePage('buddy@example.com', `/today?date=${other}`, true);
    const { card, note } = await finishOffline(page, english, 'Yes');
    expect(await note.getAttribute('role')).toBe('alert');
    // The API's reason, not "the office changed this stop", and the way out.
    expect(await note.getByTestId('stop-conflict-reason').innerText()).toBe(
      'Finish was not sent: Answer the required check items before finishing the service: Brakes, Lights, Tyres.',
    );
    expect(await note.getByTestId('stop-conflict-next').innerText()).toBe("Answer those items on the service's checklist, then tap Send again. Open the checklist");
    expect(await note.getByTestId('stop-conflict-checklist').getAttribute('href')).toBe(`/services/${english}`);
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await screenshot(page, 'phone-buddy-today-refused-on-reconnect');
    // Send again with the items still open: refused again, and the card says so.
    await note.getByTestId('stop-send-again').tap();
    await note
      .getByTestId('stop-conflict-retried')
      .getByText(/^Sent again at \d\d:\d\d: refused again\.$/)
      .waitFor();
    expect(await note.getByTestId('stop-conflict-reason').innerText()).toContain('Answer the required check items');
    expect(await serviceRow(english)).toMatchObject({ status: 2 });
    // Answered on another device, Send again finishes the stop.
    await answerRequiredItems([english]);
    await note.getByTestId('stop-send-again').tap();
    await card.locator('[data-testid="status-status"][data-status="4"]').waitFor();
    await note.waitFor({ state: 'detached' });
    expect(await serviceRow(english)).toMatchObject({ status: 4 });
    expect(await transitionsOf(english)).toBe(1);
    await page.context().close();

    // In Swedish, the reason and what to do read in Swedish.
    const sv = await phonePage('buddy@example.com', `/today?date=${other}`, true);
    await sv.context().addCookies([{ name: 'lang', value: 'sv', url: stack.baseUrl }]);
    await sv.reload();
    await hydrated(sv);
    const svNote = (await finishOffline(sv, swedish, 'Ja')).note;
    expect(await svNote.getByTestId('stop-conflict-reason').innerText()).toBe(
      'Slutför skickades inte: Besvara de obligatoriska kontrollpunkterna innan servicen avslutas: Belysning, Bromsar, Däck.',
    );
    expect(await svNote.getByTestId('stop-conflict-next').innerText()).toBe('Besvara de punkterna i servicens checklista och tryck sedan på Skicka igen. Öppna checklistan');
    await svNote.getByTestId('stop-discard').tap();
    await svNote.waitFor({ state: 'detached' });
    expect(await serviceRow(swedish)).toMatchObject({ status: 2 });
    await sv.context().close();
  });

  it('asks before signing out with steps not yet sent, with their number; staying keeps them (issue 33)', async () => {
    const other = daysFromToday(-11);
    const [english, swedish] = (
      await stack.upstream.db.query<{ id: number }>(
        `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
         select $1::date, 1, t.time::time, 2, u.id, b.id, b.owner_id, 'one_off', 'Birger Jarlsgatan 5', $2, $3
           from users u, bicycles b, (values ('09:00'), ('10:00')) as t(time)
          where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) order by t.time returning id`,
        [other, DEFAULT_OPERATION_RANGE.centre.lat, DEFAULT_OPERATION_RANGE.centre.lng],
      )
    ).rows.map((r) => r.id) as [number, number];
    /** Finishes the stop offline (the question's dialog loaded online first), then opens the account menu's sign-out. */
    const keepAndSignOut = async (page: Page, id: number, yes: string, logout: string) => {
      await workerReady(page);
      const card = page.locator(`[data-service="${id}"]`);
      await card.getByTestId('stop-step-4').tap();
      await page.getByRole('button', { name: yes, exact: true }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('alertdialog').waitFor({ state: 'detached' });
      await page.context().setOffline(true);
      await card.getByTestId('stop-step-4').tap();
      await page.getByRole('button', { name: yes, exact: true }).tap();
      await card.getByTestId('stop-pending').waitFor();
      await page.getByTestId('account-menu').tap();
      await page.getByRole('menuitem', { name: logout }).tap();
      return page.getByRole('alertdialog');
    };

    const page = await phonePage('buddy@example.com', `/today?date=${other}`, true);
    const dialog = await keepAndSignOut(page, english, 'Yes', 'Logout');
    await dialog.getByRole('heading', { name: 'Steps not sent yet' }).waitFor();
    expect(await dialog.getByTestId('confirm-message').innerText()).toBe('1 step you took offline has not been sent yet. Signing out deletes it from this phone.');
    // "Stay signed in" has the focus: Enter keeps the session and the step.
    const stay = dialog.getByRole('button', { name: 'Stay signed in' });
    expect(await stay.evaluate((button) => button === document.activeElement)).toBe(true);
    await dialog.getByRole('button', { name: 'Sign out and delete them' }).waitFor();
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await screenshot(page, 'phone-sign-out-kept-steps');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/today');
    await page.locator(`[data-service="${english}"]`).getByTestId('stop-pending').waitFor();
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('bb-offline-queue') ?? '[]').length)).toBe(1);
    await page.context().close();

    const sv = await phonePage('buddy@example.com', `/today?date=${other}`, true);
    await sv.context().addCookies([{ name: 'lang', value: 'sv', url: stack.baseUrl }]);
    await sv.reload();
    await hydrated(sv);
    const svDialog = await keepAndSignOut(sv, swedish, 'Ja', 'Logga ut');
    await svDialog.getByRole('heading', { name: 'Steg som inte skickats än' }).waitFor();
    expect(await svDialog.getByTestId('confirm-message').innerText()).toBe('1 steg du tog offline har inte skickats än. Om du loggar ut raderas det från telefonen.');
    await svDialog.getByRole('button', { name: 'Logga ut och radera dem' }).waitFor();
    await svDialog.getByRole('button', { name: 'Stanna inloggad' }).tap();
    await svDialog.waitFor({ state: 'detached' });
    expect(await sv.evaluate(() => JSON.parse(localStorage.getItem('bb-offline-queue') ?? '[]').length)).toBe(1);
    await sv.context().close();
    // Nothing of either step reached the API.
    expect(await transitionsOf(english)).toBe(0);
    expect(await transitionsOf(swedish)).toBe(0);
  });

  it('carries an Idempotency-Key from the browser to the API: the same key twice is one write, the same answer', async () => {
    const [id] = (
      await stack.upstream.db.query<{ id: number }>(
        `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
         select $1::date, 2, '15:00', 2, u.id, b.id, b.owner_id, 'one_off', 'Sveavägen 4', $2, $3 from users u, bicycles b
          where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) returning id`,
        [day, DEFAULT_OPERATION_RANGE.centre.lat, DEFAULT_OPERATION_RANGE.centre.lng],
      )
    ).rows.map((r) => r.id) as [number];
    await answerRequiredItems([id]);
    const buddy = agent(stack);
    await signIn(buddy, 'buddy@example.com', DEMO_PASSWORD);
    const version = (await serviceRow(id)).version;
    const once = await mutate(buddy, 'services.transition', { id, to: 4, version }).set('idempotency-key', 'e2e-finish-1');
    const twice = await mutate(buddy, 'services.transition', { id, to: 4, version }).set('idempotency-key', 'e2e-finish-1');
    expect(once.status).toBe(200);
    expect(twice.status).toBe(200);
    expect(twice.body).toEqual(once.body);
    expect(await transitionsOf(id)).toBe(1);
    // A batch of several calls cannot share one key.
    const batch = await buddy
      .post('/trpc/services.transition,services.transition?batch=1')
      .set('content-type', 'application/json')
      .set('x-backoffice-csrf', '1')
      .set('idempotency-key', 'e2e-batch')
      .send(JSON.stringify({ 0: { id, to: 3 }, 1: { id, to: 3 } }));
    expect(batch.status).toBe(400);
  });
});
