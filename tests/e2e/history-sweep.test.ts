import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import enCommon from '../../locales/en/common.json';
import enResources from '../../locales/en/resources.json';
import svCommon from '../../locales/sv/common.json';
import svResources from '../../locales/sv/resources.json';
import { ENTITIES } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { axeViolations } from '../support/axe.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { gotoHydrated, screenshot, signInAs } from '../support/browser.ts';
import { agent, exportCsv, mutate, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

/**
 * Issue 33 (ADR 065): after changes of every kind — a checklist saved, a photo of a checklist row uploaded, an
 * export of a list and of the history, a sign-in and a failed one, a role given and taken, an action with input,
 * a record created — the History of every entity that has one and the Activity page read as words in English and
 * Swedish: no entry shows JSON, and no label on the Swedish page is a key from the code or English left as it is.
 */
let stack: Stack;
let browser: Browser;
let page: Page;
let api: Agent;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const JSON_LIKE = /\{|\[\{|":/;
// A key as the code names it (`check_status`, `details`): a label always starts with a capital.
const RAW_KEY = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;

function strings(value: unknown): string[] {
  return typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
}
const svTexts = new Set([...strings(svCommon), ...strings(svResources)]);
/** English texts no Swedish text reads the same as: one of them on the Swedish page is untranslated. */
const englishOnly = new Set([...strings(enCommon), ...strings(enResources)].filter((text) => !svTexts.has(text)));

async function ok(path: string, input: unknown) {
  const res = await mutate(api, path, input);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.result.data;
}
const one = async <T>(sql: string, params: unknown[] = []) => (await stack.upstream.db.query<Record<string, T>>(sql, params)).rows[0];

beforeAll(async () => {
  ({ stack, browser } = await startBrowserStack());
  api = agent(stack);
  await signIn(api, 'admin@example.com', DEMO_PASSWORD);
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  // A sign-in through the form, and a failed one with an account's address.
  await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  expect((await mutate(agent(stack), 'auth.login', { email: 'buddy@example.com', password: 'not-the-password-1' })).status).not.toBe(200);
  await makeChangesOfEveryKind();
  // A stack, a browser and a dozen changes, on a shared machine.
}, 240_000);
afterAll(() => closeBrowserStack(browser, stack));

/**
 * Changes of every kind, made once for the file's tests: a checklist saved and a photo of a row uploaded in the
 * browser, the rest through the procedures.
 */
async function makeChangesOfEveryKind() {
  const booked = Number((await one<number>('select id from services where status = 2 order by id limit 1'))!.id);
  await gotoHydrated(page, `${stack.baseUrl}/services/${booked}`);
  const row = page.getByTestId('service-details').locator('li').first();
  await row.getByRole('radio', { name: 'Adjusted & OK' }).click();
  await page.getByTestId('checklist-save').click();
  await page.getByTestId('toasts').getByText(/saved/).waitFor();
  await row.getByTestId('detail-upload').setInputFiles({ name: 'pads.png', mimeType: 'image/png', buffer: PNG });
  await page.getByTestId('toasts').getByText('The image has been added.').waitFor();

  const shop = Number((await one<number>("select id from users where email = 'shop@example.com'"))!.id);
  await ok('users.roles.add', { id: shop, role: 'Admin' });
  await ok('users.roles.remove', { id: shop, key: 'Admin' });
  const group = await ok('trialGroups.create', { name: 'Sweep trial', description: 'History sweep' });
  await ok('trialGroups.invite', { id: group.id, emails: 'sweep-invitee@example.com' });
  const bicycle = Number((await one<number>('select id from bicycles where is_active order by id limit 1'))!.id);
  await ok('bicycles.deactivate', { id: bicycle });
  await ok('bicycles.activate', { id: bicycle });
  expect((await exportCsv(api, 'bicycles', '?search=a')).status).toBe(200);
  expect((await exportCsv(api, 'audit', `?entity=services&record_id=${booked}`)).status).toBe(200);

  const actions = (await stack.upstream.db.query<{ action: string }>('select distinct action from audit_log')).rows.map((r) => r.action);
  for (const kind of ['details.setMany', 'details.images.add', 'export', 'sign_in', 'sign_in_failed', 'roles.add', 'roles.remove', 'create', 'invite', 'deactivate'])
    expect(actions, kind).toContain(kind);
}

/** The record of an entity whose History the sweep reads: the one changed last, else its first. */
async function recordOf(def: EntityDef): Promise<number | undefined> {
  const changed = await one<number>(`select a.record_id as id from audit_log a join ${def.table} r on r.id = a.record_id where a.entity = $1 order by a.id desc limit 1`, [
    def.name,
  ]);
  const id = changed?.id ?? (await one<number>(`select id from ${def.table} order by id limit 1`))?.id;
  return id === undefined ? undefined : Number(id);
}

/** What the sweep finds wrong on the page's history: JSON in an entry, a label left as a key, or (in Swedish) in English. */
async function problemsOn(lang: 'en' | 'sv', where: string): Promise<string[]> {
  const entries = page.getByTestId('history-entries');
  const problems: string[] = [];
  for (const text of await entries.locator('li[data-action]').allInnerTexts()) if (JSON_LIKE.test(text)) problems.push(`${where}: JSON in "${text.slice(0, 200)}"`);
  for (const text of await entries.getByTestId('history-record').allInnerTexts()) if (text.includes('#?')) problems.push(`${where}: record "${text}"`);
  const labels = (await entries.locator('.field, .label').allInnerTexts()).map((text) => text.replace(/:$/, '').trim());
  for (const label of labels) {
    if (RAW_KEY.test(label)) problems.push(`${where}: label "${label}" is a key`);
    if (lang === 'sv' && englishOnly.has(label)) problems.push(`${where}: label "${label}" is English`);
  }
  for (const action of await entries.getByTestId('history-action').allInnerTexts()) {
    if (RAW_KEY.test(action) || action.includes('.')) problems.push(`${where}: action "${action}"`);
    if (lang === 'sv' && englishOnly.has(action)) problems.push(`${where}: action "${action}" is English`);
  }
  return problems;
}

describe('the history sweep (issue 33)', () => {
  for (const lang of ['en', 'sv'] as const)
    it(`reads every entity's History and the Activity page as words in ${lang === 'en' ? 'English' : 'Swedish'}`, async () => {
      await gotoHydrated(page, `${stack.baseUrl}/`);
      await page.getByTestId('language-switch').selectOption(lang);
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      const problems: string[] = [];
      const swept: string[] = [];
      for (const def of ENTITIES as readonly EntityDef[]) {
        if (!def.detailRoute) continue;
        const id = await recordOf(def);
        if (id === undefined) continue;
        await gotoHydrated(page, `${stack.baseUrl}${def.detailRoute.replace(':id', String(id))}?tab=history`);
        const history = page.getByTestId('record-history');
        await history.waitFor();
        if (def.name === 'users') {
          // The account events are hidden until asked for: the sweep reads them too.
          await history.getByTestId('history-account-events').selectOption('shown');
        }
        await history.getByTestId('history-entries').or(history.getByTestId('history-empty')).first().waitFor();
        swept.push(def.name);
        problems.push(...(await problemsOn(lang, `${def.name} #${id}`)));
      }
      expect(swept).toEqual(expect.arrayContaining(['services', 'users', 'bicycles', 'trial-groups']));

      await gotoHydrated(page, `${stack.baseUrl}/activity?account_events=shown&page_size=100`);
      await page.getByTestId('history-entries').waitFor();
      const actions = await page
        .getByTestId('history-entries')
        .locator('li[data-action]')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-action')));
      for (const kind of ['details.setMany', 'details.images.add', 'export', 'sign_in', 'sign_in_failed', 'roles.add']) expect(actions, kind).toContain(kind);
      problems.push(...(await problemsOn(lang, 'activity')));
      expect(problems).toEqual([]);
    });

  it('reads a checklist save, a photo, an export and a sign-in as a person would say them; a failed sign-in is by nobody', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/`);
    await page.getByTestId('language-switch').selectOption('en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await gotoHydrated(page, `${stack.baseUrl}/activity?account_events=shown&page_size=100`);
    const entries = page.getByTestId('history-entries');
    await entries.waitFor();
    const saved = entries.locator('li[data-action="details.setMany"]').first();
    expect(await saved.getByTestId('history-action').innerText()).toBe('Checklist: saved together');
    expect(await saved.locator('[data-field="details"]').innerText()).toMatch(/^Checklist:\s*\S.*: Check status: Adjusted & OK/s);
    const photo = entries.locator('li[data-action="details.images.add"]').first();
    await photo.locator('img.thumb').waitFor();
    expect(await photo.innerText()).not.toContain('http');
    const exported = entries.locator('li[data-action="export"]', { has: page.getByText('Bicycles', { exact: true }) }).first();
    expect(await exported.locator('[data-field="query"]').innerText()).toBe('Filters: Search: a');
    const signedIn = entries.locator('li[data-action="sign_in"]').first();
    expect(await signedIn.getByTestId('history-action').innerText()).toBe('Signed in with password');
    const failed = entries.locator('li[data-action="sign_in_failed"]').first();
    expect(await failed.getByTestId('history-author').innerText()).toBe('Not signed in');
    expect(await failed.innerText()).toContain('E-mail address: buddy@example.com');

    // Off by default: sign-ins do not flood the page; the filter is a control reached by the keyboard.
    await gotoHydrated(page, `${stack.baseUrl}/activity?page_size=100`);
    await entries.waitFor();
    const shown = await entries.locator('li[data-action]').evaluateAll((items) => items.map((li) => li.getAttribute('data-action')));
    expect(shown).not.toContain('sign_in');
    expect(shown).not.toContain('sign_in_failed');
    await page.locator('body').focus();
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'history-account-events';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('ArrowDown');
    await page.waitForURL(/account_events=shown/);
    await entries.locator('li[data-action="sign_in"]').first().waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'activity-account-events');
  });
});
