import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldDef } from '../../shared/entity/define.ts';
import { userUpdateFields } from '../../shared/schemas/users.ts';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { openMigrated } from '../support/pglite-template.ts';
import { diff, recordChange, verifyChain, type StoredEntry } from '../../upstream/lib/audit.ts';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * The change history (ADR 035): every create, update, transition and delete of the engine writes one entry
 * in its own transaction, with exactly the fields that changed; the keyed hash chain names the first entry
 * that was edited, removed or reordered.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };
let up: Upstream;
const tokens: Record<string, string> = {};
const root = join(import.meta.dirname, '..', '..');

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-audit'), config: { scryptCost: 1024 } });
  for (const who of ['admin', 'buddy']) tokens[who] = (await call('account/login', { body: { email: `${who}@example.com`, password: DEMO_PASSWORD } })).body.data.token;
});
afterAll(async () => up?.close());

/** A call as the back office makes it: the client's address forwarded with the API's secret (ADR 028), and a request id. */
async function call(path: string, init: { method?: string; body?: unknown; as?: string; ip?: string; requestId?: string } = {}) {
  const token = init.as === undefined ? tokens.admin : tokens[init.as];
  const res = await fetch(up.url + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.ip ? { 'x-forwarded-for': init.ip, 'x-forwarded-secret': up.config.forwardedSecret! } : {}),
      ...(init.requestId ? { 'x-request-id': init.requestId } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Body };
}

type Entry = Omit<StoredEntry, 'at'>;
const entriesOf = async (entity: string, recordId: number) =>
  (
    await up.db.query<Entry>('select id, user_id, role, address, request_id, entity, record_id, action, changes from audit_log where entity = $1 and record_id = $2 order by id', [
      entity,
      recordId,
    ])
  ).rows.map((e) => ({ ...e, id: Number(e.id), user_id: e.user_id === null ? null : Number(e.user_id), record_id: e.record_id === null ? null : Number(e.record_id) }));
const entryCount = async () => Number((await up.db.query<{ n: number }>('select count(*)::int as n from audit_log')).rows[0]!.n);
const verify = () => verifyChain(up.db, up.config.auditKey);
/** As the table's owner may (ADR 059): the API's role is refused by the history's triggers. */
const aroundTriggers = (db: Db, sql: string, params: unknown[] = []) =>
  db.transaction(async (tx) => {
    await tx.query('set local session_replication_role = replica');
    await tx.query(sql, params);
  });

