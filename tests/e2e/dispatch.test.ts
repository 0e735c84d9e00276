import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, hydrated, launchBrowser, screenshot, signInAs } from '../support/browser.ts';
import { agent, mutate, query, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * The dispatch board (ADR 022) in the browser: requests in the tray, moved onto a buddy's slot by drag and
 * drop and by keyboard; a move the API refuses shows its capacity message and leaves the board as it was;
 * on a phone the buddies stack and a tap on a card, then on a slot, moves it. A day far ahead, set up here,
 * so the demo data does not interfere.
 */
let stack: Stack;
let browser: Browser;
let api: Agent;
const day = '2098-06-10';
const ids = { bo: 0, sam: 0, third: 0, first: 0, second: 0, third_request: 0, samBooked: 0 };

async function ok(path: string, input: unknown) {
  const res = await mutate(api, path, input);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.result.data;
}

const service = (buddy: number, slot: number, status: number, notes: string) => ({
  service_date: day,
  service_slot_id: slot,
  status,
  buddy_id: buddy,
  bicycle_id: 1,
  origin_type: 'one_off',
  address: 'Sergels torg',
  latitude: DEFAULT_OPERATION_RANGE.centre.lat,
  longitude: DEFAULT_OPERATION_RANGE.centre.lng,
  notes,
});

async function serviceNow(id: number) {
  return (await query(api, 'services.get', { id })).body.result.data as { status: number; buddy_id: number; service_slot_id: number; version: number; service_time: string | null };
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  api = agent(stack);
  await signIn(api, 'admin@example.com', DEMO_PASSWORD);
  const buddies = (await query(api, 'users.options', { role: 'Buddy' })).body.result.data as { id: number; label: string }[];
  ids.bo = buddies.find((b) => b.label.includes('buddy@example.com'))!.id;
  ids.sam = buddies.find((b) => b.label.includes('shop@example.com'))!.id;
  ids.third = buddies.find((b) => b.id !== ids.bo && b.id !== ids.sam)!.id;
  // Bo works the morning and afternoon (three a day); Sam only the morning, one a day, already booked.
  for (const slot of [1, 2]) await ok('buddyWorkSlots.create', { buddy_id: ids.bo, service_date: day, service_slot_id: slot, max_services_per_day: 3, is_working_day: true });
  await ok('buddyWorkSlots.create', { buddy_id: ids.sam, service_date: day, service_slot_id: 1, max_services_per_day: 1, is_working_day: true });
  ids.samBooked = (await ok('services.create', service(ids.sam, 1, 2, 'Booked with Sam'))).id;
  ids.first = (await ok('services.create', service(ids.bo, 1, 1, 'First request'))).id;
  ids.second = (await ok('services.create', service(ids.bo, 1, 1, 'Second request'))).id;
  ids.third_request = (await ok('services.create', service(ids.bo, 2, 1, 'Third request'))).id;
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const toast = (page: Page, text: string) => page.getByTestId('toasts').getByText(text).waitFor();
const tray = (page: Page) => page.getByTestId('dispatch-tray');
const cell = (page: Page, buddy: number, slot: number) => page.getByTestId(`dispatch-cell-${buddy}-${slot}`);

describe('dispatch board', () => {
  let page: Page;
  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  });

  it("shows each buddy's capacity for the day and the requests to dispatch", async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
    await tray(page).getByRole('heading', { name: 'To dispatch: 3 services' }).waitFor();
    for (const id of [ids.first, ids.second, ids.third_request]) await tray(page).getByTestId(`dispatch-service-${id}`).waitFor();
    await tray(page).getByTestId(`dispatch-service-${ids.first}`).getByText('Requested, now with Bo Buddy, Morning').waitFor();
    // Bo: three of three places held by the requests; Sam: his one place taken; the third buddy is not scheduled.
    expect(await page.getByTestId(`dispatch-buddy-${ids.bo}`).getByTestId('dispatch-day-capacity').innerText()).toBe('3 of 3 today · 0 left');
    // Bo's day is taken up by the requests: his open slots say so (ADR 044).
    expect(await cell(page, ids.bo, 1).getByTestId('dispatch-cell-summary').innerText()).toBe('2 of 4 taken · 2 left · 2 requested · Day full');
    expect(await page.getByTestId(`dispatch-buddy-${ids.sam}`).getByTestId('dispatch-day-capacity').innerText()).toBe('1 of 1 today · 0 left');
    await cell(page, ids.sam, 1).getByTestId(`dispatch-service-${ids.samBooked}`).waitFor();
    expect(await cell(page, ids.sam, 2).getByTestId('dispatch-cell-summary').innerText()).toBe('Not scheduled');
    expect(await page.getByTestId(`dispatch-buddy-${ids.third}`).getByTestId('dispatch-day-capacity').innerText()).toBe('Not scheduled this day');
    await screenshot(page, 'dispatch-desktop');
  });

  it("opens on today, where the demo data's requests wait in the tray", async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch`);
    expect(await tray(page).locator('[data-testid^="dispatch-service-"]').count()).toBeGreaterThanOrEqual(3);
    await page.getByTestId('dispatch-next').click();
    await page.waitForURL(/\/dispatch\?date=\d{4}-\d{2}-\d{2}$/);
    await page.getByTestId('dispatch-previous').click();
    await page.waitForURL(`${stack.baseUrl}/dispatch`);
    await screenshot(page, 'dispatch-today-demo');
  });

  it('drag and drop: a request dropped on a free slot is booked there; one dropped on a full day is refused with the API message and stays', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    await tray(page)
      .getByTestId(`dispatch-service-${ids.first}`)
      .dragTo(cell(page, ids.bo, 2));
    await toast(page, `Service #${ids.first} is booked with Bo Buddy, Afternoon.`);
    await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.first}`).waitFor();
    await tray(page).getByRole('heading', { name: 'To dispatch: 2 services' }).waitFor();
    expect(await serviceNow(ids.first)).toMatchObject({ status: 2, buddy_id: ids.bo, service_slot_id: 2 });

    const before = await serviceNow(ids.second);
    await tray(page)
      .getByTestId(`dispatch-service-${ids.second}`)
      .dragTo(cell(page, ids.sam, 1));
    await toast(page, 'The bike buddy has reached their maximum number of services for this day.');
    await screenshot(page, 'dispatch-refused');
    expect(await serviceNow(ids.second)).toEqual(before);
    await tray(page).getByTestId(`dispatch-service-${ids.second}`).waitFor();
    expect(await cell(page, ids.sam, 1).getByTestId(`dispatch-service-${ids.second}`).count()).toBe(0);
    expect(await page.getByTestId(`dispatch-buddy-${ids.sam}`).getByTestId('dispatch-day-capacity').innerText()).toBe('1 of 1 today · 0 left');
  });

  it('keyboard: Enter picks a card, Tab reaches the slots, Enter moves; Escape cancels; a refused move says why', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    const pick = tray(page).getByTestId(`dispatch-service-${ids.second}`).getByRole('button');
    await pick.focus();
    await page.keyboard.press('Enter');
    expect(await pick.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByTestId('dispatch-announcement').innerText()).toContain(`Service #${ids.second} selected`);
    // The next Tab stops are the slots (other cards leave the tab order while one is picked).
    const target = `dispatch-move-here-${ids.third}-1`;
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
      expect(focused.startsWith('dispatch-move-here-') || focused === 'dispatch-cancel-pick' || focused === 'dispatch-time', `tab stop ${i}: ${focused}`).toBe(true);
      reached = focused === target;
    }
    expect(reached).toBe(true);
    // The third buddy has no work slot that day: the API refuses, and the request stays in the tray.
    await page.keyboard.press('Enter');
    await toast(page, 'The bike buddy does not work in this slot on this day. Add a work slot in the scheduler first.');
    await tray(page).getByTestId(`dispatch-service-${ids.second}`).waitFor();
    expect(await serviceNow(ids.second)).toMatchObject({ status: 1, buddy_id: ids.bo, service_slot_id: 1 });

    // Space picks too; Escape puts it down without moving anything.
    await pick.focus();
    await page.keyboard.press(' ');
    await page.getByTestId(`dispatch-move-here-${ids.bo}-2`).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByTestId(`dispatch-move-here-${ids.bo}-2`).count()).toBe(0);
    expect(await pick.getAttribute('aria-pressed')).toBe('false');

    await pick.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId(`dispatch-move-here-${ids.bo}-2`).focus();
    await page.keyboard.press('Enter');
    await toast(page, `Service #${ids.second} is booked with Bo Buddy, Afternoon.`);
    await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.second}`).waitFor();
    expect(await serviceNow(ids.second)).toMatchObject({ status: 2, buddy_id: ids.bo, service_slot_id: 2 });
  });

  it("reassigns a booked service to another buddy by dragging it from one buddy's slot to another's", async () => {
    await ok('buddyWorkSlots.create', { buddy_id: ids.third, service_date: day, service_slot_id: 3, max_services_per_day: 2, is_working_day: true });
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    const card = cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.first}`);
    expect(await card.getAttribute('data-status')).toBe('2');
    await card.dragTo(cell(page, ids.third, 3));
    await toast(page, `Service #${ids.first} is now with Alva Andersson, Evening.`);
    await cell(page, ids.third, 3).getByTestId(`dispatch-service-${ids.first}`).waitFor();
    expect(await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.first}`).count()).toBe(0);
    expect(await serviceNow(ids.first)).toMatchObject({ status: 2, buddy_id: ids.third, service_slot_id: 3 });
    expect(await page.getByTestId(`dispatch-buddy-${ids.third}`).getByTestId('dispatch-day-capacity').innerText()).toBe('1 of 2 today · 1 left');
  });

  it('a slot of a full day says "Day full" in its header and in the accessible name of its Move here button', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    // Sam's one place of the day is taken.
    expect(await cell(page, ids.sam, 1).getByTestId('dispatch-cell-summary').innerText()).toBe('1 of 4 taken · 3 left · Day full');
    const pick = tray(page).getByTestId(`dispatch-service-${ids.third_request}`).getByRole('button');
    await pick.focus();
    await page.keyboard.press('Enter');
    const target = page.getByTestId(`dispatch-move-here-${ids.sam}-1`);
    expect(await target.innerText()).toBe('Day full');
    const name = (await target.getAttribute('aria-label'))!;
    expect(name).toMatch(new RegExp(`^Day full: move #${ids.third_request} to .+, Morning \\(1 of 4 taken · 3 left · Day full\\)$`));
    // Found by that name, as a screen reader user hears it.
    expect(await page.getByRole('button', { name }).getAttribute('data-testid')).toBe(`dispatch-move-here-${ids.sam}-1`);
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await screenshot(page, 'dispatch-day-full');
    await page.keyboard.press('Escape');
  });

  it('keyboard: "Back to requests" unassigns a booked card to the tray; placing it again sets its time', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    const booked = cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.second}`).getByRole('button');
    await booked.focus();
    await page.keyboard.press('Enter');
    const unassign = page.getByRole('button', { name: `Unassign service #${ids.second}: back to the requests to dispatch` });
    await unassign.focus();
    await page.keyboard.press('Enter');
    await toast(page, `Service #${ids.second} is back among the requests.`);
    await tray(page).getByTestId(`dispatch-service-${ids.second}`).waitFor();
    expect(await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.second}`).count()).toBe(0);
    // Back to Requested, still provisionally with Bo in the afternoon.
    expect(await serviceNow(ids.second)).toMatchObject({ status: 1, buddy_id: ids.bo, service_slot_id: 2 });

    // Picked again, the next Tab stop is the time; it goes with the card to the slot.
    const pick = tray(page).getByTestId(`dispatch-service-${ids.second}`).getByRole('button');
    await pick.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('dispatch-time');
    await page.getByTestId('dispatch-time').fill('14:30');
    await screenshot(page, 'dispatch-time-on-placing');
    await page.getByTestId(`dispatch-move-here-${ids.bo}-2`).focus();
    await page.keyboard.press('Enter');
    await toast(page, `Service #${ids.second} is booked with Bo Buddy, Afternoon at 14:30.`);
    await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.second}`).getByText(/14:30/).waitFor();
    expect(await serviceNow(ids.second)).toMatchObject({ status: 2, buddy_id: ids.bo, service_slot_id: 2, service_time: '14:30' });

    // Dragged onto the tray, a booked card is unassigned too.
    await cell(page, ids.bo, 2).getByTestId(`dispatch-service-${ids.second}`).dragTo(tray(page));
    await expect.poll(async () => (await serviceNow(ids.second)).status).toBe(1);
    await tray(page).getByTestId(`dispatch-service-${ids.second}`).waitFor();
    // And dragged back, it keeps its time.
    await tray(page)
      .getByTestId(`dispatch-service-${ids.second}`)
      .dragTo(cell(page, ids.bo, 2));
    await expect.poll(async () => (await serviceNow(ids.second)).status).toBe(2);
    expect(await serviceNow(ids.second)).toMatchObject({ buddy_id: ids.bo, service_slot_id: 2, service_time: '14:30' });
  });

  it('in Swedish, the capacity and the refusals read in Swedish', async () => {
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${day}`);
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByRole('heading', { name: 'Jobbfördelning' }).waitFor();
    expect(await page.getByTestId(`dispatch-buddy-${ids.sam}`).getByTestId('dispatch-day-capacity').innerText()).toBe('1 av 1 i dag · 0 kvar');
    await tray(page)
      .getByTestId(`dispatch-service-${ids.third_request}`)
      .dragTo(cell(page, ids.sam, 1));
    await toast(page, 'Cykelbuddyn har nått sitt högsta antal servicejobb för dagen.');
    await screenshot(page, 'dispatch-sv');
    await page.getByTestId('language-switch').selectOption('en');
  });
  it("a time outside the target slot is not sent: the board offers the slot's start, or leaves the service where it is (issue 33)", async () => {
    // A day of its own: a request agreed for 14:30, provisionally in Bo's afternoon.
    const date = '2098-06-11';
    for (const slot of [1, 2]) await ok('buddyWorkSlots.create', { buddy_id: ids.bo, service_date: date, service_slot_id: slot, max_services_per_day: 3, is_working_day: true });
    const late = (await ok('services.create', { ...service(ids.bo, 2, 1, 'Agreed for the afternoon'), service_date: date, service_time: '14:30' })).id as number;
    const before = await serviceNow(late);
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${date}`);
    const pick = tray(page).getByTestId(`dispatch-service-${late}`).getByRole('button');
    await pick.focus();
    await page.keyboard.press('Enter');
    // The time field carries the card's 14:30; the morning is 08:00–12:00.
    expect(await page.getByTestId('dispatch-time').inputValue()).toBe('14:30');
    await page.getByTestId(`dispatch-move-here-${ids.bo}-1`).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog', { name: 'Time outside the slot' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('confirm-message').innerText()).toBe(`14:30 is outside Morning (08:00–12:00). Place service #${late} at 08:00, the slot's start, instead?`);
    expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await screenshot(page, 'dispatch-time-outside-slot');
    // Keyboard: the dialog has the focus; Escape leaves the service as it was, and nothing was sent.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('dispatch-announcement').innerText()).toBe(`Service #${late} was not moved.`);
    expect(await serviceNow(late)).toEqual(before);

    // Picked again: Enter on "Place at 08:00" books it at the slot's start.
    await pick.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId(`dispatch-move-here-${ids.bo}-1`).focus();
    await page.keyboard.press('Enter');
    const place = dialog.getByRole('button', { name: 'Place at 08:00' });
    await place.waitFor();
    expect(await place.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await toast(page, `Service #${late} is booked with Bo Buddy, Morning at 08:00.`);
    expect(await serviceNow(late)).toMatchObject({ status: 2, buddy_id: ids.bo, service_slot_id: 1, service_time: '08:00' });

    // Dragged, a card keeps its own time: the same question, in Swedish.
    const other = (await ok('services.create', { ...service(ids.bo, 1, 1, 'Agreed for the morning'), service_date: date, service_time: '09:15' })).id as number;
    await gotoHydrated(page, `${stack.baseUrl}/dispatch?date=${date}`);
    await page.getByTestId('language-switch').selectOption('sv');
    await page.getByRole('heading', { name: 'Jobbfördelning' }).waitFor();
    await tray(page)
      .getByTestId(`dispatch-service-${other}`)
      .dragTo(cell(page, ids.bo, 2));
    const svDialog = page.getByRole('alertdialog', { name: 'Tiden ligger utanför passet' });
    expect(await svDialog.getByTestId('confirm-message').innerText()).toBe(
      `09:15 ligger utanför Eftermiddag (12:00–16:00). Lägga service #${other} kl. 12:00, när passet börjar, i stället?`,
    );
    await svDialog.getByRole('button', { name: 'Flytta inte' }).click();
    expect(await serviceNow(other)).toMatchObject({ status: 1, service_slot_id: 1, service_time: '09:15' });
    await page.getByTestId('language-switch').selectOption('en');
    await page.getByRole('heading', { name: 'Dispatch board' }).waitFor();
  });
});

