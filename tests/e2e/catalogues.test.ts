import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, screenshot } from '../support/browser.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';
import { agent, mutate, query, signIn } from '../support/http.ts';

let stack: Stack;
let browser: Browser;
let page: Page;

// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  ({ stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com' }));
});
afterAll(() => closeBrowserStack(browser, stack));

const rowNames = async () => page.getByTestId('list-table').locator('tbody tr td:first-child').allInnerTexts();

describe('catalogues in the browser', () => {
  it('competencies: create, find, edit and delete behind the confirm dialog', async () => {
    await gotoHydrated(page, stack.baseUrl + '/competencies');
    await page.getByTestId('list-new').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('form-save').click();
    await dialog.getByText('This field is required').waitFor();
    await dialog.getByLabel('Name').fill('Hydraulic brakes');
    await dialog.getByLabel('Description').fill('Bleeding and pad changes');
    await dialog.getByTestId('form-save').click();
    await page.getByTestId('toasts').getByText('Hydraulic brakes has been created.').waitFor();
    await page.getByText('Hydraulic brakes', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Edit Hydraulic brakes' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Hydraulic disc brakes');
    await page.getByRole('dialog').getByTestId('form-save').click();
    await page.getByText('Hydraulic disc brakes', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Hydraulic disc brakes' }).click();
    await page.getByTestId('confirm-message').waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).click();
    expect(await rowNames()).toContain('Hydraulic disc brakes');
    await page.getByRole('button', { name: 'Delete Hydraulic disc brakes' }).click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('Hydraulic disc brakes has been deleted.').waitFor();
    expect(await rowNames()).not.toContain('Hydraulic disc brakes');
  });

  it('a dialog form: a field changed on both sides is never saved over; Reload brings the current record; closing with edits asks first', async () => {
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    const created = (await mutate(api, 'competencies.create', { name: 'Suspension', description: 'Forks' })).body.result.data;
    await gotoHydrated(page, stack.baseUrl + '/competencies?search=Suspension');
    await page.getByRole('button', { name: 'Edit Suspension' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Description').fill('Mine');
    // Someone else (here another session of the same admin, which counts as someone else: ADR 063) saves first.
    await mutate(api, 'competencies.update', { id: created.id, version: created.version, data: { name: 'Suspension', description: 'Forks and shocks' } });
    // Whether the live notice or the refused save tells the form first, the field is a conflict, with both values.
    await dialog.getByTestId('form-save').click();
    await dialog.getByTestId('conflict-description').waitFor();
    expect(await dialog.getByTestId('conflict-description-theirs').textContent()).toContain('Forks and shocks');
    expect(await dialog.getByTestId('conflict-description-mine').textContent()).toContain('Mine');
    expect((await query(api, 'competencies.get', { id: created.id })).body.result.data.description).toBe('Forks and shocks');
    await dialog.getByRole('button', { name: 'Reload' }).click();
    await dialog.getByTestId('changed-elsewhere').waitFor({ state: 'detached' });
    expect(await dialog.getByLabel('Description').inputValue()).toBe('Forks and shocks');
    await dialog.getByLabel('Description').fill('Forks, shocks and seatposts');
    await dialog.getByTestId('form-save').click();
    await page.getByTestId('toasts').getByText('Suspension has been saved.').waitFor();
    expect((await query(api, 'competencies.get', { id: created.id })).body.result.data.description).toBe('Forks, shocks and seatposts');

    await page.getByRole('button', { name: 'Edit Suspension' }).click();
    await dialog.getByLabel('Description').fill('Half-typed');
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Unsaved changes' }).waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).click();
    expect(await dialog.getByLabel('Description').inputValue()).toBe('Half-typed');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await query(api, 'competencies.get', { id: created.id })).body.result.data.description).toBe('Forks, shocks and seatposts');
  });

  it('list state (search, sort, page size) lives in the URL and survives a reload', async () => {
    await gotoHydrated(page, stack.baseUrl + '/languages');
    // Sorted by name ascending by default: the first click reverses it.
    await page.getByTestId('sort-name').click();
    await page.waitForURL(/ordering=-name/);
    await page.locator('th[aria-sort="descending"]', { hasText: /^Name$/ }).waitFor();
    await page.getByTestId('page-size').selectOption('10');
    await page.getByTestId('list-search').fill('sw');
    await page.waitForURL(/search=sw/);
    await page.getByText('Page 1 of 1 · 1 result', { exact: true }).waitFor();
    await page.reload();
    await page.getByTestId('list-table').waitFor();
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ ordering: '-name', page_size: '10', search: 'sw' });
    expect(await page.getByTestId('list-search').inputValue()).toBe('sw');
    expect(await rowNames()).toEqual(['sv']);
    await page.goBack();
    await page.waitForURL((u) => !u.searchParams.has('search'));
  });

  it('promo code: §5 messages, duplicate code, and a logo uploaded through the signed address', async () => {
    await gotoHydrated(page, stack.baseUrl + '/promo-codes/new');
    const form = page.getByTestId('form-promo-codes');
    await form.getByLabel('Code').fill('SUMMER');
    await form.getByLabel('Max uses').fill('0');
    await form.getByLabel('Duration (days)').fill('-2');
    await form.getByLabel('Starts at').fill('2026-06-10');
    await form.getByLabel('Expires at').fill('2026-06-01');
    await form.getByTestId('form-save').click();
    await form.getByText('Expires At date needs to be after Start At date.').waitFor();
    await form.getByText('The value cannot be negative.').waitFor();
    await form.getByText('The value must be at least 1.').waitFor();

    await form.getByLabel('Max uses').fill('50');
    await form.getByLabel('Duration (days)').fill('30');
    await form.getByLabel('Expires at').fill('2026-08-31');
    await form.getByLabel('Code').fill('SPRING26');
    await form.getByTestId('form-save').click();
    await form.getByText('This value is already in use.').waitFor();

    await form.getByLabel('Code').fill('SUMMER26');
    await page.getByTestId('upload-company_logo').setInputFiles({ name: 'logo.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await page.getByText('Only JPEG and PNG images can be uploaded.').waitFor();
    await page.getByTestId('upload-company_logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    const logo = form.locator('img[alt="Company logo"]');
    await logo.waitFor();
    expect(await logo.getAttribute('src')).toMatch(/\/files\/company_logo\/[0-9a-f-]+\.png$/);
    expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    await form.getByTestId('form-save').click();
    await page.waitForURL(/\/promo-codes\/\d+$/);
    await page.getByTestId('detail-title').getByText('SUMMER26').waitFor();
    await screenshot(page, 'promo-code-created');
  });

  it('asks before leaving a form with unsaved changes', async () => {
    await gotoHydrated(page, stack.baseUrl + '/companies/1');
    await page.getByTestId('form-companies').getByLabel('Contact person').fill('Someone Else');
    await page.locator('#sidebar').getByRole('link', { name: 'Products' }).click();
    await page.getByRole('heading', { name: 'Unsaved changes' }).waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe('/companies/1');
    expect(await page.getByTestId('form-companies').getByLabel('Contact person').inputValue()).toBe('Someone Else');
    await page.locator('#sidebar').getByRole('link', { name: 'Products' }).click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.waitForURL(stack.baseUrl + '/products');
  });

  it("asks before the browser's Back leaves a form with unsaved changes", async () => {
    await gotoHydrated(page, stack.baseUrl + '/companies');
    await page.getByTestId('list-table').getByRole('link').first().click();
    await page.waitForURL(/\/companies\/\d+$/);
    const detail = page.url();
    const field = page.getByTestId('form-companies').getByLabel('Contact person');
    await field.fill('Changed Person');
    await page.goBack();
    await page.getByRole('heading', { name: 'Unsaved changes' }).waitFor();
    await page.getByRole('button', { name: 'No', exact: true }).click();
    expect(page.url()).toBe(detail);
    expect(await field.inputValue()).toBe('Changed Person');
    await page.goBack();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.waitForURL(stack.baseUrl + '/companies');
    await page.getByTestId('list-table').waitFor();
    // Forward returns to the record (once), now without the unsaved change.
    await page.goForward();
    await page.waitForURL(detail);
    expect(await page.getByTestId('form-companies').getByLabel('Contact person').inputValue()).not.toBe('Changed Person');
  });

  it('shows the catalogue screens in Swedish', async () => {
    await page.getByTestId('language-switch').selectOption('sv');
    await gotoHydrated(page, stack.baseUrl + '/products');
    await page.getByRole('heading', { name: 'Produkter' }).waitFor();
    await page.getByText('89,00 kr').waitFor();
    await page.getByText('£7,50').waitFor();
    await screenshot(page, 'products-sv');
    await page.getByTestId('language-switch').selectOption('en');
  });

  it('a long choice list: the chosen record shows though it is beyond the first page, and a filter finds the others', async () => {
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    // More companies than one choice list holds; the parent sorts after all of them.
    for (let i = 0; i < 100; i += 1) expect((await mutate(api, 'companies.create', { name: `Filler ${String(i).padStart(3, '0')}` })).status).toBe(200);
    const parent = (await mutate(api, 'companies.create', { name: 'Zz Parent', is_main_company: true })).body.result.data;
    const child = (await mutate(api, 'companies.create', { name: 'Aa Child', main_company_id: parent.id })).body.result.data;

    await gotoHydrated(page, `${stack.baseUrl}/companies/${child.id}`);
    const form = page.getByTestId('form-companies');
    const select = form.locator('select[data-field="main_company_id"]');
    await page.waitForFunction(() => (document.querySelector('select[data-field="main_company_id"]') as HTMLSelectElement | null)?.selectedOptions[0]?.text === 'Zz Parent');
    const filter = form.getByTestId('choice-filter-main_company_id');
    await filter.fill('Filler 042');
    await page.waitForFunction(() => document.querySelectorAll('select[data-field="main_company_id"] option').length === 3);
    // The empty choice, the chosen parent (kept while filtered) and the one match.
    expect(await select.locator('option').allInnerTexts()).toEqual(['—', 'Zz Parent', 'Filler 042']);
    await screenshot(page, 'choice-filter');
    await select.selectOption({ label: 'Filler 042' });
    await form.getByTestId('form-save').click();
    await page.getByTestId('toasts').getByText('Aa Child has been saved.').waitFor();
    const saved = (await query(api, 'companies.get', { id: child.id })).body.result.data;
    expect(saved.main_company_id_label).toBe('Filler 042');
  });

  // Issue 33: a long list is walked by first, last and a typed page, not only Previous and Next.
  it('a long list jumps to the first, the last and a typed page, from the keyboard, in English and Swedish', async () => {
    const api = agent(stack);
    await signIn(api, 'admin@example.com', DEMO_PASSWORD);
    for (let i = 0; i < 31; i += 1) expect((await mutate(api, 'companies.create', { name: `Pagewalk ${String(i).padStart(2, '0')}` })).status).toBe(200);
    await gotoHydrated(page, `${stack.baseUrl}/companies?search=Pagewalk&page_size=10&ordering=name`);
    const count = (text: string) => page.getByTestId('list-count').filter({ hasText: text }).waitFor();
    await count('Page 1 of 4 · 31 results');
    const pager = page.getByRole('navigation', { name: 'Pagination' });
    await pager.getByRole('button', { name: 'Last' }).click();
    await count('Page 4 of 4');
    expect(await rowNames()).toEqual(['Pagewalk 30']);
    expect(new URL(page.url()).searchParams.get('page')).toBe('4');
    expect(await pager.getByRole('button', { name: 'Last' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'First' }).click();
    await count('Page 1 of 4');
    expect((await rowNames())[0]).toBe('Pagewalk 00');
    // A typed page, from the keyboard: the field is labelled, Enter goes there.
    const field = pager.getByRole('spinbutton', { name: 'Page' });
    await field.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await count('Page 3 of 4');
    expect((await rowNames())[0]).toBe('Pagewalk 20');
    // Beyond the last: the last.
    await field.fill('400');
    await pager.getByRole('button', { name: 'Go' }).click();
    await count('Page 4 of 4');
    expect(await field.inputValue()).toBe('4');
    expect((await axeViolations(page, '.bo-pager')).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await page.getByTestId('language-switch').selectOption('sv');
    const sv = page.getByRole('navigation', { name: 'Sidnumrering' });
    await sv.getByRole('button', { name: 'Första' }).waitFor();
    await sv.getByRole('spinbutton', { name: 'Sida' }).waitFor();
    expect(await sv.getByRole('button', { name: 'Sista' }).isDisabled()).toBe(true);
    await sv.getByRole('button', { name: 'Gå', exact: true }).waitFor();
    await page.getByTestId('language-switch').selectOption('en');
  });
});
