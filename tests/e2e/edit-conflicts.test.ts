import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import en from '../../locales/en/common.json';
import sv from '../../locales/sv/common.json';
import { setUserRoles } from '../../upstream/users.ts';
import { axeViolations } from '../support/axe.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { gotoHydrated, screenshot, signInAs } from '../support/browser.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

/**
 * One edit-conflict behaviour for every form (ADR 063): a record saved elsewhere while a form holds unsaved
 * edits — by another admin, or by the same admin in another tab — never empties the edits and is never
 * overwritten silently. The notice names each field both changed, with their value and yours, and saving
 * waits for a choice per field; the save then carries the new version. A save refused as stale (409) is
 * merged the same way.
 */
let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];

const TEXTS = { en, sv } as const;
type Lang = keyof typeof TEXTS;

beforeAll(async () => {
  ({ stack, browser } = await startBrowserStack());
  // A second Admin: shop@example.com, for "another admin".
  const { rows } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'shop@example.com'");
  await setUserRoles(stack.upstream.db, Number(rows[0]!.id), ['Admin']);
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await closeBrowserStack(browser, stack);
});

/** Users no other test here edits: each test takes the next. */
let taken = 0;
async function nextUser(): Promise<{ id: number; email: string }> {
  const { rows } = await stack.upstream.db.query<{ id: number; email: string }>(
    "select id, email from users where email not in ('admin@example.com', 'shop@example.com', 'buddy@example.com', 'user@example.com') order by id offset $1 limit 1",
    [taken++],
  );
  return { id: Number(rows[0]!.id), email: rows[0]!.email };
}

const userRow = async (id: number) =>
  (await stack.upstream.db.query<{ city: string | null; biography: string | null; version: number }>('select city, biography, version from users where id = $1', [id])).rows[0]!;

/** A browser of its own (cookies, storage), signed in as `email`, reading `lang`. */
async function signedIn(email: string, lang: Lang): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  contexts.push(context);
  const page = await context.newPage();
  await signInAs(page, stack.baseUrl, email, DEMO_PASSWORD);
  if (lang !== 'en') await page.getByTestId('language-switch').selectOption(lang);
  return page;
}

/** Opens `path` and waits for its live stream (loaded once the page is idle) to answer. */
async function openLive(page: Page, path: string) {
  const streaming = page.waitForResponse((res) => new URL(res.url()).pathname === '/live' && res.status() === 200, { timeout: 15_000 });
  await gotoHydrated(page, stack.baseUrl + path);
  await streaming;
}

const field = (page: Page, name: string) => page.getByTestId('user-form').locator(`[name="${name}"]`);

async function saveUser(page: Page, lang: Lang, email: string) {
  await page.getByTestId('user-form').getByTestId('user-save').click();
  await page.getByTestId('toasts').getByText(TEXTS[lang].form.saved.replace('{{name}}', email)).last().waitFor();
}

/** The notice's row of `name`: their value and yours, each after its word. */
async function expectConflictRow(page: Page, lang: Lang, name: string, label: string, theirs: string, mine: string) {
  const t = TEXTS[lang].editConflict;
  const row = page.getByTestId('changed-elsewhere').getByRole('group', { name: label });
  expect(await row.getByTestId(`conflict-${name}-theirs`).innerText()).toBe(`${t.theirs}: ${theirs}`);
  expect(await row.getByTestId(`conflict-${name}-mine`).innerText()).toBe(`${t.yours}: ${mine}`);
  return row;
}

