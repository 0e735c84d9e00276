import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_STATUS_FLOW } from '../../shared/entities/services.ts';
import { DEFAULT_OPERATION_RANGE, destinationPoint, distanceMetres } from '../../shared/geo.ts';
import { startUpstream } from '../../upstream/start.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';
import { testLogger } from '../support/run-log.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * Services against the reference API directly: the status transitions (ADR 009), capacity (ADR 010),
 * the operation range (ADR 011) and what a Buddy may see and do.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
const tokens: Record<string, string> = {};
let buddy = 0;
let otherBuddy = 0;

// Far from the demo data's dates, so seeded services and work slots never interfere.
let nextDay = 0;
const freshDate = () => {
  nextDay += 1;
  return new Date(Date.UTC(2097, 0, 1 + nextDay)).toISOString().slice(0, 10);
};
// Services that get finished lie in the past: finishing before a service's date is refused (ADR 028).
let nextPastDay = 0;
const freshPastDate = () => {
  nextPastDay += 1;
  return new Date(Date.UTC(1997, 0, 1 + nextPastDay)).toISOString().slice(0, 10);
};

function call(path: string, { as, ...init }: { method?: string; body?: unknown; as?: string } = {}) {
  return upstreamCall(up.url, path, { ...init, token: tokens[as ?? 'admin'] });
}

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-services'), config: { scryptCost: 1024 } });
  for (const who of ['admin', 'buddy', 'shop']) {
    const res = await call('account/login', { body: { email: `${who}@example.com`, password: DEMO_PASSWORD } });
    tokens[who] = res.body.data.token;
  }
  const buddies = (await call('buddies/?page_size=100')).body.data.results as { id: number; email: string }[];
  buddy = buddies.find((b) => b.email === 'buddy@example.com')!.id;
  otherBuddy = buddies.find((b) => b.email === 'shop@example.com')!.id;
});
afterAll(async () => up?.close());

const centre = DEFAULT_OPERATION_RANGE.centre;

