import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE, destinationPoint } from '../../shared/geo.ts';
import { gotoHydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import { agent, mutate, query, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * The services flow in the browser, for both roles: an admin schedules a buddy and books a service in a
 * free slot (address found through the geocoder, map tiles from the configured server), booking into a
 * full slot or outside the range is refused with the right message; the buddy, in Swedish, finds the
 * service in their list and calendar, records details with a needs-repair item and finishes it.
 * Third parties (geocoder, tile server) are HTTP-level fakes.
 */
let stack: Stack;
let browser: Browser;
let admin: Page;
let thirdParties: Server;
let thirdPartyOrigin = '';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const centre = DEFAULT_OPERATION_RANGE.centre;
const drottninggatan = destinationPoint(centre, 330, 400);
// Far enough ahead that the demo data has booked nothing, within the demo buddy's schedule.
const day = daysFromToday(45);
let buddyId = 0;
let serviceId = 0;

beforeAll(async () => {
  thirdParties = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/tiles/')) return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/geo/search')
      return void res.end(JSON.stringify([{ display_name: 'Drottninggatan 71, Stockholm', lat: String(drottninggatan.lat), lon: String(drottninggatan.lng) }]));
    res.end(JSON.stringify({ error: 'Unable to geocode' }));
  });
  await new Promise<void>((resolve) => thirdParties.listen(0, '127.0.0.1', resolve));
  thirdPartyOrigin = `http://127.0.0.1:${(thirdParties.address() as { port: number }).port}`;
  [stack, browser] = await Promise.all([
    startStack({ app: { geocoderUrl: `${thirdPartyOrigin}/geo/`, map: { tileUrl: `${thirdPartyOrigin}/tiles/{z}/{x}/{y}.png`, tileAttribution: 'Test tiles' } } }),
    launchBrowser(),
  ]);
  admin = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await signInAs(admin, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  const buddies = await query(await apiAs('admin'), 'users.options', { role: 'Buddy' });
  buddyId = buddies.body.result.data.find((b: { label: string }) => b.label.includes('buddy@example.com')).id;
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  thirdParties?.close();
});

async function apiAs(who: string) {
  const client = agent(stack);
  await signIn(client, `${who}@example.com`, DEMO_PASSWORD);
  return client;
}

