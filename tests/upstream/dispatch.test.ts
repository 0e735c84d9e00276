import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellRefusal, type DispatchBoard, type DispatchService } from '../../shared/schemas/dispatch.ts';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';
import { demoDate } from '../../upstream/seed.ts';
import { startUpstream } from '../../upstream/start.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';
import { testLogger } from '../support/run-log.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * The dispatch board's read (ADR 022) against the reference API: one call for the whole day, and the
 * capacity it shows is exactly what the booking check then accepts or refuses (ADR 010).
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
const tokens: Record<string, string> = {};
const ids = { bo: 0, sam: 0, third: 0 };

function call(path: string, { as, ...init }: { method?: string; body?: unknown; as?: string } = {}) {
  return upstreamCall(up.url, path, { ...init, token: tokens[as ?? 'admin'] });
}

const board = async (date: string) => {
  const res = await call(`dispatch/?date=${date}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as DispatchBoard;
};

const created = async (path: string, body: Record<string, unknown>) => {
  const res = await call(path, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

const centre = DEFAULT_OPERATION_RANGE.centre;
const service = (date: string, buddy: number, slot: number, status = 2) => ({
  buddy_id: buddy,
  bicycle_id: 1,
  service_slot_id: slot,
  service_date: date,
  status,
  origin_type: 'one_off',
  latitude: centre.lat,
  longitude: centre.lng,
  address: 'Sergels torg',
});

/** The API's answer to a new service in this buddy's slot: null when it takes it (and it is removed again), else the refusal code. */
async function tryBooking(date: string, buddy: number, slot: number): Promise<string | null> {
  const res = await call('services/', { body: service(date, buddy, slot) });
  if (res.status === 201) {
    expect((await call(`services/${res.body.data.id}/`, { method: 'DELETE' })).status).toBe(200);
    return null;
  }
  return res.body.error.message === 'validation_error' && res.body.error.fields?.service_slot_id === 'validation.option' ? 'slot_inactive' : res.body.error.message;
}

/** The API's answer to moving a service there: null when it takes it (and it is moved back), else the refusal code. */
async function tryMove(moving: DispatchService, buddy: number, slot: number): Promise<string | null> {
  const current = (await call(`services/${moving.id}/`)).body.data;
  const res = await call(`services/${moving.id}/`, { method: 'PATCH', body: { version: current.version, buddy_id: buddy, service_slot_id: slot } });
  if (res.status === 200) {
    const back = await call(`services/${moving.id}/`, {
      method: 'PATCH',
      body: { version: res.body.data.version, buddy_id: moving.buddy_id, service_slot_id: moving.service_slot_id },
    });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    return null;
  }
  return res.body.error.message;
}

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-dispatch'), config: { scryptCost: 1024 } });
  for (const who of ['admin', 'buddy', 'shop']) {
    tokens[who] = (await call('account/login', { body: { email: `${who}@example.com`, password: DEMO_PASSWORD } })).body.data.token;
  }
  const buddies = (await call('buddies/?page_size=100')).body.data.results as { id: number; email: string }[];
  ids.bo = buddies.find((b) => b.email === 'buddy@example.com')!.id;
  ids.sam = buddies.find((b) => b.email === 'shop@example.com')!.id;
  ids.third = buddies.find((b) => b.email !== 'buddy@example.com' && b.email !== 'shop@example.com')!.id;
});
afterAll(async () => up?.close());

describe('dispatch board read (ADR 022)', () => {
  it('is for Admins only, and refuses a date that is not one', async () => {
    expect((await call(`dispatch/?date=${demoDate(0)}`, { as: 'buddy' })).status).toBe(403);
    expect((await call(`dispatch/?date=${demoDate(0)}`, { as: 'none' })).status).toBe(401);
    for (const date of ['2026-02-31', 'tomorrow', '']) {
      const res = await call(`dispatch/?date=${encodeURIComponent(date)}`);
      expect(res.status, date).toBe(400);
      expect(res.body.error.fields).toEqual({ date: 'validation.date' });
    }
  });

  it("holds every active buddy with their slots, limits and the day's services, in one call", async () => {
    const today = await board(demoDate(0));
    const names = today.buddies.map((b) => b.name);
    expect(names).toContain('Bo Buddy');
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
    expect(today.slots.map((s) => s.name)).toEqual(['Morning', 'Afternoon', 'Evening']);
    const bo = today.buddies.find((b) => b.id === ids.bo)!;
    // The demo buddy works mornings and afternoons every day, six services at most (upstream/seed.ts).
    expect(bo.day_limit).toBe(6);
    expect(bo.cells.map((c) => [c.scheduled, c.working])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    // The requests waiting for dispatch today are in the day's services, with what a card shows.
    const requested = today.services.filter((s) => s.status === 1);
    expect(requested.length).toBeGreaterThanOrEqual(3);
    expect(requested[0]).toMatchObject({ bicycle_label: expect.stringContaining('('), buddy_label: expect.any(String), version: expect.any(Number) });
    // The counts are the services' own.
    for (const buddy of today.buddies) {
      expect(buddy.day_taken).toBe(today.services.filter((s) => s.buddy_id === buddy.id).length);
      for (const cell of buddy.cells) expect(cell.taken).toBe(today.services.filter((s) => s.buddy_id === buddy.id && s.service_slot_id === cell.slot_id).length);
    }
    const { rows } = await up.db.query<{ n: number }>('select count(*)::int as n from services where service_date = $1 and status in (1, 2, 4)', [demoDate(0)]);
    expect(today.services).toHaveLength(rows[0]!.n);
  });

  it('names service types in the language asked for', async () => {
    const res = await fetch(`${up.url}dispatch/?date=${demoDate(0)}`, { headers: { authorization: `Bearer ${tokens.admin}`, 'accept-language': 'sv' } });
    const swedish = ((await res.json()) as { data: DispatchBoard }).data;
    const english = await board(demoDate(0));
    const typed = english.services.find((s) => s.service_type_label === 'Repair' || s.service_type_label === 'Basic')!;
    expect(['Reparation', 'Bas']).toContain(swedish.services.find((s) => s.id === typed.id)!.service_type_label);
  });

  it('shows the capacity the API then applies: every buddy and slot of a day with every kind of refusal, for new and moved services', async () => {
    const date = '2098-03-10';
    // Bo: morning open with one place left in the slot, afternoon away (a not-working slot), no evening.
    await created('buddy-work-slots/', { buddy_id: ids.bo, service_date: date, service_slot_id: 1, max_services_per_day: 5 });
    await created('buddy-work-slots/', { buddy_id: ids.bo, service_date: date, service_slot_id: 2, max_services_per_day: 5 });
    await created('not-working-slots/', { user_id: ids.bo, service_date: date, service_slot_id: 2, notes: 'Dentist' });
    for (let i = 0; i < 3; i++) await created('services/', service(date, ids.bo, 1, i === 0 ? 1 : 2));
    // Sam: a day of two at most, both taken; the evening is a day off.
    await created('buddy-work-slots/', { buddy_id: ids.sam, service_date: date, service_slot_id: 1, max_services_per_day: 2 });
    await created('buddy-work-slots/', { buddy_id: ids.sam, service_date: date, service_slot_id: 3, max_services_per_day: 2 });
    // A cancelled service holds no place.
    const cancelled = await created('services/', service(date, ids.sam, 1));
    expect((await call(`services/${cancelled.id}/transition/`, { body: { to: 5 } })).status).toBe(200);
    await created('services/', service(date, ids.sam, 1));
    await created('services/', service(date, ids.sam, 3));
    const dayOff = await created('buddy-work-slots/', { buddy_id: ids.third, service_date: date, service_slot_id: 3, max_services_per_day: 3, is_working_day: true });
    expect((await call(`buddy-work-slots/${dayOff.id}/`, { method: 'PATCH', body: { version: dayOff.version, is_working_day: false, notes: 'Day off' } })).status).toBe(200);
    // The Evening slot takes two: fill it for a fourth buddy.
    const fourth = (await board(date)).buddies.find((b) => ![ids.bo, ids.sam, ids.third].includes(b.id))!.id;
    await created('buddy-work-slots/', { buddy_id: fourth, service_date: date, service_slot_id: 3, max_services_per_day: 4 });
    await created('services/', service(date, fourth, 3));
    await created('services/', service(date, fourth, 3));

    const day = await board(date);
    const seen = new Set<string | null>();
    for (const buddy of day.buddies) {
      for (const cell of buddy.cells) {
        const shown = cellRefusal(day, buddy, cell);
        seen.add(shown);
        expect(await tryBooking(date, buddy.id, cell.slot_id), `new service for ${buddy.name} in slot ${cell.slot_id}`).toBe(shown);
      }
    }
    expect([...seen].sort()).toEqual(['buddy_not_scheduled', 'buddy_not_working', 'day_full', 'slot_full', null].sort());

    // Moves leave out the place the moved service holds: Sam's morning service moves to his (full) evening's day.
    for (const moving of day.services.filter((s) => s.buddy_id === ids.sam || s.status === 1)) {
      for (const buddy of day.buddies) {
        for (const cell of buddy.cells) {
          expect(await tryMove(moving, buddy.id, cell.slot_id), `#${moving.id} to ${buddy.name} in slot ${cell.slot_id}`).toBe(cellRefusal(day, buddy, cell, moving));
        }
      }
    }
    const after = await board(date);
    expect(after.buddies).toEqual(day.buddies);
  }, 120_000);

  it('a move through the service update books a request in the same write, and a stale version changes nothing', async () => {
    const date = '2098-04-02';
    await created('buddy-work-slots/', { buddy_id: ids.bo, service_date: date, service_slot_id: 1, max_services_per_day: 3 });
    await created('buddy-work-slots/', { buddy_id: ids.sam, service_date: date, service_slot_id: 2, max_services_per_day: 3 });
    const request = await created('services/', service(date, ids.bo, 1, 1));
    const moved = await call(`services/${request.id}/`, { method: 'PATCH', body: { version: request.version, buddy_id: ids.sam, service_slot_id: 2, status: 2 } });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ buddy_id: ids.sam, service_slot_id: 2, status: 2, version: request.version + 1 });
    const stale = await call(`services/${request.id}/`, { method: 'PATCH', body: { version: request.version, buddy_id: ids.bo, service_slot_id: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toBe('conflict');
    const day = await board(date);
    expect(day.buddies.find((b) => b.id === ids.sam)!.day_taken).toBe(1);
    expect(day.buddies.find((b) => b.id === ids.bo)!.day_taken).toBe(0);
  });
  it("refuses a time outside the target slot, with the slot's hours in English and Swedish, and changes nothing (issue 33)", async () => {
    const date = '2098-04-03';
    for (const slot of [1, 2]) await created('buddy-work-slots/', { buddy_id: ids.bo, service_date: date, service_slot_id: slot, max_services_per_day: 3 });
    const request = await created('services/', { ...service(date, ids.bo, 2, 1), service_time: '14:30' });
    // The board's move: the morning slot (08:00–12:00) with the card's afternoon time.
    const move = { version: request.version, buddy_id: ids.bo, service_slot_id: 1, status: 2 };
    const refused = await call(`services/${request.id}/`, { method: 'PATCH', body: move });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      message: 'time_outside_slot',
      cause: '14:30 is outside the slot Morning (08:00–12:00). Choose a time within the slot, or another slot.',
      fields: { service_time: 'validation.timeOutsideSlot' },
    });
    const swedish = await fetch(`${up.url}services/${request.id}/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${tokens.admin}`, 'accept-language': 'sv', 'content-type': 'application/json' },
      body: JSON.stringify(move),
    });
    expect(swedish.status).toBe(409);
    expect(((await swedish.json()) as { error: { cause: string } }).error.cause).toBe(
      '14:30 ligger utanför passet Morning (08:00–12:00). Välj en tid inom passet, eller ett annat pass.',
    );
    // A slot's end belongs to the next slot: 12:00 is not in the morning.
    expect((await call(`services/${request.id}/`, { method: 'PATCH', body: { ...move, service_time: '12:00' } })).body.error.message).toBe('time_outside_slot');
    expect((await call(`services/${request.id}/`)).body.data).toMatchObject({ status: 1, service_slot_id: 2, service_time: '14:30', version: request.version });
    // A new service is held to it too; the slot's start is taken.
    expect((await call('services/', { body: { ...service(date, ids.bo, 1, 1), service_time: '07:59' } })).body.error.message).toBe('time_outside_slot');
    const placed = await call(`services/${request.id}/`, { method: 'PATCH', body: { ...move, service_time: '08:00' } });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.data).toMatchObject({ status: 2, service_slot_id: 1, service_time: '08:00' });
  });
});
