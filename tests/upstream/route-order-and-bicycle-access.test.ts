import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';
import { startUpstream } from '../../upstream/start.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';
import { testLogger } from '../support/run-log.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * ADR 044 against the reference API: a buddy reads the bicycles of their own services (record and history) and
 * no other, as declared by `access.readThrough`; the orderRoute action applies a day's visiting order.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
const tokens: Record<string, string> = {};
const ids = { bo: 0, sam: 0 };

function call(path: string, { as, ...init }: { method?: string; body?: unknown; as?: string } = {}) {
  return upstreamCall(up.url, path, { ...init, token: tokens[as ?? 'admin'] });
}

const centre = DEFAULT_OPERATION_RANGE.centre;
async function newService(date: string, buddy: number, bicycle: number, extra: Record<string, unknown> = {}) {
  const res = await call('services/', {
    body: {
      buddy_id: buddy,
      bicycle_id: bicycle,
      service_slot_id: 1,
      service_date: date,
      status: 2,
      origin_type: 'one_off',
      latitude: centre.lat,
      longitude: centre.lng,
      address: 'Sergels torg',
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; version: number; route_position: number };
}

async function newBicycle(serial: string): Promise<number> {
  const res = await call('bicycles/', {
    body: {
      brand_and_model: 'Route Test',
      serial_number: serial,
      groupset: 'Shimano',
      drivetrain: 'Chain',
      front_brake: 'Disc',
      lock_model: 'Abus',
      tyre_size: '28',
      tyre_diameter: '622',
      valve_type: 'presta',
      age_and_condition: 'Good',
      purchase_date: '2024-01-01',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as number;
}

/** Bo and Sam work the morning and afternoon slots of the day. */
async function workDay(date: string) {
  for (const buddy of [ids.bo, ids.sam])
    for (const slot of [1, 2]) {
      const res = await call('buddy-work-slots/', { body: { buddy_id: buddy, service_date: date, service_slot_id: slot, max_services_per_day: 10 } });
      expect([201, 400]).toContain(res.status);
    }
}

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-route-order'), config: { scryptCost: 1024 } });
  for (const who of ['admin', 'buddy', 'shop']) {
    tokens[who] = (await call('account/login', { body: { email: `${who}@example.com`, password: DEMO_PASSWORD } })).body.data.token;
  }
  const buddies = (await call('buddies/?page_size=100')).body.data.results as { id: number; email: string }[];
  ids.bo = buddies.find((b) => b.email === 'buddy@example.com')!.id;
  ids.sam = buddies.find((b) => b.email === 'shop@example.com')!.id;
});
afterAll(async () => up?.close());

describe('a buddy reads the bicycles of their own services (access.readThrough)', () => {
  it('reads the bicycle and its history through their service; another bicycle is a 404; lists stay closed', async () => {
    const [mine, others, untouched] = [await newBicycle('RT-1'), await newBicycle('RT-2'), await newBicycle('RT-3')];
    const date = '2097-05-04';
    await workDay(date);
    await workDay('2097-05-05');
    await newService(date, ids.bo, mine);
    await newService(date, ids.sam, others);
    await newService('2097-05-05', ids.sam, mine);

    const record = await call(`bicycles/${mine}/`, { as: 'buddy' });
    expect(record.status, JSON.stringify(record.body)).toBe(200);
    expect(record.body.data.id).toBe(mine);
    const history = await call(`bicycles/${mine}/services/`, { as: 'buddy' });
    expect(history.status).toBe(200);
    // The whole history of the bicycle, the other buddy's service too: what was found on it before.
    expect(history.body.data.results).toHaveLength(2);

    for (const id of [others, untouched, 999_999]) {
      expect((await call(`bicycles/${id}/`, { as: 'buddy' })).status, `record ${id}`).toBe(404);
      expect((await call(`bicycles/${id}/services/`, { as: 'buddy' })).status, `history ${id}`).toBe(404);
      expect((await call(`bicycles/${id}/images/`, { as: 'buddy' })).status, `images ${id}`).toBe(404);
    }
    // Sam (Buddy + Shop) reads the bicycle of his own service, not Bo's only one.
    expect((await call(`bicycles/${others}/`, { as: 'shop' })).status).toBe(200);
    expect((await call(`bicycles/${mine}/services/`, { as: 'shop' })).status).toBe(200);
    expect((await call(`bicycles/${untouched}/`, { as: 'shop' })).status).toBe(404);
    // Reading through is one record at a time: no list, export or choice list, and no writing.
    expect((await call('bicycles/', { as: 'buddy' })).status).toBe(403);
    expect((await call('bicycles/export/', { as: 'buddy' })).status).toBe(403);
    expect((await call(`bicycles/${mine}/`, { as: 'buddy', method: 'PATCH', body: { version: record.body.data.version, year: '2001' } })).status).toBe(403);
    expect((await call(`bicycles/${mine}/deactivate/`, { as: 'buddy', body: {} })).status).toBe(403);
    // An Admin reads every bicycle as before.
    expect((await call(`bicycles/${untouched}/services/`)).status).toBe(200);
  });
});

describe('the orderRoute action', () => {
  const date = '2097-06-10';
  const stops: { id: number; version: number }[] = [];

  beforeAll(async () => {
    const bike = await newBicycle('RT-4');
    await workDay(date);
    // Three free stops and one with an agreed time; Sam has a stop the same day.
    stops.push(await newService(date, ids.bo, bike));
    stops.push(await newService(date, ids.bo, bike, { service_time: '10:00' }));
    stops.push(await newService(date, ids.bo, bike, { service_slot_id: 2 }));
    stops.push(await newService(date, ids.bo, bike, { service_slot_id: 2 }));
  });

  const positions = async () => {
    const { rows } = await up.db.query<{ id: number; route_position: number }>('select id, route_position from services where service_date = $1 and buddy_id = $2 order by id', [
      date,
      ids.bo,
    ]);
    return Object.fromEntries(rows.map((r) => [Number(r.id), Number(r.route_position)]));
  };

  it("applies a buddy's order to their own day, and records it in the history", async () => {
    const [a, b, c, d] = stops.map((s) => s.id) as [number, number, number, number];
    expect(await positions()).toEqual({ [a]: 0, [b]: 0, [c]: 0, [d]: 0 });
    const res = await call('services/route-order/', { as: 'buddy', body: { order: [d, b, a, c] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await positions()).toEqual({ [d]: 1, [b]: 2, [a]: 3, [c]: 4 });
    const read = await call(`services/${a}/`, { as: 'buddy' });
    expect(read.body.data).toMatchObject({ route_position: 3, version: stops[0]!.version + 1 });
    const { rows } = await up.db.query<{ action: string; changes: unknown }>(
      "select action, changes from audit_log where entity = 'services' and action = 'orderRoute' order by id desc limit 1",
    );
    expect(rows[0]).toMatchObject({ action: 'orderRoute', changes: { order: [null, [d, b, a, c]] } });
    // Each stop moved is an entry of its own history, routed to its buddy for live updates (ADR 058).
    const { rows: perStop } = await up.db.query<{ record_id: number; changes: unknown; owners: number[] }>(
      "select record_id, changes, owners from audit_log where entity = 'services' and action = 'orderRoute' and record_id is not null and record_id = any($1::bigint[]) order by record_id",
      [[a, b, c, d]],
    );
    expect(perStop.map((r) => [Number(r.record_id), r.changes, r.owners.map(Number)])).toEqual(
      [
        [a, { route_position: [0, 3] }, [ids.bo]],
        [b, { route_position: [0, 2] }, [ids.bo]],
        [c, { route_position: [0, 4] }, [ids.bo]],
        [d, { route_position: [0, 1] }, [ids.bo]],
      ].sort((x, y) => (x[0] as number) - (y[0] as number)),
    );
  });

  it("refuses an incomplete day, another buddy's stop, a broken time order and a stale set of stops", async () => {
    const [a, b, c, d] = stops.map((s) => s.id) as [number, number, number, number];
    expect((await call('services/route-order/', { as: 'buddy', body: { order: [a, b, c] } })).body.error.message).toBe('conflict');
    const { rows } = await up.db.query<{ id: number }>('select id from services where buddy_id = $1 limit 1', [ids.sam]);
    const foreign = Number(rows[0]!.id);
    expect((await call('services/route-order/', { as: 'buddy', body: { order: [a, b, c, d, foreign] } })).status).toBe(404);
    // An Admin sees Sam's stop, but a route is one buddy's day.
    const mixed = await call('services/route-order/', { body: { order: [a, b, c, d, foreign] } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.fields).toEqual({ order: 'validation.option' });
    // Only one stop has a time here, so the time order cannot break: give a second one an earlier time (in the
    // morning slot, which holds it: a time outside its slot is refused, ADR 066).
    const current = (await call(`services/${c}/`)).body.data;
    expect((await call(`services/${c}/`, { method: 'PATCH', body: { version: current.version, service_slot_id: 1, service_time: '09:00' } })).status).toBe(200);
    // The stop's time changed: it left the applied order.
    expect((await positions())[c]).toBe(0);
    const broken = await call('services/route-order/', { as: 'buddy', body: { order: [b, c, a, d] } });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ message: 'validation_error', fields: { order: 'validation.routeTimes' } });
    expect((await call('services/route-order/', { as: 'buddy', body: { order: [c, b, a, d] } })).status).toBe(200);
    expect((await call('services/route-order/', { as: 'buddy', body: { order: [a, a, b, c] } })).status).toBe(400);
    expect((await call('services/route-order/', { as: 'buddy', body: { order: [] } })).status).toBe(400);
    expect((await call('services/route-order/', { as: 'none', body: { order: [a] } })).status).toBe(401);
  });

  it('lets an Admin unassign a booked service back to the requests, and nobody else', async () => {
    const [, b] = stops.map((s) => s.id) as [number, number];
    const current = (await call(`services/${b}/`)).body.data;
    expect((await call(`services/${b}/transition/`, { as: 'buddy', body: { to: 1, version: current.version } })).status).toBe(409);
    const res = await call(`services/${b}/transition/`, { body: { to: 1, version: current.version } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 1, buddy_id: ids.bo, service_slot_id: 1 });
  });
});
