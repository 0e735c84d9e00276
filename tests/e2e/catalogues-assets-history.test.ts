import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';
import { gotoHydrated, screenshotOf, hydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import { formatDate } from '../../shared/format.ts';
import { agent, mutate, query, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 13's other screens in the browser (ADR 023): assets, the service types catalogue, the rating of a
 * finished service, a bicycle's service history (desktop and phone), the confirm dialog before removing a
 * role or deactivating a user, and the profile language applied at sign-in.
 */
let stack: Stack;
let browser: Browser;
let api: Agent;
let page: Page;
const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } as const;

async function ok<T = any>(path: string, input: unknown): Promise<T> {
  const res = await mutate(api, path, input);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.result.data;
}
const get = async <T = any>(path: string, input: unknown): Promise<T> => (await query(api, path, input)).body.result.data;

/** Gives the page room on a phone-sized screen, whatever the shell does with its sidebar there. */
async function roomForContent(phone: Page) {
  await hydrated(phone);
  const collapse = phone.getByRole('button', { name: 'Collapse sidebar' });
  // A phone layout may have no such button (the shell decides); give the signed-in shell time to load.
  if (
    await collapse.waitFor({ timeout: 5000 }).then(
      () => true,
      () => false,
    )
  )
    await collapse.click();
}
/** How far the page is wider than the phone (a mobile browser would otherwise zoom out to fit it). */
/** What the phone shows without scrolling (a full-page shot of a long page is too small to read). */
const screenful = (p: Page, name: string) => screenshotOf(p, name);
const sideways = (p: Page) => p.evaluate((width) => document.documentElement.scrollWidth - width, PHONE.viewport.width);

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  api = agent(stack);
  await signIn(api, 'admin@example.com', DEMO_PASSWORD);
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('assets', () => {
  it('lists the seeded assets, and a new asset in use needs a buddy before it saves', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/assets`);
    await page.getByRole('heading', { name: 'Assets' }).waitFor();
    const van = page.getByTestId('list-table').locator('tbody tr', { hasText: 'Service van 1' });
    await van.getByText('In use').waitFor();
    await van.getByText('Bo Buddy').waitFor();
    // Van 2's inspection date has passed: flagged beside the date (ADR 041); van 1's lies ahead.
    const late = page.getByTestId('list-table').locator('tbody tr', { hasText: 'Service van 2' });
    await late.getByTestId('overdue-next_inspection').getByText('Overdue').waitFor();
    expect(await van.getByTestId('overdue-next_inspection').count()).toBe(0);
    await screenshot(page, 'assets-list');

    await page.getByTestId('list-new').click();
    await page.waitForURL(`${stack.baseUrl}/assets/new`);
    const form = page.getByTestId('form-assets');
    await form.getByLabel('Name').fill('Cargo bike Babboe');
    await form.getByLabel('Type').selectOption({ label: 'Cargo bike' });
    await form.getByLabel('Serial or registration number').fill('BAB-4410');
    await form.getByLabel('Status').selectOption({ label: 'In use' });
    await form.getByTestId('form-save').click();
    await form.getByText('An asset in use must be assigned to a bike buddy.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/assets/new');
    const buddyChoice = form.getByLabel('Assigned bike buddy');
    await buddyChoice.selectOption((await buddyChoice.locator('option', { hasText: 'buddy@example.com' }).getAttribute('value'))!);
    await form.getByTestId('form-save').click();
    await page.getByTestId('toasts').getByText('Cargo bike Babboe has been created.').waitFor();
    await page.waitForURL(/\/assets\/\d+$/);
    // A second asset with the same serial number is refused on that field.
    await gotoHydrated(page, `${stack.baseUrl}/assets/new`);
    await form.getByLabel('Name').fill('Copy');
    await form.getByLabel('Type').selectOption({ label: 'Other' });
    await form.getByLabel('Serial or registration number').fill('bab-4410');
    await form.getByTestId('form-save').click();
    await form.getByText('This value is already in use.').waitFor();
  });

  it("flags a passed inspection date on the asset's page too", async () => {
    const late = (await get('assets.list', { page: 1, page_size: 10, search: 'DEF 456', filters: {} })).results[0];
    await gotoHydrated(page, `${stack.baseUrl}/assets/${late.id}`);
    await page.getByTestId('form-assets').getByTestId('overdue-next_inspection').getByText('Overdue').waitFor();
  });

  it('reads in Swedish and fits a phone screen', async () => {
    const context = await browser.newContext(PHONE);
    const phone = await context.newPage();
    await signInAs(phone, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD, '/assets');
    await roomForContent(phone);
    await phone.getByTestId('language-switch').selectOption('sv');
    await phone.getByRole('heading', { name: 'Tillgångar' }).waitFor();
    await phone.getByTestId('list-table').getByText('Skåpbil').first().waitFor();
    await phone.getByTestId('list-table').getByText('Försenad').first().waitFor();
    expect(await sideways(phone)).toBeLessThanOrEqual(0);
    await screenful(phone, 'assets-phone-sv');
    await context.close();
  });
});

describe('service types and rating', () => {
  it('the catalogue replaces the fixed list: its types are offered on a service, named per language', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/service-types`);
    const table = page.getByTestId('list-table');
    for (const name of ['Basic', 'Standard', 'Premium', 'Repair', 'E-bike check']) await table.getByText(name, { exact: true }).first().waitFor();
    await table.getByText('Reparation', { exact: true }).waitFor();
    await screenshot(page, 'service-types');
    const service = (await get('services.list', { page: 1, page_size: 10, filters: { status: '2' } })).results[0];
    await gotoHydrated(page, `${stack.baseUrl}/services/${service.id}`);
    const select = page.getByTestId('form-services').getByLabel('Service type');
    const options = await select.locator('option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(['Basic', 'Repair', 'E-bike check']));
    // The discontinued type is not offered for a new choice (ADR 041).
    expect(options.some((o) => o.includes('Winter tyres fitted'))).toBe(false);

    // A type the service has, made inactive afterwards: the form still shows it chosen, marked inactive.
    const input = { name_en: 'Saddle fitting', name_sv: 'Sadelanpassning', duration_minutes: 30, price_sek: 250, is_active: true };
    const type = await ok<{ id: number; version: number }>('serviceTypes.create', input);
    await page.reload();
    await hydrated(page);
    await select.selectOption({ label: 'Saddle fitting' });
    await page.getByTestId('form-services').getByTestId('form-save').click();
    await page
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();
    await ok('serviceTypes.update', { id: type.id, version: type.version, data: { ...input, is_active: false } });
    await page.reload();
    await hydrated(page);
    await select.locator('option', { hasText: 'Saddle fitting (inactive)' }).waitFor({ state: 'attached' });
    expect(await select.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent)).toBe('Saddle fitting (inactive)');
  });

  it('an admin rates a finished service: 6 is refused on the field, 4 is saved and shown in the list', async () => {
    const finished = (await get('services.list', { page: 1, page_size: 100, ordering: '-service_date', filters: { status: '4' } })).results.find(
      (s: { rating: number | null }) => s.rating === null,
    );
    await gotoHydrated(page, `${stack.baseUrl}/services/${finished.id}`);
    const form = page.getByTestId('form-services');
    await form.getByLabel('Rating').fill('6');
    await form.getByTestId('form-save').click();
    await form.getByText('The value must be at most 5.').waitFor();
    expect((await get('services.get', { id: finished.id })).rating).toBeNull();
    await form.getByLabel('Rating').fill('4');
    await form.getByTestId('form-save').click();
    await page
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();
    expect((await get('services.get', { id: finished.id })).rating).toBe(4);
    await gotoHydrated(page, `${stack.baseUrl}/services?ordering=-rating&f_status=4`);
    const row = page.getByTestId(`row-${finished.id}`);
    await row.waitFor();
    expect(await page.getByTestId('list-table').locator('th', { hasText: 'Rating' }).count()).toBe(1);
  });
});

