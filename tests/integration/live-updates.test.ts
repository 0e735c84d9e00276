import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChange } from '../../upstream/lib/audit.ts';
import { LIVE_LIMITS } from '../../server/live/hub.ts';
import en from '../../locales/en/common.json';
import sv from '../../locales/sv/common.json';
import { agent, mutate, signIn, type Agent } from '../support/http.ts';
import { openSse, type SseFrame, type SseReader } from '../support/live-stream.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Live updates (ADR 037) on the in-process stack: a committed write reaches the streams of those who may see
 * it, a refused or rolled-back one reaches nobody, a buddy hears of their own services only, a reconnect with
 * Last-Event-ID misses nothing, and a logout ends the stream at once.
 */

let stack: Stack;
let adminToken = '';
const readers: SseReader[] = [];

async function api(path: string, body: unknown, method: string) {
  const res = await fetch(stack.upstream.url + path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, ...((await res.json()) as { data: any }) };
}

async function cookieHeader(client: Agent): Promise<string> {
  const cookies = await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false });
  return cookies.map((c: { name: string; value: string }) => `${c.name}=${c.value}`).join('; ');
}

async function stream(client: Agent, lastEventId?: string) {
  const reader = await openSse(`${stack.baseUrl}/live`, { cookie: await cookieHeader(client), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) });
  readers.push(reader);
  return reader;
}

async function signedIn(email: string, password = DEMO_PASSWORD) {
  const client = agent(stack);
  await signIn(client, email, password);
  return client;
}

const change = (frame: SseFrame) => JSON.parse(frame.data) as { id: number; entity: string; record_id: number; action: string; user_id: number };
const about = (entity: string, recordId: number) => (frame: SseFrame) => frame.event === 'change' && change(frame).entity === entity && change(frame).record_id === recordId;

async function userId(email: string): Promise<number> {
  const { rows } = await stack.upstream.db.query<{ id: number }>('select id from users where email = $1', [email]);
  return Number(rows[0]!.id);
}

/** A service given to `buddy` (set in the table directly: no change announced). */
async function serviceOf(buddy: number, skip: number[] = []): Promise<number> {
  const { rows } = await stack.upstream.db.query<{ id: number }>('select id from services where not (id = any($1::bigint[])) order by id limit 1', [skip]);
  const id = Number(rows[0]!.id);
  await stack.upstream.db.query('update services set buddy_id = $1 where id = $2', [buddy, id]);
  return id;
}

async function touch(serviceId: number, notes: string) {
  const current = await fetch(`${stack.upstream.url}services/${serviceId}/`, { headers: { authorization: `Bearer ${adminToken}` } });
  const { data } = (await current.json()) as { data: { version: number } };
  const res = await api(`services/${serviceId}/`, { version: data.version, notes }, 'PATCH');
  expect(res.status).toBe(200);
  return data.version + 1;
}

beforeAll(async () => {
  stack = await startStack();
  const login = await fetch(stack.upstream.url + 'account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
  });
  adminToken = ((await login.json()) as { data: { token: string } }).data.token;
});
afterAll(async () => {
  for (const reader of readers) reader.close();
  await stack?.close();
});

