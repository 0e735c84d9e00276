import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDate } from '../../shared/format.ts';
import { gotoHydrated, signInAs } from '../support/browser.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import { DEMO_PASSWORD, type Stack } from '../support/stack.ts';

/**
 * Issue 33, point 8's language items, seen as staff see them in English and in Swedish: one date format per
 * language (a service's title included), Swedish grammar by noun gender and count, third-party texts
 * translated, toasts that follow the language and keep off the controls, seeded catalogue names in Swedish.
 */
let stack: Stack;
let browser: Browser;
let page: Page;
let serviceId: number;
const serviceDate = daysFromToday(3);

beforeAll(async () => {
  ({ stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com', context: { viewport: { width: 1280, height: 900 } } }));
  const { rows } = await stack.upstream.db.query<{ id: number }>(
    `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, address, latitude, longitude)
     select $1::date, 2, '11:30', 1, u.id, b.id, b.owner_id, 'one_off', 'Kungsgatan 1, Stockholm', 59.3353, 18.0632
       from users u, bicycles b where u.email = 'buddy@example.com' and b.id = (select min(id) from bicycles) returning id`,
    [serviceDate],
  );
  serviceId = Number(rows[0]!.id);
});
afterAll(() => closeBrowserStack(browser, stack));

/** Switches the UI language with the header's switch, as a person would, and waits for the page to follow. */
async function useLanguage(lang: 'en' | 'sv'): Promise<void> {
  if ((await page.locator('html').getAttribute('lang')) === lang) return;
  await page.getByTestId('language-switch').selectOption(lang);
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}

describe('dates', () => {
  it("a service's page writes every date one way per language, its title included", async () => {
    await gotoHydrated(page, `${stack.baseUrl}/services/${serviceId}`);
    for (const lang of ['en', 'sv'] as const) {
      await useLanguage(lang);
      const title = page.getByTestId('detail-title');
      await expect.poll(() => title.innerText()).toContain(formatDate(serviceDate, lang));
      const text = await page.locator('main').innerText();
      expect(text, 'an ISO date on the page').not.toMatch(/\b\d{4}-\d\d-\d\d\b/);
    }
  });
});

/** A second signed-in page, for another role (signed in once, in its own context). */
async function pageAs(email: string, landing = '/'): Promise<Page> {
  const other = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInAs(other, stack.baseUrl, email, DEMO_PASSWORD, landing);
  return other;
}

describe('Swedish grammar', () => {
  it('a create button agrees with its noun: "Ny" for en-words, "Nytt" for ett-words', async () => {
    const expected: [string, string, string][] = [
      ['/services', 'New service', 'Nytt servicejobb'],
      ['/companies', 'New company', 'Nytt företag'],
      ['/languages', 'New language', 'Nytt språk'],
      ['/bicycles', 'New bicycle', 'Ny cykel'],
      ['/events', 'New event', 'Nytt evenemang'],
    ];
    for (const lang of ['en', 'sv'] as const) {
      for (const [path, en, sv] of expected) {
        await gotoHydrated(page, stack.baseUrl + path);
        await useLanguage(lang);
        await expect.poll(() => page.getByTestId('list-new').innerText()).toBe(lang === 'en' ? en : sv);
      }
    }
    // One Swedish word for services: "Servicejobb", the home page's counters included (not "Tjänster").
    await gotoHydrated(page, `${stack.baseUrl}/`);
    await expect.poll(() => page.locator('main').innerText()).toMatch(/Servicejobb/);
    expect(await page.locator('main').innerText()).not.toMatch(/tjänster/i);
  });

  it('counts agree with their own number ("1 slutfört", not "1 slutförda")', async () => {
    const buddy = await pageAs('buddy@example.com', '/today');
    const summary = buddy.getByTestId('today-summary');
    await summary.waitFor();
    // The demo day: five stops, one of them finished.
    expect(await summary.innerText()).toContain('5 stops, 1 finished.');
    await buddy.getByTestId('language-switch').selectOption('sv');
    await expect.poll(() => summary.innerText()).toContain('5 stopp, 1 slutfört.');
    await buddy.context().close();
  });
});

describe("third-party components' texts", () => {
  it('the users page\'s tabs have no English "More" on a phone; every tab stays in reach', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await gotoHydrated(page, `${stack.baseUrl}/users`);
      await useLanguage('sv');
      const tabs = page.getByRole('navigation', { name: 'Användare, abonnemang och planer' });
      await tabs.getByTestId('tab-plans').waitFor();
      expect(await tabs.innerText()).not.toMatch(/\bMore\b/);
      for (const tab of ['tab-users', 'tab-subscriptions', 'tab-plans']) expect(await tabs.getByTestId(tab).isVisible(), tab).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("Leaflet's zoom buttons speak the UI language, and follow a switch", async () => {
    await gotoHydrated(page, `${stack.baseUrl}/services/${serviceId}`);
    const zoomIn = page.locator('.leaflet-control-zoom-in').first();
    const zoomOut = page.locator('.leaflet-control-zoom-out').first();
    for (const [lang, inTitle, outTitle] of [
      ['sv', 'Zooma in', 'Zooma ut'],
      ['en', 'Zoom in', 'Zoom out'],
    ] as const) {
      await useLanguage(lang);
      await expect.poll(() => zoomIn.getAttribute('title')).toBe(inTitle);
      expect(await zoomIn.getAttribute('aria-label')).toBe(inTitle);
      expect(await zoomOut.getAttribute('title')).toBe(outTitle);
    }
  });
});

describe('toasts', () => {
  it("keep off Activity's Export, show one at a time, and follow a language switch", async () => {
    await gotoHydrated(page, `${stack.baseUrl}/activity`);
    await useLanguage('en');
    const exportButton = page.getByTestId('csv-export');
    const toasts = page.getByTestId('toasts').locator('.bo-toast');
    await exportButton.click();
    await toasts.getByText(/Exported \d+ rows?\./).waitFor();
    const [button, toast] = [await exportButton.boundingBox(), await toasts.first().boundingBox()];
    const overlaps = (a: typeof button, b: typeof button) => !!a && !!b && a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    expect(overlaps(button, toast), 'the toast covers the Export button').toBe(false);
    // A second export's toast replaces the first (no stack).
    await expect.poll(() => exportButton.isEnabled()).toBe(true);
    await exportButton.click();
    await expect.poll(() => exportButton.isEnabled()).toBe(true);
    await toasts.getByText(/Exported \d+ rows?\./).waitFor();
    expect(await toasts.count()).toBe(1);
    // The shown toast is rewritten in Swedish when the language is switched.
    await useLanguage('sv');
    await toasts.getByText(/\d+ (rad exporterad|rader exporterade)\./).waitFor();
  });
});

describe('seeded catalogue names (ADR 078)', () => {
  it('read in Swedish on Swedish pages; a name someone typed shows as typed', async () => {
    await stack.upstream.db.query("insert into service_slots (name, start_time, end_time, max, is_active) values ('Morning shift', '06:00', '08:00', 1, true)");
    await gotoHydrated(page, `${stack.baseUrl}/service-slots`);
    const table = page.getByTestId('list-table');
    for (const [lang, names, absent] of [
      ['en', ['Morning', 'Afternoon', 'Morning shift'], 'Förmiddag'],
      ['sv', ['Förmiddag', 'Eftermiddag', 'Morning shift'], 'Afternoon'],
    ] as const) {
      await useLanguage(lang);
      for (const name of names) await table.getByText(name, { exact: true }).first().waitFor();
      expect(await table.innerText()).not.toContain(absent);
    }
    await gotoHydrated(page, `${stack.baseUrl}/bicycle-types`);
    await page.getByTestId('list-table').getByText('Stadscykel').first().waitFor();
    await gotoHydrated(page, `${stack.baseUrl}/users`);
    await page.getByTestId('list-table').getByText('Cykelbuddy').first().waitFor();
    expect(await page.getByTestId('list-table').innerText()).not.toMatch(/\bCustomer\b/);
  });

  it('operational ranges read in Swedish on their list and a user’s page; the range’s toast follows a language switch', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/operational-ranges`);
    await useLanguage('sv');
    await page.getByTestId('list-table').getByText('Stockholms innerstad', { exact: true }).waitFor();
    expect(await page.getByTestId('list-table').innerText()).not.toContain('London central');
    const { rows } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'shop@example.com'");
    await gotoHydrated(page, `${stack.baseUrl}/users/${rows[0]!.id}`);
    await useLanguage('en');
    const range = page.getByTestId('operational-range');
    await range.selectOption({ label: 'London central' });
    const toasts = page.getByTestId('toasts').locator('.bo-toast');
    await toasts.getByText('Operational range set to London central.').waitFor();
    // A toast of the app's own text is written when drawn (ADR 078): the shown one is rewritten in Swedish.
    await useLanguage('sv');
    await toasts.getByText('Verksamhetsområde satt till Centrala London.').waitFor();
    expect(await range.locator('option:checked').innerText()).toBe('Centrala London');
  });

  it('a list’s search finds a seeded value by its name on the page ("förmidd" finds Morning in Swedish) and by its stored value', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/service-slots`);
    await useLanguage('sv');
    await gotoHydrated(page, `${stack.baseUrl}/service-slots?search=${encodeURIComponent('förmidd')}`);
    const table = page.getByTestId('list-table');
    await table.getByText('Förmiddag', { exact: true }).waitFor();
    expect(await table.innerText()).not.toContain('Eftermiddag');
    // The stored value still finds it, on a Swedish page too.
    await gotoHydrated(page, `${stack.baseUrl}/service-slots?search=afternoon`);
    await table.getByText('Eftermiddag', { exact: true }).waitFor();
    expect(await table.innerText()).not.toContain('Förmiddag');
  });
});

describe("a service's two places for pictures", () => {
  it('each says what it is for, in English and Swedish', async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>('select id from services where status = 2 order by id limit 1');
    await gotoHydrated(page, `${stack.baseUrl}/services/${rows[0]!.id}`);
    for (const [lang, detail, photos] of [
      ['en', 'An image added to an item shows what you found on that part', 'Photos of the whole job'],
      ['sv', 'En bild på en punkt visar vad du hittade på just den delen', 'Foton av hela jobbet'],
    ] as const) {
      await useLanguage(lang);
      await expect.poll(() => page.getByTestId('detail-images-help').innerText()).toContain(detail);
      await expect.poll(() => page.getByTestId('photos-help').innerText()).toContain(photos);
    }
  });
});