async function workSlot(date: string, overrides: Record<string, unknown> = {}) {
  const res = await call('buddy-work-slots/', { body: { buddy_id: buddy, service_date: date, service_slot_id: 1, max_services_per_day: 4, is_working_day: true, ...overrides } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

function service(date: string, overrides: Record<string, unknown> = {}) {
  return {
    buddy_id: buddy,
    bicycle_id: 1,
    service_slot_id: 1,
    service_date: date,
    status: 2,
    origin_type: 'one_off',
    latitude: centre.lat,
    longitude: centre.lng,
    address: 'Sergels torg',
    ...overrides,
  };
}

async function book(date: string, overrides: Record<string, unknown> = {}, as = 'admin') {
  return call('services/', { body: service(date, overrides), as });
}

/** The required service items (ADR 043): the seed requires Brakes, Tyres and Lights. */
async function requiredItems() {
  const rows = (await call('service-items/?is_required=true&page_size=100')).body.data.results as { id: number; name_en: string; name_sv: string }[];
  expect(rows.length).toBeGreaterThan(0);
  return rows;
}

/** Answers every required check item of a booked service, as a Buddy would before finishing it. */
async function answerRequired(id: number, as = 'buddy') {
  const items = (await requiredItems()).map((r) => ({ key: r.id, check_status: 3 }));
  const res = await call(`services/${id}/details/`, { method: 'PUT', body: { items }, as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A booked service in a fresh (past) day's morning slot, its required check items answered unless asked not to. */
async function bookedService(status = 2, date = freshPastDate(), { answered = true } = {}) {
  await workSlot(date);
  const res = await book(date, { status });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (status === 2 && answered) await answerRequired(res.body.data.id);
  return res.body.data as { id: number; version: number; status: number };
}

describe('status transitions (ADR 009)', () => {
  const all = [1, 2, 3, 4, 5];
  const allowed = (from: number, to: number, role: string) =>
    SERVICE_STATUS_FLOW.transitions.some((t) => t.from === from && t.to === to && (!t.roles || t.roles.includes(role as 'Admin')));

  it("follows the table: every pair of statuses, as Admin and as the service's Buddy", async () => {
    // Reaching a status needs a path: 1 and 2 are created directly, 3/4/5 by one step from 2 (or 1).
    const reach = async (status: number) => {
      const created = await bookedService(status <= 2 ? status : 2);
      if (status <= 2) return created;
      return (await call(`services/${created.id}/transition/`, { body: { to: status } })).body.data;
    };
    for (const role of ['admin', 'buddy']) {
      for (const from of all) {
        for (const to of all.filter((s) => s !== from)) {
          const record = await reach(from);
          expect(record.status).toBe(from);
          const res = await call(`services/${record.id}/transition/`, { body: { to, version: record.version }, as: role });
          const expected = allowed(from, to, role === 'admin' ? 'Admin' : 'Buddy');
          expect(res.status, `${role}: ${from} → ${to}`).toBe(expected ? 200 : 409);
          if (expected) expect(res.body.data.status).toBe(to);
          else expect(res.body.error).toMatchObject({ message: 'invalid_transition', fields: { status: 'validation.transition' } });
        }
      }
    }
  }, 120_000);

  it('stamps finished_at when a service is finished, and leaves final states alone', async () => {
    const record = await bookedService();
    expect(record).toMatchObject({ finished_at: null });
    const finished = await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' });
    expect(finished.body.data.finished_at).toEqual(expect.any(String));
    expect(Date.now() - Date.parse(finished.body.data.finished_at)).toBeLessThan(60_000);
    const { rows } = await up.db.query<{ finished_at: Date }>('select finished_at from services where id = $1', [record.id]);
    expect(rows[0]!.finished_at).not.toBeNull();
    // The form (PUT) obeys the same table as the action.
    const reopened = await call(`services/${record.id}/`, { method: 'PUT', body: { ...service(finished.body.data.service_date), status: 2, version: finished.body.data.version } });
    expect(reopened.status).toBe(409);
    expect(reopened.body.error.message).toBe('invalid_transition');
  });

  it('refuses a stale version and a status a new service cannot start in', async () => {
    const record = await bookedService();
    await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' });
    const stale = await call(`services/${record.id}/transition/`, { body: { to: 3, version: record.version } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toBe('conflict');
    const date = freshDate();
    await workSlot(date);
    for (const status of [3, 4, 5]) {
      const res = await book(date, { status });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ status: 'validation.initialStatus' });
    }
  });
});

describe('N3: finishing before the service date (ADR 028)', () => {
  it('is refused with a field message, for the form too; an Admin may override explicitly, a Buddy may not', async () => {
    const record = await bookedService(2, freshDate());
    const early = { status: 409, body: { error: { message: 'finish_before_date', fields: { status: 'validation.finishBeforeDate' } } } };
    expect(await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' })).toMatchObject(early);
    expect(await call(`services/${record.id}/transition/`, { body: { to: 4 } })).toMatchObject(early);
    expect(await call(`services/${record.id}/`, { method: 'PATCH', body: { version: record.version, status: 4 } })).toMatchObject(early);
    expect(await call(`services/${record.id}/transition/`, { body: { to: 4, force: true }, as: 'buddy' })).toMatchObject({
      status: 403,
      body: { error: { message: 'forbidden' } },
    });
    const forced = await call(`services/${record.id}/transition/`, { body: { to: 4, force: true, version: record.version } });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.data).toMatchObject({ status: 4, finished_at: expect.any(String) });
    // Cancelling ahead of the date is still anyone's right.
    const other = await bookedService(2, freshDate());
    expect((await call(`services/${other.id}/transition/`, { body: { to: 3 }, as: 'buddy' })).status).toBe(200);
  });
});

describe('N5: a finished or canceled service keeps its buddy, date and slot (ADR 028)', () => {
  it('refuses the form and a dispatch move (PATCH) with a field message; other fields and open services still change', async () => {
    for (const [status, as] of [
      [4, 'buddy'],
      [3, 'buddy'],
      [5, 'admin'],
    ] as const) {
      const date = freshPastDate();
      // Room everywhere it could go, so only the rule can refuse it.
      for (const slot of [1, 2]) {
        await workSlot(date, { service_slot_id: slot });
        await workSlot(date, { buddy_id: otherBuddy, service_slot_id: slot });
      }
      const created = (await book(date)).body.data as { id: number; version: number };
      await answerRequired(created.id);
      const closed = (await call(`services/${created.id}/transition/`, { body: { to: status }, as })).body.data as { version: number };
      const patch = (body: Record<string, unknown>) => call(`services/${created.id}/`, { method: 'PATCH', body: { version: closed.version, ...body } });
      for (const [key, value] of [
        ['buddy_id', otherBuddy],
        ['service_slot_id', 2],
        ['service_date', freshPastDate()],
      ] as const) {
        expect(await patch({ [key]: value }), `${status}: ${key}`).toMatchObject({
          status: 409,
          body: { error: { message: 'final_service_fixed', fields: { [key]: 'validation.finalKeepsBuddyAndSlot' } } },
        });
      }
      expect((await call(`services/${created.id}/`)).body.data).toMatchObject({ buddy_id: buddy, service_slot_id: 1, service_date: date });
      expect((await patch({ notes: 'Left the bike at the gate' })).status).toBe(200);
    }
    const open = await bookedService();
    expect((await call(`services/${open.id}/`, { method: 'PATCH', body: { version: open.version, service_slot_id: 1, notes: 'moved' } })).status).toBe(200);
  });
});

describe('capacity (ADR 010)', () => {
  it('refuses a buddy who has no work slot then', async () => {
    const res = await book(freshDate());
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ message: 'buddy_not_scheduled', fields: { service_slot_id: 'validation.buddyNotScheduled' } });
  });

  it("refuses more services than the slot's max; a cancelled service frees its place", async () => {
    const date = freshDate();
    // The Evening slot takes 2 services.
    await workSlot(date, { service_slot_id: 3, max_services_per_day: 10 });
    const first = await book(date, { service_slot_id: 3 });
    expect((await book(date, { service_slot_id: 3, status: 1 })).status).toBe(201);
    const full = await book(date, { service_slot_id: 3 });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({
      message: 'slot_full',
      cause: 'This slot is fully booked for the bike buddy on this day.',
      fields: { service_slot_id: 'validation.slotFull' },
    });
    await call(`services/${first.body.data.id}/transition/`, { body: { to: 5 } });
    expect((await book(date, { service_slot_id: 3 })).status).toBe(201);
  });

  it("refuses more services than the buddy's max per day, across slots", async () => {
    const date = freshDate();
    await workSlot(date, { service_slot_id: 1, max_services_per_day: 2 });
    await workSlot(date, { service_slot_id: 2, max_services_per_day: 2 });
    expect((await book(date, { service_slot_id: 1 })).status).toBe(201);
    expect((await book(date, { service_slot_id: 2 })).status).toBe(201);
    const full = await book(date, { service_slot_id: 2 });
    expect(full.status).toBe(409);
    expect(full.body.error).toMatchObject({ message: 'day_full', fields: { service_date: 'validation.dayFull' } });
  });

  it('refuses a not-working slot and a day marked as not working', async () => {
    const date = freshDate();
    await workSlot(date, { service_slot_id: 1 });
    await workSlot(date, { service_slot_id: 2, is_working_day: false });
    expect((await call('not-working-slots/', { body: { user_id: buddy, service_date: date, service_slot_id: 1, notes: 'Dentist' } })).status).toBe(201);
    for (const slot of [1, 2]) {
      const res = await book(date, { service_slot_id: slot });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ message: 'buddy_not_working', fields: { service_slot_id: 'validation.buddyNotWorking' } });
    }
  });

  it('lets only one of many simultaneous bookings take the last place', async () => {
    const date = freshDate();
    await workSlot(date, { service_slot_id: 1, max_services_per_day: 1 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => book(date)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const { rows } = await up.db.query<{ n: number }>('select count(*)::int as n from services where buddy_id = $1 and service_date = $2', [buddy, date]);
    expect(rows[0]!.n).toBe(1);
  });

  it('keeps booked services valid: no moving, closing or deleting their work slot, no not-working slot over them', async () => {
    const date = freshDate();
    const slot = await workSlot(date, { max_services_per_day: 3 });
    expect((await book(date)).status).toBe(201);
    expect((await book(date)).status).toBe(201);
    const put = (changes: Record<string, unknown>) =>
      call(`buddy-work-slots/${slot.id}/`, {
        method: 'PUT',
        body: { buddy_id: buddy, service_date: date, service_slot_id: 1, max_services_per_day: 3, is_working_day: true, ...changes, version: slot.version },
      });
    expect((await put({ service_slot_id: 2 })).body.error).toMatchObject({ message: 'has_bookings', fields: { service_slot_id: 'validation.hasBookings' } });
    expect((await put({ is_working_day: false })).body.error).toMatchObject({ message: 'has_bookings', fields: { is_working_day: 'validation.hasBookings' } });
    expect((await put({ max_services_per_day: 1 })).body.error).toMatchObject({ message: 'has_bookings', fields: { max_services_per_day: 'validation.maxBelowBookings' } });
    expect((await call(`buddy-work-slots/${slot.id}/`, { method: 'DELETE' })).status).toBe(409);
    const away = await call('not-working-slots/', { body: { user_id: buddy, service_date: date, service_slot_id: 1 } });
    expect(away.status).toBe(409);
    expect(away.body.error.message).toBe('has_bookings');
    const notes = await put({ notes: 'Bring the truing stand' });
    expect(notes.status).toBe(200);
  });

  it('refuses a second work slot for the same buddy, day and slot', async () => {
    const date = freshDate();
    await workSlot(date);
    const again = await call('buddy-work-slots/', { body: { buddy_id: buddy, service_date: date, service_slot_id: 1, max_services_per_day: 2 } });
    expect(again.status).toBe(400);
    expect(again.body.error.fields).toEqual({ service_slot_id: 'validation.workSlotExists' });
  });

  it('requires max services per day greater than zero (§5)', async () => {
    const res = await call('buddy-work-slots/', { body: { buddy_id: buddy, service_date: freshDate(), service_slot_id: 1, max_services_per_day: 0 } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({ max_services_per_day: 'validation.min:1' });
  });
});

describe('operation range (ADR 011)', () => {
  it('accepts a point 3699 m from the centre and refuses one 3701 m away, in every direction', async () => {
    const date = freshDate();
    await workSlot(date, { max_services_per_day: 100 });
    await up.db.query('update service_slots set max = 100 where id = 1');
    try {
      for (const bearing of [0, 90, 180, 270, 45]) {
        const inside = destinationPoint(centre, bearing, 3699);
        const outside = destinationPoint(centre, bearing, 3701);
        expect(distanceMetres(centre, inside)).toBeCloseTo(3699, 3);
        const ok = await book(date, { latitude: inside.lat, longitude: inside.lng });
        expect(ok.status, `inside at ${bearing}°`).toBe(201);
        const refused = await book(date, { latitude: outside.lat, longitude: outside.lng });
        expect(refused.status, `outside at ${bearing}°`).toBe(400);
        expect(refused.body.error).toEqual({ message: 'invalid_address', cause: 'Please enter a valid address.', fields: { address: 'validation.invalidAddress' } });
      }
    } finally {
      await up.db.query('update service_slots set max = 4 where id = 1');
    }
  });

  it('refuses moving a service out of the range, and a missing location with its own message', async () => {
    const record = await bookedService();
    const far = destinationPoint(centre, 120, 5000);
    const current = (await call(`services/${record.id}/`)).body.data;
    const moved = await call(`services/${record.id}/`, { method: 'PATCH', body: { latitude: far.lat, longitude: far.lng, version: current.version } });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toBe('invalid_address');
    const missing = await book(freshDate(), { latitude: null, longitude: null, buddy_id: null });
    expect(missing.body.error.fields).toEqual({ latitude: 'validation.locationRequired', longitude: 'validation.locationRequired', buddy_id: 'validation.buddyRequired' });
  });

  it('enforces the configured range, not the default', async () => {
    const small = await startUpstream({
      port: 0,
      demoPassword: DEMO_PASSWORD,
      logger: testLogger('upstream-services'),
      config: { scryptCost: 1024, operationRange: { centre: { lat: 59.3293, lng: 18.0686 }, radiusMetres: 500 } },
    });
    try {
      const login = await (
        await fetch(small.url + 'account/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
        })
      ).json();
      const post = (path: string, body: unknown) =>
        fetch(small.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${login.data.token}` }, body: JSON.stringify(body) }).then(
          async (r) => ({ status: r.status, body: await r.json() }),
        );
      const buddyId = (await small.db.query<{ id: number }>("select id from users where email = 'buddy@example.com'")).rows[0]!.id;
      await post('buddy-work-slots/', { buddy_id: buddyId, service_date: '2097-06-01', service_slot_id: 1, max_services_per_day: 4 });
      const at = (metres: number) => destinationPoint({ lat: 59.3293, lng: 18.0686 }, 10, metres);
      const base = { buddy_id: buddyId, bicycle_id: 1, service_slot_id: 1, service_date: '2097-06-01', status: 2, origin_type: 'b2b' };
      expect((await post('services/', { ...base, latitude: at(499).lat, longitude: at(499).lng })).status).toBe(201);
      expect((await post('services/', { ...base, latitude: at(800).lat, longitude: at(800).lng })).body.error.message).toBe('invalid_address');
    } finally {
      await small.close();
    }
  });
});

describe('what a Buddy may see and do', () => {
  it('lists, reads and finds in calendars only the services assigned to them', async () => {
    const mine = await bookedService();
    const date = freshDate();
    await call('buddy-work-slots/', { body: { buddy_id: otherBuddy, service_date: date, service_slot_id: 1, max_services_per_day: 4 } });
    const theirs = (await book(date, { buddy_id: otherBuddy })).body.data;

    const list = (await call('services/?page_size=100', { as: 'buddy' })).body.data;
    expect(list.results.length).toBeGreaterThan(0);
    expect(list.results.every((s: { buddy_id: number }) => s.buddy_id === buddy)).toBe(true);
    const all = (await call('services/?page_size=100')).body.data;
    expect(all.paginator.count).toBeGreaterThan(list.paginator.count);
    // Asking for someone else's services by filter changes nothing.
    expect((await call(`services/?buddy_id=${otherBuddy}`, { as: 'buddy' })).body.data.results).toEqual([]);

    expect((await call(`services/${mine.id}/`, { as: 'buddy' })).status).toBe(200);
    expect((await call(`services/${theirs.id}/`, { as: 'buddy' })).status).toBe(404);
    expect((await call(`services/${theirs.id}/details/`, { as: 'buddy' })).status).toBe(404);
    expect((await call(`services/${theirs.id}/transition/`, { body: { to: 3 }, as: 'buddy' })).status).toBe(404);
    const calendar = (await call(`services/calendar/?from=${date}&to=${date}`, { as: 'buddy' })).body.data.results;
    expect(calendar).toEqual([]);
    expect((await call(`services/calendar/?from=${date}&to=${date}`)).body.data.results.map((s: { id: number }) => s.id)).toContain(theirs.id);
  });

  it('cannot book, edit or delete services, even their own', async () => {
    const mine = await bookedService();
    expect((await book(freshDate(), {}, 'buddy')).status).toBe(403);
    expect((await call(`services/${mine.id}/`, { method: 'PUT', body: { ...service('2097-01-01'), version: 1 }, as: 'buddy' })).status).toBe(403);
    expect((await call(`services/${mine.id}/`, { method: 'DELETE', as: 'buddy' })).status).toBe(403);
  });

  it('manages only their own work slots and not-working slots', async () => {
    const date = freshDate();
    const own = await call('buddy-work-slots/', { body: { buddy_id: buddy, service_date: date, service_slot_id: 2, max_services_per_day: 3 }, as: 'buddy' });
    expect(own.status).toBe(201);
    const forOther = await call('buddy-work-slots/', { body: { buddy_id: otherBuddy, service_date: date, service_slot_id: 2, max_services_per_day: 3 }, as: 'buddy' });
    expect(forOther.status).toBe(403);
    const others = (await call(`buddy-work-slots/?buddy_id=${otherBuddy}&page_size=10`)).body.data.results;
    expect(others.length).toBeGreaterThan(0);
    expect((await call(`buddy-work-slots/${others[0].id}/`, { as: 'buddy' })).status).toBe(404);
    expect((await call(`buddy-work-slots/${others[0].id}/`, { method: 'DELETE', as: 'buddy' })).status).toBe(404);
    const listed = (await call('buddy-work-slots/?page_size=100', { as: 'buddy' })).body.data.results as { buddy_id: number }[];
    expect(listed.every((w) => w.buddy_id === buddy)).toBe(true);
    const away = await call('not-working-slots/', { body: { user_id: buddy, service_date: date, service_slot_id: 3, notes: 'Course' }, as: 'buddy' });
    expect(away.status).toBe(201);
    expect((await call('not-working-slots/', { body: { user_id: otherBuddy, service_date: date, service_slot_id: 3 }, as: 'buddy' })).status).toBe(403);
    expect((await call(`buddy-work-slots/${own.body.data.id}/`, { method: 'DELETE', as: 'buddy' })).status).toBe(200);
  });

  it('refuses a work slot for someone who is not a buddy', async () => {
    const res = await call('buddy-work-slots/', { body: { buddy_id: 1, service_date: freshDate(), service_slot_id: 1, max_services_per_day: 3 } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({ buddy_id: 'validation.option' });
  });
});

describe('service details', () => {
  it('are recorded per service item while the service is booked, then kept as they were', async () => {
    const record = await bookedService(2, freshPastDate(), { answered: false });
    const rows = (await call(`services/${record.id}/details/`, { as: 'buddy' })).body.data as { service_item_id: number; is_required: boolean; detail: unknown }[];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.every((r) => r.detail === null)).toBe(true);
    // An optional item, so answering the required ones before finishing leaves it as this test set it.
    const item = rows.find((r) => !r.is_required)!.service_item_id;
    const saved = await call(`services/${record.id}/details/${item}/`, { method: 'PUT', body: { check_status: 1, needs_repair: true, notes: 'Pads worn' }, as: 'buddy' });
    expect(saved.status).toBe(200);
    expect(saved.body.data.detail).toMatchObject({ check_status: 1, needs_repair: true, notes: 'Pads worn', images: [] });
    const again = await call(`services/${record.id}/details/${item}/`, { method: 'PUT', body: { check_status: 2, needs_repair: false }, as: 'buddy' });
    expect(again.body.data.detail).toMatchObject({ check_status: 2, needs_repair: false, notes: null, version: 2 });
    expect((await call(`services/${record.id}/details/${item}/`, { method: 'PUT', body: { check_status: 4 }, as: 'buddy' })).body.error.fields).toEqual({
      check_status: 'validation.checkStatusRequired',
    });
    // Only files from our signed uploads can be attached.
    const foreign = await call(`services/${record.id}/details/${item}/images/`, { body: { url: 'https://evil.example/x.png' }, as: 'buddy' });
    expect(foreign.status).toBe(400);

    await answerRequired(record.id);
    expect((await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' })).status).toBe(200);
    const closed = await call(`services/${record.id}/details/${item}/`, { method: 'PUT', body: { check_status: 3 }, as: 'buddy' });
    expect(closed.status).toBe(409);
    expect(closed.body.error.message).toBe('service_not_booked');
    expect(
      ((await call(`services/${record.id}/details/`)).body.data as { service_item_id: number; detail: unknown }[]).find((r) => r.service_item_id === item)!.detail,
    ).toMatchObject({
      check_status: 2,
    });
  });
});

describe('the checklist as one form (ADR 043)', () => {
  type Row = {
    service_item_id: number;
    name_en: string;
    is_required: boolean;
    detail: { check_status: number | null; needs_repair: boolean; notes: string | null; version: number } | null;
  };
  const details = async (id: number) => (await call(`services/${id}/details/`, { as: 'buddy' })).body.data as Row[];

  it('saves every item sent in one request, and none when one of them is refused', async () => {
    const record = await bookedService(2, freshPastDate(), { answered: false });
    const rows = await details(record.id);
    const [a, b, c] = rows;
    const saved = await call(`services/${record.id}/details/`, {
      method: 'PUT',
      as: 'buddy',
      body: {
        items: [
          { key: a!.service_item_id, check_status: 1, needs_repair: true, notes: ' Pads worn ' },
          { key: b!.service_item_id, check_status: 2 },
          { key: c!.service_item_id, check_status: 3, notes: '' },
        ],
      },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // The answer is the checklist as it now is.
    const after = saved.body.data as Row[];
    expect(after.find((r) => r.service_item_id === a!.service_item_id)!.detail).toMatchObject({ check_status: 1, needs_repair: true, notes: 'Pads worn', version: 1 });
    expect(after.find((r) => r.service_item_id === b!.service_item_id)!.detail).toMatchObject({ check_status: 2, needs_repair: false, notes: null });
    expect(after.find((r) => r.service_item_id === c!.service_item_id)!.detail).toMatchObject({ check_status: 3, notes: null });

    // One bad item (a check status out of range, an unknown service item) refuses the whole request: nothing changes.
    const bad = await call(`services/${record.id}/details/`, {
      method: 'PUT',
      as: 'buddy',
      body: {
        items: [
          { key: a!.service_item_id, check_status: 2 },
          { key: b!.service_item_id, check_status: 7 },
        ],
      },
    });
    expect(bad).toMatchObject({ status: 400, body: { error: { message: 'validation_error', fields: { 'items.1.check_status': 'validation.option' } } } });
    const unknown = await call(`services/${record.id}/details/`, {
      method: 'PUT',
      as: 'buddy',
      body: {
        items: [
          { key: a!.service_item_id, check_status: 2 },
          { key: 9_999_999, check_status: 2 },
        ],
      },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: { fields: { 'items.1.key': 'validation.option' } } } });
    const duplicate = await call(`services/${record.id}/details/`, {
      method: 'PUT',
      as: 'buddy',
      body: {
        items: [
          { key: a!.service_item_id, check_status: 2 },
          { key: a!.service_item_id, check_status: 3 },
        ],
      },
    });
    expect(duplicate).toMatchObject({ status: 400, body: { error: { fields: { items: 'validation.duplicateKeys' } } } });
    expect((await call(`services/${record.id}/details/`, { method: 'PUT', as: 'buddy', body: { items: [] } })).status).toBe(400);
    const still = await details(record.id);
    expect(still.find((r) => r.service_item_id === a!.service_item_id)!.detail).toMatchObject({ check_status: 1, version: 1 });

    // A failure inside the transaction (the database refuses the second row) leaves the first unwritten too.
    await up.db.query(`create or replace function refuse_second_item() returns trigger language plpgsql as $$
      begin if new.service_item_id = ${b!.service_item_id} and new.check_status = 1 then raise exception 'refused for the test'; end if; return new; end $$`);
    await up.db.query('create trigger refuse_second_item before insert or update on service_details for each row execute function refuse_second_item()');
    try {
      const failed = await call(`services/${record.id}/details/`, {
        method: 'PUT',
        as: 'buddy',
        body: {
          items: [
            { key: a!.service_item_id, check_status: 3 },
            { key: b!.service_item_id, check_status: 1 },
          ],
        },
      });
      expect(failed.status).toBeGreaterThanOrEqual(400);
    } finally {
      await up.db.query('drop trigger refuse_second_item on service_details');
      await up.db.query('drop function refuse_second_item()');
    }
    expect((await details(record.id)).find((r) => r.service_item_id === a!.service_item_id)!.detail).toMatchObject({ check_status: 1, version: 1 });

    // Only the service's own Buddy (or an Admin) writes its checklist, and only while it is booked.
    const others = await bookedService(2, freshPastDate(), { answered: false });
    await up.db.query('update services set buddy_id = $2 where id = $1', [others.id, otherBuddy]);
    expect((await call(`services/${others.id}/details/`, { method: 'PUT', as: 'buddy', body: { items: [{ key: a!.service_item_id, check_status: 2 }] } })).status).toBe(404);
    expect((await call(`services/${others.id}/details/`, { method: 'PUT', body: { items: [{ key: a!.service_item_id, check_status: 2 }] } })).status).toBe(200);
  });

  it('refuses finishing while required items are unanswered, naming them in the caller’s language', async () => {
    const required = await requiredItems();
    const record = await bookedService(2, freshPastDate(), { answered: false });
    const first = required[0]!;
    // One required item answered, the others not (service #57 was finished with 1 of 6 answered).
    await call(`services/${record.id}/details/`, { method: 'PUT', as: 'buddy', body: { items: [{ key: first.id, check_status: 2 }] } });
    const open = required.slice(1);
    const names = (lang: 'en' | 'sv') => open.map((r) => (lang === 'sv' ? r.name_sv : r.name_en)).sort((x, y) => x.localeCompare(y, lang));

    const refused = await upstreamCall(up.url, `services/${record.id}/transition/`, { body: { to: 4 }, token: tokens.buddy });
    expect(refused).toMatchObject({ status: 409, body: { error: { message: 'checklist_incomplete', fields: { status: 'validation.checklistIncomplete' } } } });
    expect(refused.body.error.cause).toBe(`Answer the required check items before finishing the service: ${names('en').join(', ')}.`);
    const swedish = await fetch(`${up.url}services/${record.id}/transition/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.buddy}`, 'accept-language': 'sv' },
      body: JSON.stringify({ to: 4 }),
    });
    const sv = (await swedish.json()) as { error: { cause: string } };
    expect(sv.error.cause).toBe(`Besvara de obligatoriska kontrollpunkterna innan servicen avslutas: ${names('sv').join(', ')}.`);
    expect(names('sv')).toContain('Däck');

    // Every way of finishing is refused alike: the Admin's form (PATCH) and an Admin's override of the date rule.
    const current = (await call(`services/${record.id}/`)).body.data;
    expect(await call(`services/${record.id}/`, { method: 'PATCH', body: { version: current.version, status: 4 } })).toMatchObject({
      status: 409,
      body: { error: { message: 'checklist_incomplete' } },
    });
    expect(await call(`services/${record.id}/transition/`, { body: { to: 4, force: true } })).toMatchObject({ status: 409, body: { error: { message: 'checklist_incomplete' } } });
    expect((await call(`services/${record.id}/`)).body.data.status).toBe(2);

    // Optional items may stay open; with the required ones answered the service is finished.
    await answerRequired(record.id);
    const finished = await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.data.status).toBe(4);
  });
});

describe('service photos (§9 service_image, ADR 043)', () => {
  /** A file stored through the signed upload flow, as the phone's camera would send it. */
  async function uploaded(as: string, kind = 'service_image') {
    const signed = await call(`upload/?kind=${kind}&content_type=image%2Fpng`, { as });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/2ZrGgwAAAABJRU5ErkJggg==', 'base64');
    const put = await fetch(signed.body.data.url, { method: 'PUT', headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' }, body: png });
    expect(put.status).toBeLessThan(300);
    return signed.body.data.access_url as string;
  }

  it('are added and removed by the service’s Buddy while it is booked, from our uploads only, and read with the service', async () => {
    const record = await bookedService();
    const url = await uploaded('buddy');
    const added = await call(`services/${record.id}/images/`, { body: { url }, as: 'buddy' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.data).toMatchObject({ id: expect.any(Number), url, created_at: expect.any(String) });
    expect((await call(`services/${record.id}/images/`, { as: 'buddy' })).body.data).toEqual([added.body.data]);

    // Not a file from elsewhere, not another kind's upload, not another person's upload.
    const refusedImage = { status: 400, body: { error: { fields: { url: 'validation.uploadedImage' } } } };
    expect(await call(`services/${record.id}/images/`, { body: { url: 'https://evil.example/x.png' }, as: 'buddy' })).toMatchObject(refusedImage);
    expect(await call(`services/${record.id}/images/`, { body: { url: await uploaded('buddy', 'service_detail_image') }, as: 'buddy' })).toMatchObject(refusedImage);
    expect(await call(`services/${record.id}/images/`, { body: { url: await uploaded('admin') }, as: 'buddy' })).toMatchObject(refusedImage);

    // Another buddy's service is not theirs to see or change (the shop's account is a Buddy too).
    const others = await bookedService();
    await up.db.query('update services set buddy_id = $2 where id = $1', [others.id, otherBuddy]);
    expect((await call(`services/${others.id}/images/`, { as: 'buddy' })).status).toBe(404);
    expect((await call(`services/${others.id}/images/`, { body: { url: await uploaded('buddy') }, as: 'buddy' })).status).toBe(404);
    expect((await call(`services/${record.id}/images/`, { as: 'shop' })).status).toBe(404);
    expect((await call(`services/${record.id}/images/${added.body.data.id}/`, { method: 'DELETE', as: 'shop' })).status).toBe(404);
    expect((await call(`services/${record.id}/images/`, { as: 'buddy' })).body.data).toHaveLength(1);

    // The bicycle's history shows the service's photos.
    const history = (await call(`bicycles/1/services/?page_size=100`)).body.data.results as { id: number; photos: string[] }[];
    expect(history.find((h) => h.id === record.id)!.photos).toEqual([url]);

    // Removed by its Buddy; a finished service's photos are the record of the work.
    expect((await call(`services/${record.id}/images/${added.body.data.id}/`, { method: 'DELETE', as: 'buddy' })).status).toBe(200);
    expect((await call(`services/${record.id}/images/`, { as: 'buddy' })).body.data).toEqual([]);
    const kept = await call(`services/${record.id}/images/`, { body: { url }, as: 'buddy' });
    expect((await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' })).status).toBe(200);
    expect(await call(`services/${record.id}/images/${kept.body.data.id}/`, { method: 'DELETE', as: 'buddy' })).toMatchObject({
      status: 409,
      body: { error: { message: 'service_not_booked' } },
    });
  });
});

describe('checklist-row images (ADR 058)', () => {
  async function uploaded(as: string) {
    const signed = await call('upload/?kind=service_detail_image&content_type=image%2Fpng', { as });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/2ZrGgwAAAABJRU5ErkJggg==', 'base64');
    const put = await fetch(signed.body.data.url, { method: 'PUT', headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' }, body: png });
    expect(put.status).toBeLessThan(300);
    return signed.body.data.access_url as string;
  }
  const entries = async (id: number) =>
    (
      await up.db.query<{ action: string; changes: Record<string, [unknown, unknown]> }>(
        "select action, changes from audit_log where entity = 'services' and record_id = $1 order by id",
        [id],
      )
    ).rows;

  it('refuse another user’s upload, and their adds and removals are entries of the service’s history', async () => {
    const record = await bookedService();
    const item = Number((await up.db.query<{ id: number }>('select id from service_items order by id limit 1')).rows[0]!.id);
    const refused = await call(`services/${record.id}/details/${item}/images/`, { body: { url: await uploaded('admin') }, as: 'buddy' });
    expect(refused).toMatchObject({ status: 400, body: { error: { fields: { url: 'validation.uploadedImage' } } } });
    const before = (await entries(record.id)).length;
    const url = await uploaded('buddy');
    const added = await call(`services/${record.id}/details/${item}/images/`, { body: { url }, as: 'buddy' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await call(`services/${record.id}/details/${item}/images/${added.body.data.id}/`, { method: 'DELETE', as: 'buddy' })).status).toBe(200);
    const recorded = (await entries(record.id)).slice(before);
    expect(recorded).toEqual([
      { action: 'details.images.add', changes: { images: [null, { service_item_id: item, url }] } },
      { action: 'details.images.remove', changes: { images: [{ id: added.body.data.id, service_item_id: item, url }, null] } },
    ]);
  });
});

describe('expert requests', () => {
  it('are cancelled through their status flow, once', async () => {
    const created = await call('expert-requests/', { body: { requested_date: '2097-02-02', status: 1, user_id: 4, description: 'Frame check' } });
    expect(created.status).toBe(201);
    const cancelled = await call(`expert-requests/${created.body.data.id}/transition/`, { body: { to: 4, version: 1 } });
    expect(cancelled.body.data).toMatchObject({ status: 4, canceled_at: expect.any(String) });
    expect((await call(`expert-requests/${created.body.data.id}/transition/`, { body: { to: 2 } })).status).toBe(409);
    expect((await call(`expert-requests/${created.body.data.id}/transition/`, { body: { to: 4 }, as: 'buddy' })).status).toBe(403);
  });
});

describe('rating (§5: numeric, 1 to 5; ADR 023)', () => {
  it('is taken on a finished service from 1 to 5; 0, 6, 2.5 and text are refused with a field message', async () => {
    const record = await bookedService();
    const finished = (await call(`services/${record.id}/transition/`, { body: { to: 4 }, as: 'buddy' })).body.data;
    const rate = (rating: unknown) => call(`services/${record.id}/`, { method: 'PATCH', body: { version: finished.version, rating } });
    for (const [value, message] of [
      [0, 'validation.min:1'],
      [6, 'validation.max:5'],
      [2.5, 'validation.integer'],
      ['five', 'validation.number'],
      [-1, 'validation.min:1'],
    ] as const) {
      const res = await rate(value);
      expect(res.status, `rating ${value}`).toBe(400);
      expect(res.body.error).toMatchObject({ message: 'validation_error', fields: { rating: message } });
    }
    const { rows: unchanged } = await up.db.query<{ rating: number | null; version: number }>('select rating, version from services where id = $1', [record.id]);
    expect(unchanged[0]).toEqual({ rating: null, version: finished.version });
    for (const value of [1, 5]) {
      const current = (await call(`services/${record.id}/`)).body.data;
      const res = await call(`services/${record.id}/`, { method: 'PATCH', body: { version: current.version, rating: value } });
      expect(res.status).toBe(200);
      expect(res.body.data.rating).toBe(value);
    }
    // Only an Admin edits a service, its rating included.
    const current = (await call(`services/${record.id}/`)).body.data;
    expect((await call(`services/${record.id}/`, { method: 'PATCH', body: { version: current.version, rating: 2 }, as: 'buddy' })).status).toBe(403);
  });

  it('belongs to finished services only: a booked one is refused, and the database holds the rule too', async () => {
    const record = await bookedService();
    const res = await call(`services/${record.id}/`, { method: 'PATCH', body: { version: record.version, rating: 4 } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({ rating: 'validation.ratingNeedsFinished' });
    await expect(up.db.query('update services set rating = 4 where id = $1', [record.id])).rejects.toThrow(/services_rating_finished_check/);
    await expect(up.db.query('update services set rating = 7 where status = 4 and id = (select min(id) from services where status = 4)')).rejects.toThrow(/services_rating_check/);
  });

  it('sorts the list, unrated services last', async () => {
    const res = await call('services/?ordering=-rating&status=4&page_size=100');
    const ratings = (res.body.data.results as { rating: number | null }[]).map((s) => s.rating);
    const rated = ratings.filter((r) => r !== null) as number[];
    expect(rated.length).toBeGreaterThan(0);
    expect(rated).toEqual([...rated].sort((a, b) => b - a));
    expect(ratings.slice(0, rated.length)).toEqual(rated);
  });
});

describe('service types (a catalogue, §1/§7; ADR 023)', () => {
  it('are referenced by services, labelled in the request language; an unknown one is refused', async () => {
    const types = (await call('service-types/?page_size=100')).body.data.results as { id: number; name_en: string; name_sv: string }[];
    const repair = types.find((t) => t.name_en === 'Repair')!;
    expect(repair.name_sv).toBe('Reparation');
    const date = freshDate();
    await workSlot(date);
    const unknown = await book(date, { service_type_id: 999_999 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.fields).toEqual({ service_type_id: 'validation.option' });
    const created = await book(date, { service_type_id: repair.id });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ service_type_id: repair.id, service_type_id_label: 'Repair' });
    const swedish = await fetch(`${up.url}services/${created.body.data.id}/`, { headers: { authorization: `Bearer ${tokens.admin}`, 'accept-language': 'sv' } });
    expect(((await swedish.json()) as { data: { service_type_id_label: string } }).data.service_type_id_label).toBe('Reparation');
    const filtered = await call(`services/?service_type_id=${repair.id}&page_size=100`);
    expect((filtered.body.data.results as { service_type_id: number }[]).every((s) => s.service_type_id === repair.id)).toBe(true);
  });

  it('cannot be deleted while a service uses one; an unused one can', async () => {
    const used = (await call('service-types/?search=Basic')).body.data.results[0] as { id: number };
    const refused = await call(`service-types/${used.id}/`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe('in_use');
    const spare = await call('service-types/', { body: { name_en: 'Wheel truing', name_sv: 'Hjulriktning', duration_minutes: 30, price_sek: 295 } });
    expect(spare.status).toBe(201);
    expect((await call(`service-types/${spare.body.data.id}/`, { method: 'DELETE' })).status).toBe(200);
  });

  it('an inactive one is refused as a newly chosen type; a service keeping the one it has stays valid (ADR 041)', async () => {
    const type = { name_en: 'Saddle fitting', name_sv: 'Sadelanpassning', duration_minutes: 30, price_sek: 250 };
    const made = await call('service-types/', { body: type });
    expect(made.status).toBe(201);
    const date = freshDate();
    await workSlot(date);
    const booked = await book(date, { service_type_id: made.body.data.id });
    expect(booked.status).toBe(201);
    const retired = await call(`service-types/${made.body.data.id}/`, { method: 'PUT', body: { ...type, is_active: false, version: made.body.data.version } });
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);

    // The service keeps it: an edit of other fields is saved, the label still reads.
    const kept = await call(`services/${booked.body.data.id}/`, {
      method: 'PUT',
      body: { ...service(date, { service_type_id: made.body.data.id }), notes: 'Kept its type', version: booked.body.data.version },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data).toMatchObject({ service_type_id: made.body.data.id, service_type_id_label: 'Saddle fitting', notes: 'Kept its type' });

    // A new service, or another service changing to it, may not choose it.
    const fresh = await book(date, { service_type_id: made.body.data.id });
    expect(fresh.status).toBe(400);
    expect(fresh.body.error.fields).toEqual({ service_type_id: 'validation.option' });
    const other = await book(date);
    expect(other.status).toBe(201);
    const changed = await call(`services/${other.body.data.id}/`, {
      method: 'PUT',
      body: { ...service(date, { service_type_id: made.body.data.id }), version: other.body.data.version },
    });
    expect(changed.status).toBe(400);
    expect(changed.body.error.fields).toEqual({ service_type_id: 'validation.option' });

    // The choice list's query: active entries only, the inactive one still listed without the filter.
    const active = (await call('service-types/?is_active=true&page_size=100')).body.data.results as { id: number }[];
    expect(active.map((t) => t.id)).not.toContain(made.body.data.id);
    const all = (await call('service-types/?page_size=100')).body.data.results as { id: number }[];
    expect(all.map((t) => t.id)).toContain(made.body.data.id);
  });
});