describe('live updates', () => {
  it('refuses signed-out, role-less and cross-site streams, and the API stream without the secret or an Admin token', async () => {
    expect((await fetch(`${stack.baseUrl}/live`)).status).toBe(401);
    const admin = await signedIn('admin@example.com');
    expect((await fetch(`${stack.baseUrl}/live`, { headers: { cookie: await cookieHeader(admin), 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    const customer = await signedIn('user@example.com');
    expect((await fetch(`${stack.baseUrl}/live`, { headers: { cookie: await cookieHeader(customer) } })).status).toBe(403);
    expect((await fetch(`${stack.upstream.url}audit/events/`)).status).toBe(401);
    expect((await fetch(`${stack.upstream.url}audit/events/`, { headers: { 'x-forwarded-secret': 'not-the-secret' } })).status).toBe(401);
    const buddyLogin = await fetch(stack.upstream.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'buddy@example.com', password: DEMO_PASSWORD }),
    });
    const buddyToken = ((await buddyLogin.json()) as { data: { token: string } }).data.token;
    expect((await fetch(`${stack.upstream.url}audit/events/`, { headers: { authorization: `Bearer ${buddyToken}` } })).status).toBe(403);
  });

  it('a write reaches the admin; a buddy hears of their own service only; refused and rolled-back writes publish nothing', async () => {
    const bo = await userId('buddy@example.com');
    const sam = await userId('shop@example.com');
    const mine = await serviceOf(bo);
    const theirs = await serviceOf(sam, [mine]);
    const adminStream = await stream(await signedIn('admin@example.com'));
    const boStream = await stream(await signedIn('buddy@example.com'));
    expect(adminStream.status).toBe(200);
    expect(boStream.status).toBe(200);
    // Both streams are attached once the hub has answered (the first stream starts the subscription).
    await new Promise((resolve) => setTimeout(resolve, 500));

    await touch(theirs, 'live: another buddy’s service');
    const first = change(await adminStream.next(about('services', theirs)));
    expect(first).toMatchObject({ entity: 'services', record_id: theirs, action: 'update' });
    expect(first).not.toHaveProperty('owner');

    // Refused: a stale version (409) never reaches the log, so nothing is announced.
    const stale = await api(`services/${mine}/`, { version: 999, notes: 'stale' }, 'PATCH');
    expect(stale.status).toBe(409);
    // Rolled back after the entry and its NOTIFY were written: PostgreSQL delivers nothing.
    await stack.upstream.db
      .transaction(async (tx) => {
        await recordChange(tx, stack.upstream.config.auditKey, {
          userId: null,
          role: null,
          address: null,
          requestId: null,
          entity: 'services',
          recordId: mine,
          action: 'update',
          changes: { notes: ['a', 'b'] },
          owners: [bo],
        });
        throw new Error('roll back');
      })
      .catch(() => undefined);

    await touch(mine, 'live: my service');
    const next = change(await adminStream.next((f) => f.event === 'change'));
    // The very next change the admin hears of is this one, numbered right after the first: nothing in between.
    expect(next).toMatchObject({ entity: 'services', record_id: mine, id: first.id + 1 });
    const boFrame = change(await boStream.next((f) => f.event === 'change'));
    expect(boFrame).toMatchObject({ record_id: mine, id: first.id + 1 });
    // Bo never heard of Sam's service.
    expect(boStream.frames.some(about('services', theirs))).toBe(false);
  });

  it('a reconnect with Last-Event-ID is sent what it missed', async () => {
    const admin = await signedIn('admin@example.com');
    const before = await stream(admin);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const service = await serviceOf(await userId('buddy@example.com'));
    await touch(service, 'live: seen');
    const seen = await before.next(about('services', service));
    before.close();
    await touch(service, 'live: missed 1');
    await touch(service, 'live: missed 2');
    const after = await stream(admin, seen.id);
    const missed = [await after.next((f) => f.event === 'change'), await after.next((f) => f.event === 'change')];
    expect(missed.map((f) => Number(f.id))).toEqual([Number(seen.id) + 1, Number(seen.id) + 2]);
    expect(after.frames.some((f) => f.event === 'gap')).toBe(false);
    // An id far past anything seen (another, reset database): told it may have missed some, not made to wait.
    const unknown = await stream(admin, '999999');
    await unknown.next((f) => f.event === 'gap');
  });

  it('the API replays from its log too: its stream resumes after Last-Event-ID', async () => {
    const service = await serviceOf(await userId('buddy@example.com'));
    await touch(service, 'live: api replay');
    const { rows } = await stack.upstream.db.query<{ id: number }>('select max(id) as id from audit_log');
    const last = Number(rows[0]!.id);
    const api = await openSse(`${stack.upstream.url}audit/events/`, { authorization: `Bearer ${adminToken}`, 'last-event-id': String(last - 1) });
    readers.push(api);
    const replayed = JSON.parse((await api.next((f) => f.event === 'change')).data) as { id: number; owner: number[] };
    expect(replayed.id).toBe(last);
    expect(replayed.owner).toEqual([await userId('buddy@example.com')]);
    // An id this database never gave: a gap, then the stream goes on from the newest entry.
    const ahead = await openSse(`${stack.upstream.url}audit/events/`, { authorization: `Bearer ${adminToken}`, 'last-event-id': String(last + 5000) });
    readers.push(ahead);
    await ahead.next((f) => f.event === 'gap');
  });

  it('logging out ends the session’s stream at once', async () => {
    const buddy = await signedIn('buddy@example.com');
    const open = await stream(buddy);
    expect(open.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    expect((await mutate(buddy, 'auth.logout')).status).toBe(200);
    await open.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps the streams of a session: past the cap 429 with a translated message, a slot again once one closed (ADR 058)', async () => {
    const shop = await signedIn('shop@example.com');
    const open = await Promise.all(Array.from({ length: LIVE_LIMITS.perSession }, () => stream(shop)));
    expect(open.map((reader) => reader.status)).toEqual(open.map(() => 200));
    const refused = await fetch(`${stack.baseUrl}/live`, { headers: { cookie: await cookieHeader(shop), accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.text()).toBe(en.errors.too_many_streams);
    const swedishCookie = (await cookieHeader(shop))
      .split('; ')
      .filter((cookie) => !cookie.startsWith('lang='))
      .concat('lang=sv')
      .join('; ');
    const swedish = await fetch(`${stack.baseUrl}/live`, { headers: { cookie: swedishCookie } });
    expect([swedish.status, await swedish.text()]).toEqual([429, sv.errors.too_many_streams]);
    open[0]!.close();
    let again: SseReader | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      again?.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await stream(shop);
    }
    expect(again!.status).toBe(200);
  });
});