describe('services in the browser', () => {
  it('an admin schedules the buddy for an evening through the scheduler', async () => {
    await gotoHydrated(admin, stack.baseUrl + '/bike-buddy-scheduler');
    await admin.getByTestId('list-new').click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByTestId('form-save').click();
    await dialog.getByText('A buddy must be chosen.').waitFor();
    await dialog.getByLabel('Bike buddy').selectOption(String(buddyId));
    await dialog.getByLabel('Date').fill(day);
    await dialog.getByLabel('Service slot').selectOption({ label: 'Evening 16:00–20:00' });
    await dialog.getByLabel('Max services per day').fill('0');
    await dialog.getByTestId('form-save').click();
    await dialog.getByText('The value must be at least 1.').waitFor();
    await dialog.getByLabel('Max services per day').fill('5');
    await dialog.getByTestId('form-save').click();
    await admin
      .getByTestId('toasts')
      .getByText(/has been created/)
      .waitFor();
  });

  it('an admin books a service for the buddy in a free slot, found in the scheduler calendar', async () => {
    await gotoHydrated(admin, `${stack.baseUrl}/bike-buddy-scheduler/calendar?buddy=${buddyId}&date=${day}`);
    const evening = admin.locator(`td[data-date="${day}"][data-slot="3"]`);
    await evening.getByText('Working · 0 booked · max 5/day').waitFor();
    await screenshot(admin, 'scheduler-calendar-admin');
    await evening.getByTestId('calendar-book').click();
    await admin.waitForURL(/\/services\/new\?/);
    const form = admin.getByTestId('form-services');
    expect(await form.getByLabel('Service date').inputValue()).toBe(day);
    expect(await form.getByLabel('Service slot').inputValue()).toBe('3');
    expect(await form.getByLabel('Bike buddy').inputValue()).toBe(String(buddyId));
    await form.getByLabel('Bicycle', { exact: true }).selectOption('1');
    await form.getByLabel('Origin type').selectOption('subscriber_');

    // The map draws the range with tiles from the configured server (allowed by the CSP); a click picks a point.
    const map = form.getByTestId('location-map');
    await map.locator('.leaflet-tile-loaded').first().waitFor();
    await map.click();
    const picked = Number(await form.getByLabel('Latitude').inputValue());
    expect(Math.abs(picked - centre.lat)).toBeLessThan(0.01);

    await form.getByTestId('location-search').fill('Drottninggatan 71');
    await form.getByTestId('location-search').press('Enter');
    await form.getByTestId('location-results').getByText('Drottninggatan 71, Stockholm').click();
    expect(await form.getByLabel('Address', { exact: true }).inputValue()).toBe('Drottninggatan 71, Stockholm');
    expect(Number(await form.getByLabel('Latitude').inputValue())).toBeCloseTo(drottninggatan.lat, 6);
    await form
      .getByTestId('location-status')
      .getByText(/0[.,]4 km from the centre/)
      .waitFor();
    await screenshot(admin, 'service-booking-form');
    await form.getByTestId('form-save').click();
    await admin.waitForURL(/\/services\/\d+$/);
    serviceId = Number(new URL(admin.url()).pathname.split('/').pop());
    await admin
      .getByTestId('toasts')
      .getByText(/has been created/)
      .waitFor();
    await admin.getByTestId('status-status').first().getByText('Booked').waitFor();
  });

  it('booking into a full slot is refused with the capacity message', async () => {
    // The evening slot takes two services: fill it from the API, then try a third in the browser.
    const api = await apiAs('admin');
    const second = await mutate(api, 'services.create', {
      buddy_id: buddyId,
      bicycle_id: 2,
      service_slot_id: 3,
      service_date: day,
      status: 1,
      origin_type: 'b2b',
      latitude: centre.lat,
      longitude: centre.lng,
    });
    expect(second.status, second.text).toBe(200);
    await gotoHydrated(admin, `${stack.baseUrl}/services/new?service_date=${day}&service_slot_id=3&buddy_id=${buddyId}`);
    const form = admin.getByTestId('form-services');
    await form.getByLabel('Bicycle', { exact: true }).selectOption('3');
    await form.getByLabel('Origin type').selectOption('one_off');
    await form.getByLabel('Latitude').fill(String(centre.lat));
    await form.getByLabel('Longitude').fill(String(centre.lng));
    await form.getByTestId('form-save').click();
    await form.getByTestId('form-error').getByText('This slot is fully booked for the bike buddy on this day.').waitFor();
    await form.getByText('This slot is fully booked for the bike buddy on this day.').nth(1).waitFor();
    await screenshot(admin, 'service-slot-full');
  });

  it('booking outside the operation range shows "Please enter a valid address."', async () => {
    await gotoHydrated(admin, `${stack.baseUrl}/services/new?service_date=${daysFromToday(46)}&service_slot_id=1&buddy_id=${buddyId}`);
    const form = admin.getByTestId('form-services');
    await form.getByTestId('form-save').click();
    await form.getByTestId('location-error').getByText('A location must be chosen.').waitFor();
    const outside = destinationPoint(centre, 90, 3800);
    await form.getByLabel('Latitude').fill(String(outside.lat));
    await form.getByLabel('Longitude').fill(String(outside.lng));
    await form.getByTestId('location-error').getByText('Please enter a valid address.').waitFor();
    await form.getByLabel('Bicycle', { exact: true }).selectOption('3');
    await form.getByLabel('Origin type').selectOption('one_off');
    await form.getByTestId('form-save').click();
    await form.getByTestId('location-error').getByText('Please enter a valid address.').waitFor();
    expect(new URL(admin.url()).pathname).toBe('/services/new');
    await screenshot(admin, 'service-outside-range');
  });

  it('the buddy, in Swedish, finds it in their list and calendar, records a needs-repair item and finishes it', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    try {
      await signInAs(page, stack.baseUrl, 'buddy@example.com', DEMO_PASSWORD);
      await page.getByTestId('language-switch').selectOption('sv');
      await gotoHydrated(page, `${stack.baseUrl}/services?f_service_date_from=${day}&f_service_date_to=${day}`);
      await page.getByRole('heading', { name: 'Servicejobb' }).waitFor();
      const row = page.getByTestId('list-table').locator('tbody tr', { has: page.locator(`a[href="/services/${serviceId}"]`) });
      await row.getByText('Bokad').waitFor();
      await row.getByText('Drottninggatan 71, Stockholm').waitFor();
      // Nothing but their own services, and no booking for a buddy.
      expect(await page.getByTestId('list-new').count()).toBe(0);
      await screenshot(page, 'buddy-services-sv');

      await gotoHydrated(page, `${stack.baseUrl}/services/calendar?date=${day}`);
      const chip = page.locator(`td[data-date="${day}"][data-slot="3"]`).locator(`a[href="/services/${serviceId}"]`);
      await chip.waitFor();
      await screenshot(page, 'buddy-calendar-sv');
      await chip.click();
      await page.waitForURL(`${stack.baseUrl}/services/${serviceId}`);

      await page.getByTestId('view-services').getByText('Drottninggatan 71, Stockholm').waitFor();
      const brakes = page.getByTestId('service-details').locator('li', { hasText: 'Bromsar' }).first();
      await brakes.getByRole('checkbox', { name: 'Reparation behövs' }).check();
      await brakes.getByLabel('Anteckningar om Bromsar').fill('Slitna bromsbelägg fram');
      // One form (ADR 043): Save is for the whole checklist; an item changed without a check status is pointed out.
      await page.getByTestId('checklist-save').click();
      await brakes.getByRole('alert').getByText('Välj en kontrollstatus.').waitFor();
      await brakes.getByRole('radio', { name: 'Behöver lagas' }).click();
      expect(await brakes.getByRole('checkbox').isChecked()).toBe(true);
      const details = page.getByTestId('service-details');
      for (const name of ['Däck', 'Belysning']) await details.locator('li', { hasText: name }).first().getByRole('radio', { name: 'Kontrollerad & OK' }).click();
      expect(await page.getByTestId('checklist-save').innerText()).toBe('Spara checklistan (3 ändringar)');
      await page.getByTestId('checklist-save').click();
      await page.getByTestId('toasts').getByText('Checklistan har sparats (3 punkter).').waitFor();
      expect(await page.getByTestId('checklist-progress').innerText()).toBe('3 av 6 besvarade');
      await page
        .getByTestId('service-details')
        .locator('li', { hasText: 'Bromsar' })
        .first()
        .getByTestId('detail-upload')
        .setInputFiles({ name: 'pads.png', mimeType: 'image/png', buffer: PNG });
      await page.getByTestId('toasts').getByText('Bilden har lagts till.').waitFor();
      await page.getByTestId('detail-image').first().waitFor();
      await screenshot(page, 'buddy-service-details-sv');

      await page.getByTestId('transition-4').click();
      await page
        .getByTestId('confirm-message')
        .getByText(/Markera servicejobbet som slutfört/)
        .waitFor();
      await page.getByRole('button', { name: 'Ja', exact: true }).click();
      // Not before its date (ADR 028): the buddy reads why; an Admin may finish it ahead of time, after saying so.
      await page.getByTestId('toasts').getByText('Ett servicejobb kan inte avslutas före sitt datum.').waitFor();
      await gotoHydrated(admin, `${stack.baseUrl}/services/${serviceId}`);
      await admin.getByTestId('transition-4').click();
      await admin.getByRole('button', { name: 'Yes', exact: true }).click();
      await admin
        .getByTestId('confirm-message')
        .getByText(/which has not come yet\. Finish it anyway\?/)
        .waitFor();
      await admin.getByRole('button', { name: 'Yes', exact: true }).click();
      await admin.getByTestId('toasts').getByText('The service is now: Finished.').waitFor();
      await gotoHydrated(page, `${stack.baseUrl}/services/${serviceId}`);
      await page.getByTestId('status-status').first().getByText('Slutförd').waitFor();
      // Finished is final: no more steps, and the checklist is now the record of what was done.
      expect(await page.locator('[data-testid^="transition-"]').count()).toBe(0);
      const done = page.getByTestId('service-details').locator('li', { hasText: 'Bromsar' }).first();
      await done.getByTestId('check-status').getByText('Behöver lagas').waitFor();
      await done.getByText('Slitna bromsbelägg fram').waitFor();
      await screenshot(page, 'buddy-service-finished-sv');

      // A buddy manages their own schedule: the buddy field is theirs and fixed.
      await gotoHydrated(page, `${stack.baseUrl}/bike-buddy-scheduler?tab=away`);
      await page.getByTestId('list-new').click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.getByLabel('Cykelbuddy').inputValue()).toBe('Bo Buddy');
      expect(await dialog.getByLabel('Cykelbuddy').isDisabled()).toBe(true);
      await dialog.getByLabel('Datum').fill(daysFromToday(47));
      await dialog.getByLabel('Servicetid').selectOption({ index: 1 });
      await dialog.getByLabel('Anteckningar').fill('Kurs');
      await dialog.getByTestId('form-save').click();
      await page
        .getByTestId('toasts')
        .getByText(/har skapats/)
        .waitFor();
      await page.getByTestId('list-table').getByText('Kurs').waitFor();
      await screenshot(page, 'buddy-not-working-sv');
    } finally {
      await context.close();
    }
    const api = await apiAs('admin');
    const saved = (await query(api, 'services.get', { id: serviceId })).body.result.data;
    expect(saved).toMatchObject({ status: 4, finished_at: expect.any(String) });
    // Two browsers (the buddy's, then the admin's override of the date rule): longer than one step.
  }, 120_000);

  it('the admin sees the service on the bicycle and its owner, and cancels an expert request', async () => {
    await gotoHydrated(admin, stack.baseUrl + '/bicycles/1');
    await admin.getByTestId('bicycle-history').locator(`a[href="/services/${serviceId}"]`).waitFor();
    const ownerId = (await query(await apiAs('admin'), 'services.get', { id: serviceId })).body.result.data.owner_id;
    await gotoHydrated(admin, `${stack.baseUrl}/users/${ownerId}`);
    await admin.getByTestId('user-services').locator(`a[href="/services/${serviceId}"]`).waitFor();
    await gotoHydrated(admin, `${stack.baseUrl}/users/${buddyId}`);
    await admin.getByTestId('buddy-services').locator(`a[href="/services/${serviceId}"]`).waitFor();

    await gotoHydrated(admin, stack.baseUrl + '/expert');
    await admin.getByRole('heading', { name: 'Bike Expert' }).waitFor();
    const cancel = admin.locator('[data-testid^="cancel-"]').first();
    const id = (await cancel.getAttribute('data-testid'))!.replace('cancel-', '');
    await cancel.click();
    await admin.getByRole('button', { name: 'No', exact: true }).click();
    await cancel.click();
    await admin.getByRole('button', { name: 'Yes', exact: true }).click();
    await admin.getByTestId('toasts').getByText(`Expert request #${id}`, { exact: false }).waitFor();
    await admin.locator(`[data-testid="cancel-${id}"]`).waitFor({ state: 'detached' });
    await screenshot(admin, 'expert-cancelled');
  });

  // Issue 33: a printed service is its content: no header, sidebar, footer, buttons or edit form.
  it('prints a service record without the shell, the buttons and the form', async () => {
    await gotoHydrated(admin, `${stack.baseUrl}/services`);
    await admin.getByTestId('list-table').locator('tbody a[href^="/services/"]').first().click();
    await admin.waitForURL(/\/services\/\d+$/);
    await admin.getByTestId('form-services').waitFor();
    expect(await admin.getByTestId('print-view-services').isVisible()).toBe(false);
    await admin.emulateMedia({ media: 'print' });
    try {
      const view = admin.getByTestId('print-view-services');
      await view.waitFor();
      for (const hidden of ['#sidebar', 'header.app-header', 'footer.app-footer', '[data-testid="form-services"]', '[data-testid="tab-record"]'])
        expect(await admin.locator(hidden).first().isVisible(), hidden).toBe(false);
      const visibleButtons = await admin.locator('main button').evaluateAll((buttons) => buttons.filter((b) => b.getClientRects().length > 0).length);
      expect(visibleButtons).toBe(0);
      expect(await admin.getByTestId('detail-title').isVisible()).toBe(true);
      expect(await view.locator('[data-field="status"]').innerText()).not.toBe('');
    } finally {
      await admin.emulateMedia({ media: 'screen' });
    }
  });
});