let nextName = 0;
async function asset(overrides: Record<string, unknown> = {}) {
  nextName += 1;
  const res = await call('assets/', { body: { name: `Audit van ${nextName}`, asset_type: 'van', status: 1, ...overrides } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; version: number; name: string };
}

describe('diff', () => {
  const fields: Record<string, FieldDef> = {
    name: { kind: 'text' },
    price: { kind: 'money' },
    api_key: { kind: 'text', secret: true },
    event_status: { kind: 'integer', lookup: { via: 'event_id', column: 'status' } },
  };

  it('answers only the fields that changed, never a secret nor another record’s lookup', () => {
    expect(diff({ name: 'a', price: 10, api_key: 'old', event_status: 1 }, { name: 'a', price: 12, api_key: 'new', event_status: 2 }, fields)).toEqual({ price: [10, 12] });
    expect(diff(null, { name: 'a', price: null, api_key: 'k' }, fields)).toEqual({ name: [null, 'a'] });
    expect(diff({ name: 'a', price: 3 }, null, fields)).toEqual({ name: ['a', null], price: [3, null] });
    expect(diff({ name: 'a' }, { name: 'a' }, fields)).toEqual({});
  });
});

describe('entries of the engine’s writes', () => {
  it('records a create with who, from where and which request, and every value set', async () => {
    const created = await call('assets/', { body: { name: 'Audit cargo bike', asset_type: 'cargo_bike', status: 1, notes: 'new' }, ip: '203.0.113.7' });
    expect(created.status).toBe(201);
    const admin = Number((await up.db.query<{ id: number }>("select id from users where email = 'admin@example.com'")).rows[0]!.id);
    const [entry, ...more] = await entriesOf('assets', created.body.data.id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ user_id: admin, address: '203.0.113.7', entity: 'assets', action: 'create' });
    expect(entry!.role!.split(',')).toContain('Admin');
    expect(entry!.request_id).toBeTruthy();
    expect(entry!.changes).toEqual({ name: [null, 'Audit cargo bike'], asset_type: [null, 'cargo_bike'], status: [null, 1], notes: [null, 'new'] });
  });

  it('records an update of two fields as one entry with exactly those two fields’ before and after', async () => {
    const a = await asset({ notes: 'before' });
    const res = await call(`assets/${a.id}/`, { method: 'PATCH', body: { version: a.version, notes: 'after', purchase_value: 1200 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = await entriesOf('assets', a.id);
    expect(entries.map((e) => e.action)).toEqual(['create', 'update']);
    expect(entries[1]!.changes).toEqual({ notes: ['before', 'after'], purchase_value: [null, 1200] });
  });

  it('records nothing for a write that changes nothing, a stale version (409) or a refused value (400)', async () => {
    const a = await asset();
    const before = await entryCount();
    expect((await call(`assets/${a.id}/`, { method: 'PATCH', body: { version: a.version, name: a.name } })).status).toBe(200);
    expect((await call(`assets/${a.id}/`, { method: 'PATCH', body: { version: a.version, notes: 'too late' } })).status).toBe(409);
    expect((await call(`assets/${a.id}/`, { method: 'PATCH', body: { version: a.version + 1, asset_type: 'spaceship' } })).status).toBe(400);
    // Refused by the entity's rules inside the transaction: In use needs a buddy.
    expect((await call(`assets/${a.id}/transition/`, { body: { to: 2 } })).status).toBe(400);
    expect((await call('assets/', { body: { name: 'Audit refused', asset_type: 'nope', status: 1 } })).status).toBe(400);
    expect(await entryCount()).toBe(before);
    expect(await entriesOf('assets', a.id)).toHaveLength(1);
  });

  it('records a status change through the transition route as a transition, and a delete with the values it removed', async () => {
    const a = await asset({ identifier: 'AUD-1' });
    expect((await call(`assets/${a.id}/transition/`, { body: { to: 3 } })).status).toBe(200);
    // A transition to the status the record already has writes nothing, so records nothing.
    expect((await call(`assets/${a.id}/transition/`, { body: { to: 3 } })).status).toBe(200);
    expect((await call(`assets/${a.id}/`, { method: 'DELETE' })).status).toBe(200);
    const entries = await entriesOf('assets', a.id);
    expect(entries.map((e) => e.action)).toEqual(['create', 'transition', 'delete']);
    expect(entries[1]!.changes).toEqual({ status: [1, 3] });
    expect(entries[2]!.changes).toEqual({ name: [a.name, null], asset_type: ['van', null], identifier: ['AUD-1', null], status: [3, null] });
  });

  it('records a user’s update (served by the users’ own route) with its declared fields only, never credentials', async () => {
    const shop = Number((await up.db.query<{ id: number }>("select id from users where email = 'shop@example.com'")).rows[0]!.id);
    const user = (await call(`users/${shop}/`)).body.data as Record<string, unknown> & { version: number; first_name: string | null };
    // PUT sends the whole record: every field as it is, two changed.
    const fields = Object.fromEntries(Object.keys(userUpdateFields.shape).map((k) => [k, user[k]]));
    const res = await call(`users/${shop}/`, { method: 'PUT', body: { ...fields, version: user.version, first_name: 'Audited', city: 'Uppsala' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // A stale version changes nothing and records nothing.
    expect((await call(`users/${shop}/`, { method: 'PUT', body: { ...fields, version: user.version, first_name: 'Too late' } })).status).toBe(409);
    const entries = await entriesOf('users', shop);
    expect(entries).toHaveLength(1);
    // A person's values are stored sealed under their own key (ADR 076), and read opened.
    const sealed = expect.objectContaining({ $p: 1, s: shop });
    expect(entries[0]).toMatchObject({ action: 'update', changes: { first_name: [sealed, sealed], city: [sealed, sealed] } });
    expect(Object.keys(entries[0]!.changes).sort()).toEqual(['city', 'first_name']);
    const read = (await call(`audit/?entity=users&record_id=${shop}`)).body.data.results[0];
    expect(read).toMatchObject({ action: 'update', changes: { first_name: [user.first_name, 'Audited'], city: [user.city, 'Uppsala'] } });
  });

  it('chains writers that run at once in the order they committed', async () => {
    const assets = await Promise.all(Array.from({ length: 6 }, () => asset()));
    const answers = await Promise.all(assets.map((a, i) => call(`assets/${a.id}/`, { method: 'PATCH', body: { version: a.version, notes: `parallel ${i}` } })));
    expect(answers.map((r) => r.status)).toEqual(assets.map(() => 200));
    expect(await verify()).toEqual({ ok: true, count: await entryCount() });
  });
});

const userId = async (email: string) => Number((await up.db.query<{ id: number }>('select id from users where email = $1', [email])).rows[0]!.id);
const lastEntry = async () =>
  (await up.db.query<Entry>('select id, user_id, role, address, request_id, entity, record_id, action, changes from audit_log order by id desc limit 1')).rows[0]!;

describe('entries of declared actions, sub-resources, account events and exports (ADR 038)', () => {
  it('records a declared action under its key, with the record’s changed fields, the forwarded address and the back office’s request id', async () => {
    const bicycle = (await up.db.query<{ id: number }>('select id from bicycles where is_active order by id limit 1')).rows[0]!;
    const id = Number(bicycle.id);
    expect((await call(`bicycles/${id}/deactivate/`, { body: {}, ip: '198.51.100.4', requestId: 'req-deactivate-1' })).status).toBe(200);
    expect((await call(`bicycles/${id}/activate/`, { body: {} })).status).toBe(200);
    const entries = (await entriesOf('bicycles', id)).slice(-2);
    expect(entries.map((e) => [e.action, e.changes])).toEqual([
      ['deactivate', { is_active: [true, false] }],
      ['activate', { is_active: [false, true] }],
    ]);
    expect(entries[0]).toMatchObject({ address: '198.51.100.4', request_id: 'req-deactivate-1', user_id: await userId('admin@example.com') });
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('takes the request id only from the back office: a caller without its secret cannot pick the one its entry records (ADR 058)', async () => {
    const bicycle = (await up.db.query<{ id: number }>('select id from bicycles where is_active order by id limit 1')).rows[0]!;
    const id = Number(bicycle.id);
    expect((await call(`bicycles/${id}/deactivate/`, { body: {}, requestId: 'picked-by-the-caller' })).status).toBe(200);
    expect((await call(`bicycles/${id}/activate/`, { body: {} })).status).toBe(200);
    const [entry] = (await entriesOf('bicycles', id)).slice(-2);
    expect(entry!.action).toBe('deactivate');
    expect(entry!.request_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('records a role given and taken as the sub-resource’s operations, and nothing for a refused one', async () => {
    const shop = await userId('shop@example.com');
    expect((await call(`users/${shop}/roles/`, { body: { role: 'Admin' } })).status).toBe(200);
    expect((await call(`users/${shop}/roles/Admin/`, { method: 'DELETE' })).status).toBe(200);
    const [added, removed] = (await entriesOf('users', shop)).slice(-2);
    expect(added).toMatchObject({ action: 'roles.add', changes: { roles: [null, { role: 'Admin' }] } });
    expect(removed).toMatchObject({ action: 'roles.remove', changes: { roles: ['Admin', null] } });
    // The last active Admin keeps the role (409, ADR 018): refused in its transaction, so no entry.
    const before = await entryCount();
    expect((await call(`users/${await userId('admin@example.com')}/roles/Admin/`, { method: 'DELETE' })).status).toBe(409);
    expect(await entryCount()).toBe(before);
  });

  it('records an action that changes no field of its record (a group’s invitation) with what was asked', async () => {
    const group = await call('trial-groups/', { body: { name: 'Audit trial', description: 'history' } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    expect((await call(`trial-groups/${group.body.data.id}/invites/`, { body: { emails: 'audit-invitee@example.com' } })).status).toBe(200);
    const entries = await entriesOf('trial-groups', group.body.data.id);
    expect(entries.map((e) => e.action)).toEqual(['create', 'invite']);
    expect(entries[1]!.changes).toEqual({ emails: [null, 'audit-invitee@example.com'] });
  });

  it('records sign-in, a failed sign-in and sign-out in the account’s history, never the password', async () => {
    const buddy = await userId('buddy@example.com');
    const failed = await call('account/login', { as: '', body: { email: 'buddy@example.com', password: 'wrong-password-1' }, ip: '192.0.2.8' });
    expect(failed.status).toBe(400);
    // The account tried, but not by its owner: anyone can type an address (ADR 065).
    expect(await lastEntry()).toMatchObject({
      entity: 'users',
      record_id: buddy,
      user_id: null,
      role: null,
      action: 'sign_in_failed',
      address: '192.0.2.8',
      // The address typed is the account's own value: sealed under its key (ADR 076).
      changes: { email: [null, expect.objectContaining({ $p: 1, s: buddy })] },
    });
    const signedIn = await call('account/login', { as: '', body: { email: 'buddy@example.com', password: DEMO_PASSWORD } });
    expect(signedIn.status).toBe(200);
    expect(await lastEntry()).toMatchObject({ record_id: buddy, action: 'sign_in', changes: { method: [null, 'password'] } });
    expect((await call('account/logout', { as: '', body: { refresh_token: signedIn.body.data.refresh_token } })).status).toBe(200);
    expect(await lastEntry()).toMatchObject({ record_id: buddy, user_id: buddy, action: 'sign_out' });
    const { rows } = await up.db.query<{ n: number }>("select count(*)::int as n from audit_log where changes::text like '%' || $1 || '%'", [DEMO_PASSWORD]);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('records a flood of failed sign-ins as a few entries saying how many, not one each (ADR 058)', async () => {
    const tried = 'i9-flood-nobody@example.com';
    const before = Number(
      (await up.db.query<{ n: number }>("select count(*)::int as n from audit_log where action = 'sign_in_failed' and changes->'email'->>1 = $1", [tried])).rows[0]!.n,
    );
    for (let i = 0; i < 5; i++) expect((await call('account/login', { as: '', body: { email: tried, password: 'wrong-password-1' }, ip: '192.0.2.91' })).status).toBe(400);
    const { rows } = await up.db.query<{ changes: Record<string, [unknown, unknown]> }>(
      "select changes from audit_log where action = 'sign_in_failed' and changes->'email'->>1 = $1 order by id",
      [tried],
    );
    expect(before).toBe(0);
    expect(rows.map((r) => r.changes.failures![1])).toEqual([1, 2, 4]);
    expect(rows[2]!.changes).toMatchObject({ email: [null, tried], address_failures: [null, 4] });
  });

  it('records a password reset with the request for it, in the account’s history', async () => {
    const user = await userId('user@example.com');
    expect((await call('account/forgot-password', { as: '', body: { email: 'user@example.com' } })).status).toBe(200);
    expect(await lastEntry()).toMatchObject({ record_id: user, action: 'password_reset_requested' });
    const { rows } = await up.db.query<{ link: string }>("select link from outbox where kind = 'reset' order by id desc limit 1");
    const token = rows[0]!.link.split('/').pop()!;
    expect((await call('account/reset-password', { as: '', body: { token, password: 'A-new-password-42', password_confirm: 'A-new-password-42' } })).status).toBe(200);
    expect(await lastEntry()).toMatchObject({ record_id: user, action: 'password_reset', changes: {} });
  });

  it('records an export with the query it was asked with', async () => {
    const res = await fetch(`${up.url}events/export/?search=Audit`, { headers: { authorization: `Bearer ${tokens.admin}` } });
    expect(res.status).toBe(200);
    await res.text();
    expect(await lastEntry()).toMatchObject({ entity: 'events', record_id: null, action: 'export', changes: { query: [null, { search: 'Audit' }] } });
    expect(await verify()).toMatchObject({ ok: true });
  });
});

describe('the chain', () => {
  /** Two fresh, adjacent entries to tamper with; the chain holds before. */
  async function twoEntries() {
    const a = await asset();
    const b = await asset();
    const [first] = await entriesOf('assets', a.id);
    const [second] = await entriesOf('assets', b.id);
    expect(second!.id).toBe(first!.id + 1);
    expect(await verify()).toMatchObject({ ok: true });
    return [first!.id, second!.id] as const;
  }

  it('names an entry whose content was edited', async () => {
    const [id] = await twoEntries();
    await aroundTriggers(up.db, `update audit_log set changes = jsonb_set(changes, '{name,1}', '"Someone else"') where id = $1`, [id]);
    expect(await verify()).toEqual({ ok: false, firstBadId: id, reason: 'edited' });
    await aroundTriggers(up.db, `update audit_log set changes = jsonb_set(changes, '{name,1}', to_jsonb((select name from assets where id = record_id))) where id = $1`, [id]);
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('names an entry that was removed', async () => {
    const [id] = await twoEntries();
    const { rows } = await up.db.query('select * from audit_log where id = $1', [id]);
    await aroundTriggers(up.db, 'delete from audit_log where id = $1', [id]);
    expect(await verify()).toEqual({ ok: false, firstBadId: id, reason: 'removed' });
    const row = rows[0]!;
    await aroundTriggers(
      up.db,
      'insert into audit_log (id, at, user_id, role, address, request_id, entity, record_id, action, changes, prev_hash, hash) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12)',
      [row.id, row.at, row.user_id, row.role, row.address, row.request_id, row.entity, row.record_id, row.action, JSON.stringify(row.changes), row.prev_hash, row.hash],
    );
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('names the first of two entries whose places were swapped', async () => {
    const [first, second] = await twoEntries();
    const columns = 'at, user_id, role, address, request_id, entity, record_id, action, changes, prev_hash, hash';
    const swap = `update audit_log x set (${columns}) = (select ${columns} from audit_log y where y.id = case when x.id = $1 then $2 else $1 end) where x.id in ($1, $2)`;
    await aroundTriggers(up.db, swap, [first, second]);
    expect(await verify()).toEqual({ ok: false, firstBadId: first, reason: 'reordered' });
    await aroundTriggers(up.db, swap, [first, second]);
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('spends no id on an entry whose transaction rolled back, so the ids stay without gaps', async () => {
    const entry = { userId: null, role: null, address: null, requestId: null, entity: 'assets', recordId: null, action: 'update', changes: { name: ['a', 'b'] } as const };
    await expect(
      up.db.transaction(async (tx) => {
        await recordChange(tx, up.config.auditKey, { ...entry, changes: { name: ['a', 'b'] } });
        throw new Error('the change failed after its entry');
      }),
    ).rejects.toThrow('the change failed');
    const before = await entryCount();
    const id = await up.db.transaction((tx) => recordChange(tx, up.config.auditKey, { ...entry, changes: { name: ['a', 'b'] } }));
    expect(id).toBe(before + 1);
    expect(await verify()).toEqual({ ok: true, count: before + 1 });
  });

  it('does not hold under another key', async () => {
    await asset();
    expect(await verifyChain(up.db, 'x'.repeat(32))).toEqual({ ok: false, firstBadId: 1, reason: 'edited' });
  });
});

describe('GET audit/verify/', () => {
  it('answers the verdict to an Admin and refuses a Buddy', async () => {
    await asset();
    const res = await call('audit/verify/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { ok: true, count: await entryCount() }, error: null });
    expect((await call('audit/verify/', { as: 'buddy' })).status).toBe(403);
    expect((await call('audit/verify/', { as: 'nobody' })).status).toBe(401);
  });
});

describe('GET audit/ and audit/export/ (ADR 036)', () => {
  const idOf = async (email: string) => Number((await up.db.query<{ id: number }>('select id from users where email = $1', [email])).rows[0]!.id);
  /** A service assigned to `email`'s buddy, with one entry of its history written as an Admin's change would be. */
  async function serviceOf(email: string) {
    const buddy = await idOf(email);
    const { rows } = await up.db.query<{ id: number }>('select id from services where buddy_id = $1 order by id limit 1', [buddy]);
    const id = Number(rows[0]!.id);
    const admin = await idOf('admin@example.com');
    await up.db.transaction((tx) =>
      recordChange(tx, up.config.auditKey, {
        userId: admin,
        role: 'Admin',
        address: '192.0.2.44',
        requestId: 'r',
        entity: 'services',
        recordId: id,
        action: 'update',
        changes: { notes: ['a', 'b'] },
      }),
    );
    return id;
  }

  it('lists a record’s history newest first with its author’s name, filtered and paged', async () => {
    const a = await asset({ notes: 'v0' });
    let version = a.version;
    for (let i = 1; i <= 11; i++) {
      const res = await call(`assets/${a.id}/`, { method: 'PATCH', body: { version, notes: `v${i}` } });
      version = res.body.data.version;
    }
    const res = await call(`audit/?entity=assets&record_id=${a.id}&page_size=10`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.paginator).toEqual({ page: 1, page_size: 10, count: 12, total_pages: 2, has_next: true });
    const first = res.body.data.results[0];
    expect(first).toMatchObject({
      entity: 'assets',
      record_id: a.id,
      action: 'update',
      user_id: await idOf('admin@example.com'),
      user_name: 'Ada Admin',
      changes: { notes: ['v10', 'v11'] },
    });
    const ids = res.body.data.results.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    const page2 = await call(`audit/?entity=assets&record_id=${a.id}&page_size=10&page=2`);
    expect(page2.body.data.results.map((e: { action: string }) => e.action)).toEqual(['update', 'create']);
    expect((await call(`audit/?entity=assets&record_id=${a.id}&action=create`)).body.data.paginator.count).toBe(1);
    expect((await call(`audit/?entity=assets&record_id=${a.id}&user_id=${await idOf('buddy@example.com')}`)).body.data.paginator.count).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await call(`audit/?entity=assets&record_id=${a.id}&from=${today}&to=${today}`)).body.data.paginator.count).toBe(12);
    expect((await call(`audit/?entity=assets&record_id=${a.id}&to=${yesterday}`)).body.data.paginator.count).toBe(0);
    expect((await call('audit/?from=2026-13-01')).status).toBe(400);
    expect((await call('audit/?page_size=7')).status).toBe(400);
  });

  it('lets a buddy read the history of their own service only; everything else is the Admin’s', async () => {
    const own = await serviceOf('buddy@example.com');
    const others = await serviceOf('shop@example.com');
    const mine = await call(`audit/?entity=services&record_id=${own}`, { as: 'buddy' });
    expect(mine.status).toBe(200);
    expect(mine.body.data.results[0]).toMatchObject({ record_id: own, changes: { notes: ['a', 'b'] }, user_name: 'Ada Admin' });
    // Where the Admin was, their request and roles are not the buddy's to read (ADR 058); the Admin reads them.
    expect(mine.body.data.results[0]).toMatchObject({ address: null, request_id: null, role: null });
    const asAdmin = await call(`audit/?entity=services&record_id=${own}`);
    expect(asAdmin.body.data.results[0]).toMatchObject({ address: '192.0.2.44', request_id: 'r', role: 'Admin' });
    expect((await call(`audit/?entity=services&record_id=${others}`, { as: 'buddy' })).status).toBe(403);
    expect((await call('audit/?entity=services', { as: 'buddy' })).status).toBe(403);
    expect((await call('audit/', { as: 'buddy' })).status).toBe(403);
    // An entity without an owner field is never a buddy's, whatever the record.
    const a = await asset();
    expect((await call(`audit/?entity=assets&record_id=${a.id}`, { as: 'buddy' })).status).toBe(403);
    expect((await call('audit/export/', { as: 'buddy' })).status).toBe(403);
    expect((await call('audit/', { as: 'nobody' })).status).toBe(401);
  });

  it('answers a reference field’s before and after with the labels of the records they point at', async () => {
    const id = await serviceOf('buddy@example.com');
    const [buddy, admin] = [await idOf('buddy@example.com'), await idOf('admin@example.com')];
    await up.db.transaction((tx) =>
      recordChange(tx, up.config.auditKey, {
        userId: admin,
        role: 'Admin',
        address: '192.0.2.44',
        requestId: 'r',
        entity: 'services',
        recordId: id,
        action: 'update',
        changes: { buddy_id: [buddy, admin], notes: ['b', 'c'] },
      }),
    );
    const [newest] = (await call(`audit/?entity=services&record_id=${id}`)).body.data.results;
    expect(newest).toMatchObject({ changes: { buddy_id: [buddy, admin] }, labels: { buddy_id: ['Bo Buddy', 'Ada Admin'] } });
    expect(Object.keys(newest.labels)).toEqual(['buddy_id']);
  });

  /** An entry as a request would write it, of a record no other test writes to. */
  const write = (entity: string, recordId: number, action: string, changes: Record<string, [unknown, unknown]>, userId: number | null) =>
    up.db.transaction((tx) => recordChange(tx, up.config.auditKey, { userId, role: null, address: null, requestId: 'r', entity, recordId, action, changes }));
  let unused = 9_000_000;

  it('reads a failed sign-in or a reset request as by nobody, even an older entry that named the account (ADR 065)', async () => {
    const buddy = await idOf('buddy@example.com');
    const account = ++unused;
    await write('users', account, 'sign_in_failed', { email: [null, 'someone@example.com'] }, buddy);
    await write('users', account, 'password_reset_requested', {}, buddy);
    await write('users', account, 'sign_in', { method: [null, 'password'] }, buddy);
    const { results } = (await call(`audit/?entity=users&record_id=${account}`)).body.data;
    expect(results.map((e: { action: string; user_id: number | null; user_name: string | null }) => [e.action, e.user_id, e.user_name])).toEqual([
      ['sign_in', buddy, 'Bo Buddy'],
      ['password_reset_requested', null, null],
      ['sign_in_failed', null, null],
    ]);
    // Nor are they listed as the buddy's doing.
    expect((await call(`audit/?entity=users&record_id=${account}&user_id=${buddy}`)).body.data.results.map((e: { action: string }) => e.action)).toEqual(['sign_in']);
  });

  it('hides, shows or lists only the account events, as asked; an action filter naming one shows it (ADR 065)', async () => {
    const account = ++unused;
    const admin = await idOf('admin@example.com');
    await write('users', account, 'roles.add', { roles: [null, { role: 'Buddy' }] }, admin);
    await write('users', account, 'sign_in', { method: [null, 'password'] }, account);
    await write('users', account, 'sign_out', {}, account);
    const actions = async (query: string) => (await call(`audit/?entity=users&record_id=${account}${query}`)).body.data.results.map((e: { action: string }) => e.action).sort();
    expect(await actions('')).toEqual(['roles.add', 'sign_in', 'sign_out']);
    expect(await actions('&account_events=shown')).toEqual(['roles.add', 'sign_in', 'sign_out']);
    expect(await actions('&account_events=hidden')).toEqual(['roles.add']);
    expect(await actions('&account_events=only')).toEqual(['sign_in', 'sign_out']);
    expect(await actions('&account_events=hidden&action=sign_in')).toEqual(['sign_in']);
    expect((await call('audit/?account_events=sometimes')).status).toBe(400);
  });

  it('labels the references inside a sub-resource’s items and an export’s query (ADR 065)', async () => {
    const service = ++unused;
    const admin = await idOf('admin@example.com');
    const buddy = await idOf('buddy@example.com');
    const { rows } = await up.db.query<{ id: number; name_en: string }>('select id, name_en from service_items order by id limit 2');
    const [brakes, chain] = rows.map((r) => ({ id: Number(r.id), name: r.name_en }));
    await write(
      'services',
      service,
      'details.setMany',
      {
        details: [
          null,
          [
            { key: brakes!.id, check_status: 2 },
            { key: chain!.id, check_status: 1 },
          ],
        ],
      },
      admin,
    );
    await write('services', service, 'details.images.add', { images: [null, { service_item_id: chain!.id, url: 'http://x/files/a.png' }] }, admin);
    const [photo, saved] = (await call(`audit/?entity=services&record_id=${service}`)).body.data.results;
    expect(saved.refs).toEqual({ 'details.service_item_id': { [brakes!.id]: brakes!.name, [chain!.id]: chain!.name } });
    expect(photo.refs).toEqual({ 'images.service_item_id': { [chain!.id]: chain!.name } });
    // The entry keeps the ids: the CSV is the raw record.
    expect(saved.changes.details[1][0]).toEqual({ key: brakes!.id, check_status: 2 });
    const asked = { buddy_id: String(buddy), search: `audit-${service}` };
    await up.db.transaction((tx) =>
      recordChange(tx, up.config.auditKey, {
        userId: admin,
        role: null,
        address: null,
        requestId: 'r',
        entity: 'services',
        recordId: null,
        action: 'export',
        changes: { query: [null, asked] },
      }),
    );
    const exported = (await call(`audit/?entity=services&action=export&page_size=10`)).body.data.results.find(
      (e: { changes: { query: [null, Record<string, string>] } }) => e.changes.query[1].search === asked.search,
    );
    expect(exported.refs).toEqual({ 'query.buddy_id': { [buddy]: 'Bo Buddy' } });
  });

  it('exports the same filters as CSV to an Admin', async () => {
    const a = await asset({ name: 'Audit, export' });
    const res = await fetch(`${up.url}audit/export/?entity=assets&record_id=${a.id}`, { headers: { authorization: `Bearer ${tokens.admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,user_id,user_name,role,address,request_id,entity,record_id,action,changes');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(',Ada Admin,');
    expect(lines[1]).toContain(`,assets,${a.id},create,`);
    expect(lines[1]).toContain('"{""name"":[null,""Audit, export""]');
    // Taking the history out is itself recorded (ADR 038).
    expect(await lastEntry()).toMatchObject({ entity: 'audit', action: 'export', changes: { query: [null, { entity: 'assets', record_id: a.id }] } });
  });
});

describe('npm run audit:verify', { timeout: 60_000 }, () => {
  it('prints the verdict of a PGlite directory and exits 1 when the chain is broken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-verify-'));
    const key = 'k'.repeat(40);
    try {
      const db = await openMigrated(dir);
      for (const name of ['one', 'two'])
        await db.transaction((tx) =>
          recordChange(tx, key, {
            userId: 1,
            role: 'Admin',
            address: '127.0.0.1',
            requestId: name,
            entity: 'assets',
            recordId: 1,
            action: 'update',
            changes: { name: [null, name] },
          }),
        );
      await db.close();
      const run = () =>
        spawnSync(process.execPath, [join(root, 'scripts', 'audit-verify.ts')], {
          encoding: 'utf8',
          env: { ...process.env, DATABASE_URL: '', UPSTREAM_DATA_DIR: dir, AUDIT_KEY: key },
        });
      const good = run();
      expect(good.stdout).toBe('ok: 2 entries, the chain holds\n');
      expect(good.status).toBe(0);

      const again = await openDatabase({ dataDir: dir });
      await aroundTriggers(again, "update audit_log set request_id = 'forged' where id = 2");
      await again.close();
      const bad = run();
      expect(bad.stdout).toBe('BROKEN: entry 2 was edited\n');
      expect(bad.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