describe('bicycle service history', () => {
  const bicycle = 2;
  const created: number[] = [];
  beforeAll(async () => {
    // Eleven services for the bicycle on days the demo buddy works and has nothing booked.
    const buddy = (await get<{ id: number; label: string }[]>('users.options', { role: 'Buddy' })).find((b) => b.label.includes('buddy@example.com'))!.id;
    const types = (await get('serviceTypes.list', { page: 1, page_size: 25, filters: {} })).results as { id: number; name_en: string }[];
    for (let i = 0; i < 11; i++) {
      const service = await ok('services.create', {
        service_date: daysFromToday(40 + i),
        service_slot_id: 1,
        status: 2,
        buddy_id: buddy,
        bicycle_id: bicycle,
        origin_type: 'one_off',
        address: 'Sergels torg',
        latitude: DEFAULT_OPERATION_RANGE.centre.lat,
        longitude: DEFAULT_OPERATION_RANGE.centre.lng,
        service_type_id: types.find((t) => t.name_en === (i % 2 ? 'Basic' : 'Premium'))!.id,
        notes: i === 10 ? 'Chain replaced, customer happy' : null,
      });
      created.push(service.id);
    }
    // The newest one was done: four items checked (the three required among them, ADR 043), one needing repair,
    // finished and rated 5.
    const newest = created[10]!;
    await ok('services.details.set', { id: newest, key: 1, check_status: 1, needs_repair: true, notes: 'Pads worn' });
    await ok('services.details.setMany', {
      id: newest,
      items: [2, 4, 5].map((key) => ({ key, check_status: 2, needs_repair: false })),
    });
    // Ahead of its date, so finished by the Admin's explicit override (ADR 028).
    const finished = await ok('services.transition', { id: newest, to: 4, force: true });
    await ok('services.update', { id: newest, version: finished.version, data: { ...pick(finished), rating: 5 } });
  });
  const pick = (record: Record<string, unknown>) =>
    Object.fromEntries(
      [
        'service_date',
        'service_slot_id',
        'service_time',
        'status',
        'buddy_id',
        'bicycle_id',
        'origin_type',
        'service_type_id',
        'operational_range_id',
        'address',
        'latitude',
        'longitude',
        'notes',
        'rating',
      ].map((k) => [k, record[k]]),
    );

  it('shows the newest first with type, status, buddy, findings and rating, paged, each linking to its service', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/bicycles/${bicycle}`);
    const history = page.getByTestId('bicycle-history');
    await history.getByRole('heading', { name: 'Service history' }).waitFor();
    const rows = history.locator('tbody tr');
    expect(await rows.count()).toBe(10);
    const first = history.getByTestId(`history-${created[10]}`);
    expect(await rows.first().getAttribute('data-testid')).toBe(`history-${created[10]}`);
    await first.getByText(formatDate(daysFromToday(50), 'en')).waitFor();
    await first.getByText('Premium').waitFor();
    await first.getByText('Finished').waitFor();
    await first.getByText('Bo Buddy').waitFor();
    await first.getByText('4 items checked').waitFor();
    await first.getByText('1 needs repair').waitFor();
    await first.getByText('“Chain replaced, customer happy”').waitFor();
    expect(await first.getByLabel('Rated 5 of 5').innerText()).toContain('5/5');
    // Dates read as the app writes them ("25 Nov 2026"); their order is checked on the machine-readable <time>.
    const dates = await rows.locator('td:first-child time').evaluateAll((times) => times.map((time) => time.getAttribute('datetime')!));
    expect(dates).toEqual([...dates].sort().reverse());
    await screenshot(page, 'bicycle-history');

    await history.getByTestId('page-next').click();
    await page.waitForURL(/history_page=2/);
    await history.getByText('Page 2 of', { exact: false }).waitFor();
    const older = await history.locator('tbody tr td:first-child time').evaluateAll((times) => times.map((time) => time.getAttribute('datetime')!));
    expect(older.every((d) => d <= dates[dates.length - 1]!)).toBe(true);
    await page.reload();
    await history.getByText('Page 2 of', { exact: false }).waitFor();

    await gotoHydrated(page, `${stack.baseUrl}/bicycles/${bicycle}`);
    await history
      .getByTestId(`history-${created[10]}`)
      .getByRole('link', { name: formatDate(daysFromToday(50), 'en') })
      .click();
    await page.waitForURL(`${stack.baseUrl}/services/${created[10]}`);
  });

  it('reads in Swedish on a phone, one block per service and no sideways page', async () => {
    const context = await browser.newContext(PHONE);
    const phone = await context.newPage();
    await signInAs(phone, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD, `/bicycles/${bicycle}`);
    await roomForContent(phone);
    await phone.getByTestId('language-switch').selectOption('sv');
    const history = phone.getByTestId('bicycle-history');
    await history.getByRole('heading', { name: 'Servicehistorik' }).waitFor();
    const first = history.getByTestId(`history-${created[10]}`);
    await first.getByText('Slutförd').waitFor();
    await first.getByText('1 behöver repareras').waitFor();
    await history.getByRole('heading', { name: 'Servicehistorik' }).scrollIntoViewIfNeeded();
    expect(await sideways(phone)).toBeLessThanOrEqual(0);
    await screenful(phone, 'bicycle-history-phone-sv');
    await context.close();
  });
});

describe('confirm before removing a role or deactivating a user (issue 13)', () => {
  it('No sends nothing and keeps the role; Yes removes it', async () => {
    const user = (await get('users.list', { page: 1, page_size: 10, search: 'user@example.com', filters: {} })).results[0] as { id: number };
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/trpc/users.')) sent.push(new URL(r.url()).pathname);
    });
    await gotoHydrated(page, `${stack.baseUrl}/users/${user.id}`);
    const customer = page.getByTestId('user-roles').getByLabel('Customer');
    expect(await customer.isChecked()).toBe(true);
    sent.length = 0;
    await customer.click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Remove the role Customer from Una User? They lose access to what the role opens.').waitFor();
    await screenshot(page, 'confirm-remove-role');
    await dialog.getByRole('button', { name: 'No', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await customer.isChecked()).toBe(true);
    expect(sent.filter((p) => !p.endsWith('users.get'))).toEqual([]);
    expect((await get('users.get', { id: user.id })).roles).toContain('Customer');

    await customer.click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('Role Customer removed.').waitFor();
    expect((await get('users.get', { id: user.id })).roles).not.toContain('Customer');
    // Giving a role back asks nothing.
    await customer.click();
    await page.getByTestId('toasts').getByText('Role Customer assigned.').waitFor();
    expect(await page.getByRole('alertdialog').count()).toBe(0);
  });

  it('deactivating asks first: No leaves the user active and unsaved, Yes saves it', async () => {
    const user = (await get('users.list', { page: 1, page_size: 10, search: 'user@example.com', filters: {} })).results[0] as { id: number };
    await gotoHydrated(page, `${stack.baseUrl}/users/${user.id}`);
    const form = page.getByTestId('user-form');
    await form.getByLabel('Active').uncheck();
    await form.getByTestId('user-save').click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Deactivate Una User? They can no longer sign in until the account is activated again.').waitFor();
    await dialog.getByRole('button', { name: 'No', exact: true }).click();
    expect((await get('users.get', { id: user.id })).is_active).toBe(true);

    await form.getByTestId('user-save').click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('user@example.com has been saved.').waitFor();
    expect((await get('users.get', { id: user.id })).is_active).toBe(false);
    // Activating again needs no question.
    await page.getByTestId('user-form').getByLabel('Active').check();
    await page.getByTestId('user-form').getByTestId('user-save').click();
    await page.getByTestId('toasts').getByText('user@example.com has been saved.').last().waitFor();
    await expect.poll(async () => (await get('users.get', { id: user.id })).is_active).toBe(true);
    expect(await page.getByRole('alertdialog').count()).toBe(0);
  });
});

describe('the profile language at sign-in (ADR 023)', () => {
  let email = '';
  beforeAll(async () => {
    const { rows } = await stack.upstream.db.query<{ email: string }>(
      "select u.email from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id where r.name = 'Buddy' and u.email not in ('buddy@example.com', 'shop@example.com') order by u.id limit 1",
    );
    email = rows[0]!.email;
    await stack.upstream.db.query("update users set language = 'sv' where email = $1", [email]);
  });

  it('a user whose profile is in Swedish signs in from an English sign-in page and gets Swedish, after a reload too', async () => {
    const context = await browser.newContext();
    const person = await context.newPage();
    await gotoHydrated(person, `${stack.baseUrl}/login`);
    expect(await person.locator('html').getAttribute('lang')).toBe('en');
    expect(await person.evaluate(() => localStorage.getItem('lang'))).toBe('en');
    await person.getByLabel('E-mail').fill(email);
    await person.getByLabel('Password').fill(DEMO_PASSWORD);
    await person.getByTestId('login-submit').click();
    await person.waitForURL(`${stack.baseUrl}/`);
    await person.locator('#sidebar').getByText('Servicejobb').waitFor();
    expect(await person.evaluate(() => localStorage.getItem('lang'))).toBe('sv');
    await person.reload();
    await person.locator('#sidebar').getByText('Servicejobb').waitFor();
    expect(await person.locator('html').getAttribute('lang')).toBe('sv');
    await screenshot(person, 'signed-in-profile-language-sv');
    await context.close();
  });

  it('the same without JavaScript (the form post): the page after sign-in is Swedish', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const person = await context.newPage();
    await person.goto(`${stack.baseUrl}/login`);
    await person.getByLabel('E-mail').fill(email);
    await person.getByLabel('Password').fill(DEMO_PASSWORD);
    await person.getByTestId('login-submit').click();
    await person.waitForURL(`${stack.baseUrl}/`);
    expect(await person.locator('html').getAttribute('lang')).toBe('sv');
    await person.locator('#sidebar').getByText('Servicejobb').waitFor();
    await context.close();
  });

  it('a Swedish page left in local storage does not override the profile of the next person to sign in', async () => {
    const context = await browser.newContext();
    const person = await context.newPage();
    await gotoHydrated(person, `${stack.baseUrl}/login`);
    await person.getByTestId('language-switch').selectOption('sv');
    await person.getByRole('button', { name: 'Logga in', exact: true }).waitFor();
    // The demo admin's profile is in English.
    await person.getByLabel('E-post').fill('admin@example.com');
    await person.getByLabel('Lösenord').fill(DEMO_PASSWORD);
    await person.getByTestId('login-submit').click();
    await person.waitForURL(`${stack.baseUrl}/`);
    await person.locator('#sidebar').getByText('Services', { exact: true }).waitFor();
    await person.reload();
    expect(await person.locator('html').getAttribute('lang')).toBe('en');
    expect(await person.evaluate(() => localStorage.getItem('lang'))).toBe('en');
    await context.close();
  });
});