describe('dispatch board on a phone (390×844)', () => {
  it('stacks the buddies without a sideways page, and a tap on a card then on a slot moves it', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await signInAs(page, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD, `/dispatch?date=${day}`);
    await hydrated(page);
    // Room for the page on a phone-sized screen, whatever the shell does with its sidebar there.
    const collapse = page.getByRole('button', { name: 'Collapse sidebar' });
    if (
      await collapse.waitFor({ timeout: 5000 }).then(
        () => true,
        () => false,
      )
    )
      await collapse.click();
    // One column: each buddy under the previous one (polled: the sidebar may still be sliding away).
    const left = async (id: number) => (await page.getByTestId(`dispatch-buddy-${id}`).boundingBox())!.x;
    await expect.poll(async () => (await left(ids.bo)) === (await left(ids.sam)), { timeout: 5000 }).toBe(true);
    const bo = (await page.getByTestId(`dispatch-buddy-${ids.bo}`).boundingBox())!;
    const sam = (await page.getByTestId(`dispatch-buddy-${ids.sam}`).boundingBox())!;
    expect(sam.y).toBeGreaterThan(bo.y + bo.height - 1);
    // Not wider than the phone (a mobile browser would otherwise zoom out to fit it).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'dispatch-phone');

    await tray(page).getByTestId(`dispatch-service-${ids.third_request}`).getByRole('button').tap();
    const target = page.getByTestId(`dispatch-move-here-${ids.bo}-1`);
    await target.scrollIntoViewIfNeeded();
    await screenshot(page, 'dispatch-phone-picked');
    await target.tap();
    await page.getByTestId('toasts').getByText(`Service #${ids.third_request} is booked with Bo Buddy, Morning.`).waitFor();
    await cell(page, ids.bo, 1).getByTestId(`dispatch-service-${ids.third_request}`).waitFor();
    await tray(page).getByTestId('dispatch-tray-empty').waitFor();
    await context.close();
  });
});
