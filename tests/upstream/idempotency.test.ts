import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';
import { startUpstream } from '../../upstream/start.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';
import { testLogger } from '../support/run-log.ts';
import { upstreamCall, type UpstreamBody } from '../support/upstream-call.ts';

/**
 * Idempotent writes (ADR 042): any write with an `Idempotency-Key` is done once per user and key; the same
 * request again answers the stored result without writing; another user's key of the same name is theirs.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
const tokens: Record<string, string> = {};
let buddy = 0;

async function send(path: string, { as = 'admin', key, method = 'POST', body }: { as?: string; key?: string; method?: string; body?: unknown }) {
  const res = await fetch(up.url + path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[as]}`, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body ?? {}),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: (await res.json()) as UpstreamBody };
}

const auditCount = async (entity: string, recordId: number) =>
  Number((await up.db.query<{ n: number }>('select count(*)::int as n from audit_log where entity = $1 and record_id = $2', [entity, recordId])).rows[0]!.n);

let day = 0;
/** A booked service of the demo buddy on a fresh past day (finishing needs its date to have come). */
async function bookedService() {
  day += 1;
  const date = new Date(Date.UTC(1996, 0, 1 + day)).toISOString().slice(0, 10);
  const slot = await upstreamCall(up.url, 'buddy-work-slots/', {
    token: tokens.admin,
    body: { buddy_id: buddy, service_date: date, service_slot_id: 1, max_services_per_day: 4, is_working_day: true },
  });
  expect(slot.status, JSON.stringify(slot.body)).toBe(201);
  const { lat, lng } = DEFAULT_OPERATION_RANGE.centre;
  const res = await upstreamCall(up.url, 'services/', {
    token: tokens.admin,
    body: { buddy_id: buddy, bicycle_id: 1, service_slot_id: 1, service_date: date, status: 2, origin_type: 'one_off', latitude: lat, longitude: lng, address: 'Sergels torg' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const service = res.body.data as { id: number; version: number };
  // Finishing needs the required check items answered (ADR 043): answered beforehand, as on another device.
  await up.db.query(`insert into service_details (service_id, service_item_id, check_status) select $1, i.id, 3 from service_items i where i.is_required on conflict do nothing`, [
    service.id,
  ]);
  return service;
}

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-idempotency'), config: { scryptCost: 1024 } });
  for (const who of ['admin', 'buddy', 'shop']) {
    const res = await upstreamCall(up.url, 'account/login', { body: { email: `${who}@example.com`, password: DEMO_PASSWORD } });
    tokens[who] = res.body.data.token;
  }
  const buddies = (await upstreamCall(up.url, 'buddies/?page_size=100', { token: tokens.admin })).body.data.results as { id: number; email: string }[];
  buddy = buddies.find((b) => b.email === 'buddy@example.com')!.id;
});
afterAll(async () => up?.close());

describe('Idempotency-Key on writes (ADR 042)', () => {
  it('a create sent twice with one key writes one record and answers the same both times', async () => {
    const body = { name_en: 'Idempotent type', name_sv: 'Idempotent type', is_active: true };
    const first = await send('service-types/', { key: 'create-1', body });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await send('service-types/', { key: 'create-1', body });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe('true');
    expect(again.body).toEqual(first.body);
    const { rows } = await up.db.query<{ n: number }>('select count(*)::int as n from service_types where name_en = $1', ['Idempotent type']);
    expect(rows[0]!.n).toBe(1);
    expect(await auditCount('service-types', first.body.data.id)).toBe(1);
  });

  it('keeps no personal data readable for its day: the answer encrypted, the request only as a keyed hash (ADR 058, I1)', async () => {
    const { rows: users } = await up.db.query<{ id: number }>("select id from users where email = 'user@example.com'");
    const id = Number(users[0]!.id);
    const detail = (await upstreamCall(up.url, `users/${id}/`, { token: tokens.admin })).body.data;
    const ssn = '19900101-4821';
    const body = { first_name: detail.first_name, last_name: detail.last_name, is_active: true, user_type: detail.user_type, version: detail.version, social_security_number: ssn };
    const first = await send(`users/${id}/`, { key: 'ssn-1', method: 'PUT', body });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await send(`users/${id}/`, { key: 'ssn-1', method: 'PUT', body });
    expect([again.replayed, again.body]).toEqual(['true', first.body]);
    const { rows } = await up.db.query<{ fingerprint: string; body: string }>("select fingerprint, body from idempotency_keys where key = 'ssn-1'");
    expect(rows).toHaveLength(1);
    for (const value of [rows[0]!.fingerprint, rows[0]!.body]) {
      expect(value).not.toContain(ssn);
      expect(value).not.toContain('"data"');
    }
    // Not the plain SHA-256 of the body, which trying every number would reverse.
    expect(rows[0]!.fingerprint).not.toContain(createHash('sha256').update(JSON.stringify(body)).digest('base64url'));
  });

  it('a transition replayed is done once: one history entry, one version step, the first answer again', async () => {
    const service = await bookedService();
    const step = { to: 4, version: service.version };
    const first = await send(`services/${service.id}/transition/`, { as: 'buddy', key: 'finish-a', body: step });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const entries = await auditCount('services', service.id);
    const again = await send(`services/${service.id}/transition/`, { as: 'buddy', key: 'finish-a', body: step });
    expect(again).toMatchObject({ status: 200, replayed: 'true', body: first.body });
    expect(await auditCount('services', service.id)).toBe(entries);
    const { rows } = await up.db.query<{ version: number }>('select version from services where id = $1', [service.id]);
    expect(rows[0]!.version).toBe(first.body.data.version);
  });

  it('a refusal is remembered too: the same key answers the same 409, a new key asks again', async () => {
    const service = await bookedService();
    await send(`services/${service.id}/transition/`, { key: 'office-move', body: { to: 3, version: service.version } });
    const stale = await send(`services/${service.id}/transition/`, { as: 'buddy', key: 'stale-finish', body: { to: 4, version: service.version } });
    expect(stale.status).toBe(409);
    const again = await send(`services/${service.id}/transition/`, { as: 'buddy', key: 'stale-finish', body: { to: 4, version: service.version } });
    expect(again).toMatchObject({ status: 409, replayed: 'true', body: stale.body });
  });

  it("is scoped per user: another user's same key is a new request and never sees the first answer", async () => {
    const body = { name_en: 'Per-user key', name_sv: 'Per-user key', is_active: true };
    const admin = await send('service-types/', { key: 'shared-key', body });
    expect(admin.status).toBe(201);
    // The Buddy may not create service types: with the same key they get their own refusal, not the Admin's record.
    const buddyAnswer = await send('service-types/', { as: 'buddy', key: 'shared-key', body });
    expect(buddyAnswer.status).toBe(403);
    expect(buddyAnswer.replayed).toBeNull();
    expect(JSON.stringify(buddyAnswer.body)).not.toContain(String(admin.body.data.id));
    // And a write both may do runs for each of them.
    const service = await bookedService();
    const mine = await send(`services/${service.id}/transition/`, { as: 'buddy', key: 'shared-key', body: { to: 4, version: service.version } });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.replayed).toBeNull();
    expect(mine.body.data).toMatchObject({ id: service.id, status: 4 });
  });

  it('refuses a key reused for another request, and a key that is not one', async () => {
    const first = await send('service-types/', { key: 'reuse-me', body: { name_en: 'Reuse A', name_sv: 'Reuse A', is_active: true } });
    expect(first.status).toBe(201);
    const other = await send('service-types/', { key: 'reuse-me', body: { name_en: 'Reuse B', name_sv: 'Reuse B', is_active: true } });
    expect(other.status).toBe(422);
    expect(other.body.error.message).toBe('idempotency_key_reused');
    expect((await up.db.query<{ n: number }>("select count(*)::int as n from service_types where name_en = 'Reuse B'")).rows[0]!.n).toBe(0);
    const bad = await send('service-types/', { key: 'has space', body: { name_en: 'Reuse C', name_sv: 'Reuse C', is_active: true } });
    expect(bad.status).toBe(400);
  });

  it('without a key nothing changes: the same create twice is run twice (the second meets the unique name)', async () => {
    const body = { name_en: 'Keyless type', name_sv: 'Keyless type', is_active: true };
    expect((await send('service-types/', { body })).status).toBe(201);
    const second = await send('service-types/', { body });
    expect(second.replayed).toBeNull();
    expect(second.status).toBe(400);
  });
});