describe.each(['en', 'sv'] as const)('edit conflicts (%s)', (lang) => {
  const t = TEXTS[lang];

  it("two admins: B's unsaved edits survive A's save, the field both changed waits for B's choice, and B's save carries A's version", { timeout: 150_000 }, async () => {
    const user = await nextUser();
    const [a, b] = [await signedIn('admin@example.com', lang), await signedIn('shop@example.com', lang)];
    await openLive(b, `/users/${user.id}`);
    await gotoHydrated(a, `${stack.baseUrl}/users/${user.id}`);
    await field(b, 'biography').fill(`Biography by B (${lang})`);
    await field(b, 'city').fill(`B town ${lang}`);

    await field(a, 'city').fill(`A town ${lang}`);
    await saveUser(a, lang, user.email);

    const notice = b.getByTestId('changed-elsewhere');
    await notice.getByText(t.editConflict.changedElsewhere).waitFor({ timeout: 10_000 });
    const row = await expectConflictRow(b, lang, 'city', t.users.fields.city, `A town ${lang}`, `B town ${lang}`);
    // The edits are all still there; only the field both changed is asked about.
    expect(await field(b, 'biography').inputValue()).toBe(`Biography by B (${lang})`);
    expect(await field(b, 'city').inputValue()).toBe(`B town ${lang}`);
    expect(await notice.getByTestId('conflict-biography').count()).toBe(0);
    expect(await axeViolations(b, '[data-testid="changed-elsewhere"]')).toEqual([]);
    await screenshot(b, `edit-conflict-two-admins-${lang}`);

    // Saving before choosing saves nothing and says why.
    await b.getByTestId('user-form').getByTestId('user-save').click();
    await notice.getByTestId('conflict-undecided').getByText(t.editConflict.decideFirst).waitFor();
    expect((await userRow(user.id)).city).toBe(`A town ${lang}`);

    await row.getByRole('button', { name: t.editConflict.keepMine }).click();
    await notice.waitFor({ state: 'detached' });
    const before = (await userRow(user.id)).version;
    await saveUser(b, lang, user.email);
    const saved = await userRow(user.id);
    expect(saved).toEqual({ city: `B town ${lang}`, biography: `Biography by B (${lang})`, version: before + 1 });
  });

  it('the same admin in two tabs: the second tab is told of the first tab’s save as of anyone else’s', { timeout: 150_000 }, async () => {
    const user = await nextUser();
    const first = await signedIn('admin@example.com', lang);
    const second = await first.context().newPage();
    await openLive(second, `/users/${user.id}`);
    await gotoHydrated(first, `${stack.baseUrl}/users/${user.id}`);
    await field(second, 'city').fill(`Second tab ${lang}`);
    await field(second, 'biography').fill(`Second tab's biography (${lang})`);

    await field(first, 'city').fill(`First tab ${lang}`);
    await field(first, 'post_code').fill('111 22');
    await saveUser(first, lang, user.email);

    const notice = second.getByTestId('changed-elsewhere');
    await notice.waitFor({ timeout: 10_000 });
    const row = await expectConflictRow(second, lang, 'city', t.users.fields.city, `First tab ${lang}`, `Second tab ${lang}`);
    // The post code only the first tab changed is in the form now, and the notice says so.
    await notice.getByTestId('changed-elsewhere-taken').getByText(t.users.fields.post_code).waitFor();
    expect(await field(second, 'post_code').inputValue()).toBe('111 22');
    expect(await axeViolations(second, '[data-testid="changed-elsewhere"]')).toEqual([]);
    await screenshot(second, `edit-conflict-two-tabs-${lang}`);

    await row.getByRole('button', { name: t.editConflict.useTheirs }).click();
    expect(await field(second, 'city').inputValue()).toBe(`First tab ${lang}`);
    await notice.getByRole('button', { name: t.editConflict.acknowledge }).click();
    await notice.waitFor({ state: 'detached' });
    await saveUser(second, lang, user.email);
    expect(await userRow(user.id)).toMatchObject({ city: `First tab ${lang}`, biography: `Second tab's biography (${lang})` });
  });
});

describe('edit conflicts in an engine form', () => {
  it('a save refused as stale (no live stream: the record was not fetched again) keeps the edits and asks about the field both changed', { timeout: 150_000 }, async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>('select id from bicycles order by id desc limit 1');
    const id = Number(rows[0]!.id);
    const [a, b] = [await signedIn('admin@example.com', 'en'), await signedIn('shop@example.com', 'en')];
    // B hears of nothing: its stream is refused, so it only polls every 30 s.
    await b.route('**/live', (route) => route.abort());
    await gotoHydrated(b, `${stack.baseUrl}/bicycles/${id}`);
    await gotoHydrated(a, `${stack.baseUrl}/bicycles/${id}`);
    const mine = b.getByTestId('form-bicycles');
    await mine.locator('[name="brand_and_model"]').fill('Mine 5');
    await mine.locator('[name="groupset"]').fill('Mine 11');

    const theirs = a.getByTestId('form-bicycles');
    await theirs.locator('[name="brand_and_model"]').fill('Theirs 9');
    await theirs.getByTestId('form-save').click();
    await a.getByRole('button', { name: 'Yes', exact: true }).click();
    await a
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();

    await mine.getByTestId('form-save').click();
    await b.getByRole('button', { name: 'Yes', exact: true }).click();
    const notice = b.getByTestId('changed-elsewhere');
    await notice.getByText(en.editConflict.staleSave).waitFor();
    const row = notice.getByRole('group', { name: 'Brand and model' });
    expect(await row.getByTestId('conflict-brand_and_model-theirs').innerText()).toBe('Theirs: Theirs 9');
    expect(await row.getByTestId('conflict-brand_and_model-mine').innerText()).toBe('Yours: Mine 5');
    expect(await mine.locator('[name="groupset"]').inputValue()).toBe('Mine 11');
    expect((await stack.upstream.db.query<{ brand_and_model: string }>('select brand_and_model from bicycles where id = $1', [id])).rows[0]!.brand_and_model).toBe('Theirs 9');

    await row.getByRole('button', { name: 'Keep mine' }).click();
    await mine.getByTestId('form-save').click();
    await b.getByRole('button', { name: 'Yes', exact: true }).click();
    await b
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();
    const saved = (await stack.upstream.db.query<{ brand_and_model: string; groupset: string }>('select brand_and_model, groupset from bicycles where id = $1', [id])).rows[0]!;
    expect(saved).toEqual({ brand_and_model: 'Mine 5', groupset: 'Mine 11' });
  });
});
