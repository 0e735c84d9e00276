import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, isRecordAction, segmentOf, type ActionDef, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { startUpstream } from '../../upstream/start.ts';
import { openSse, type SseReader } from '../support/live-stream.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * A declared action is a change of the record (ADR 069). Over every action every definition declares:
 * - a record action sent a stale version is refused with 409 and changes nothing, whatever its handler;
 * - an action that `sets` fields goes through the one write path: the version steps once, the fields hold the
 *   declared values, the history has one entry under the action's name with exactly those changes, and the live
 *   stream carries it; the action's `enabledWhen` is the API's rule too.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };
let up: Upstream;
let token = '';
const streams: SseReader[] = [];

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-declared-actions'), config: { scryptCost: 1024 }, backgroundJobs: false });
  token = (await call('account/login', { email: 'admin@example.com', password: DEMO_PASSWORD })).body.data.token;
});
afterAll(async () => {
  for (const reader of streams) reader.close();
  await up?.close();
});

async function call(path: string, body?: unknown) {
  const res = await fetch(up.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

const recordActions = (def: EntityDef) => Object.entries(actionsOf(def)).filter(([, action]) => isRecordAction(action));
const urlOf = (def: EntityDef, id: number, key: string, action: ActionDef) => `${def.name}/${id}/${key === 'transition' ? 'transition' : segmentOf(key, action.path)}/`;
const recordOf = async (def: EntityDef, id: number): Promise<EntityRecord> => (await call(`${def.name}/${id}/`)).body.data;

/** The first page of an entity's records as an Admin reads them. */
async function someRecords(def: EntityDef): Promise<EntityRecord[]> {
  const { status, body } = await call(`${def.name}/?page_size=100`);
  expect(status, `${def.name} list`).toBe(200);
  return body.data.results;
}

/** A body the action's handler would accept beyond its version: a status step to some option, else nothing. */
function inputOf(def: EntityDef, key: string, record: EntityRecord): Record<string, unknown> {
  if (key !== 'transition') return {};
  const [field, { options }] = Object.entries(def.fields).find(([, f]) => f.status)!;
  return { to: options!.find((o) => o !== record[field]) };
}

const withActions = ENTITIES.filter((def) => recordActions(def as EntityDef).length > 0) as EntityDef[];

describe('every record action of every definition', () => {
  it('is declared somewhere (the test reads the definitions, not a list of its own)', () => {
    expect(withActions.map((def) => def.name)).toEqual(expect.arrayContaining(['bicycles', 'services', 'subscriptions', 'users']));
  });

  it.each(withActions.map((def) => [def.name, def] as const))('%s: a stale version is 409 and changes nothing', async (_name, def) => {
    const [record] = await someRecords(def);
    expect(record, `${def.name} has a record`).toBeDefined();
    for (const [key, action] of recordActions(def)) {
      const before = await recordOf(def, record!.id);
      const { status, body } = await call(urlOf(def, record!.id, key, action), { ...inputOf(def, key, before), version: before.version + 7 });
      expect([status, body.error?.message], `${def.name}.${key}`).toEqual([409, 'conflict']);
      expect((await recordOf(def, record!.id)).version, `${def.name}.${key} wrote nothing`).toBe(before.version);
    }
  });
});

const setsActions = withActions.flatMap((def) => recordActions(def).flatMap(([key, action]) => (action.sets ? [[`${def.name}.${key}`, def, key, action] as const] : [])));

describe('an action that sets fields goes through the one write path', () => {
  it('is declared by at least the bicycles (the test covers whatever is declared)', () => {
    expect(setsActions.map(([name]) => name)).toEqual(expect.arrayContaining(['bicycles.activate', 'bicycles.deactivate']));
  });

  it.each(setsActions)('%s: one version step, the values set, one history entry under its name, a live notice', async (name, def, key, action) => {
    const sets = action.sets as Record<string, unknown>;
    const record = (await someRecords(def)).find((r) => !action.enabledWhen || action.enabledWhen(r));
    expect(record, `${name}: a record it is enabled for`).toBeDefined();
    const { rows } = await up.db.query<{ id: number }>('select coalesce(max(id), 0) as id from audit_log');
    const live = await openSse(`${up.url}audit/events/`, { authorization: `Bearer ${token}`, 'last-event-id': String(rows[0]!.id) });
    streams.push(live);

    const { status, body } = await call(urlOf(def, record!.id, key, action), { version: record!.version });
    expect(status, JSON.stringify(body.error)).toBe(200);
    expect(body.data).toMatchObject({ ...sets, version: record!.version + 1 });

    const { rows: entries } = await up.db.query<{ action: string; changes: Record<string, unknown> }>(
      'select action, changes from audit_log where entity = $1 and record_id = $2 and id > $3 order by id',
      [def.name, record!.id, rows[0]!.id],
    );
    const changed = Object.keys(sets).filter((field) => record![field] !== sets[field]);
    expect(entries.map((e) => [e.action, Object.keys(e.changes).sort()])).toEqual([[key, changed.sort()]]);
    const notice = JSON.parse((await live.next((f) => f.event === 'change', 10_000)).data) as { entity: string; record_id: number; action: string };
    expect(notice).toMatchObject({ entity: def.name, record_id: record!.id, action: key });

    // Its enabledWhen is the API's rule as well: the record as it now is does not take the action again.
    if (action.enabledWhen && !action.enabledWhen(body.data)) {
      const again = await call(urlOf(def, record!.id, key, action), { version: body.data.version });
      expect([again.status, again.body.error?.message]).toEqual([409, 'action_not_allowed']);
    }
  });
});

/** PUT with a token, for the users' update. */
async function put(path: string, body: unknown) {
  const res = await fetch(up.url + path, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Body };
}

/**
 * Does `run` change the record through the one write path: one version step, one history entry under `action`
 * naming `fields`, and its live notice? Answers the request's body.
 */
async function throughWritePath(entity: string, id: number, action: string, fields: string[], run: (version: number) => Promise<{ status: number; body: Body }>) {
  const version = (await call(`${entity}/${id}/`)).body.data.version as number;
  const { rows } = await up.db.query<{ id: number }>('select coalesce(max(id), 0) as id from audit_log');
  const live = await openSse(`${up.url}audit/events/`, { authorization: `Bearer ${token}`, 'last-event-id': String(rows[0]!.id) });
  streams.push(live);
  const { status, body } = await run(version);
  expect(status, JSON.stringify(body.error)).toBe(200);
  expect((await call(`${entity}/${id}/`)).body.data.version, `${entity}.${action}: one version step`).toBe(version + 1);
  const { rows: entries } = await up.db.query<{ action: string; changes: Record<string, unknown> }>(
    'select action, changes from audit_log where entity = $1 and record_id = $2 and id > $3 order by id',
    [entity, id, rows[0]!.id],
  );
  expect(entries.map((e) => [e.action, Object.keys(e.changes).sort()])).toEqual([[action, [...fields].sort()]]);
  const notice = JSON.parse((await live.next((f) => f.event === 'change', 10_000)).data) as { entity: string; record_id: number; action: string };
  expect(notice).toMatchObject({ entity, record_id: id, action });
  return body;
}

describe('actions with handlers of their own change the record through the one write path (ADR 073)', () => {
  it("subscriptions: cancel at the period's end and activate (resume) step the version once each, one entry each", async () => {
    const { rows } = await up.db.query<{ id: number }>("select id from subscriptions where status = 'active' and not cancel_at_period_end order by id limit 1");
    const id = Number(rows[0]!.id);
    const canceled = await throughWritePath('subscriptions', id, 'cancel', ['at_period_end', 'cancel_at_period_end'], (version) =>
      call(`subscriptions/${id}/cancel/`, { at_period_end: true, version }),
    );
    expect(canceled.data).toMatchObject({ changed: true, subscription: { cancel_at_period_end: true } });
    const resumed = await throughWritePath('subscriptions', id, 'activate', ['cancel_at_period_end'], (version) => call(`subscriptions/${id}/activate/`, { version }));
    expect(resumed.data).toMatchObject({ changed: true, subscription: { status: 'active', cancel_at_period_end: false } });
  });

  it('users: cancelInvite, setOperationalRange and the update step the version once each, one entry each', async () => {
    const invited = await call('users/invite/', { email: `write-path-${Date.now()}@example.com` });
    expect(invited.status, JSON.stringify(invited.body.error)).toBe(200);
    const id = Number(invited.body.data.id);
    await throughWritePath('users', id, 'cancelInvite', ['invitation_status'], (version) => call(`users/${id}/cancel-invite/`, { version }));
    const { rows } = await up.db.query<{ id: number }>('select id from operational_ranges order by id limit 1');
    const range = Number(rows[0]!.id);
    const ranged = await throughWritePath('users', id, 'setOperationalRange', ['operational_range_id'], (version) =>
      call(`users/${id}/operational-range/`, { operational_range_id: range, version }),
    );
    expect(ranged.data.operational_range_id).toBe(range);
    const user = (await call(`users/${id}/`)).body.data;
    await throughWritePath('users', id, 'update', ['first_name'], (version) => put(`users/${id}/`, { ...user, first_name: 'Written', version }));
  });
});

/** What a user's answer must never carry: the users table's credentials and counters beside the declared fields. */
const USER_SECRETS = ['password_hash', 'failed_logins', 'locked_until', 'session_version', 'email_confirmed_at', 'max_bicycles'];

describe('the engine reads declared columns only (ADR 073)', () => {
  const generic = ENTITIES.filter((def) => def.name !== 'users' && !(def as EntityDef).embedded) as EntityDef[];

  it.each(generic.map((def) => [def.name, def] as const))('%s: a record answers its declared fields, their labels and its stamps, nothing else', async (_name, def) => {
    const [record] = await someRecords(def);
    if (!record) return;
    const allowed = new Set(['id', 'version', 'created_at', 'updated_at', ...Object.keys(def.fields), ...Object.keys(def.fields).map((key) => `${key}_label`)]);
    expect(Object.keys(record).filter((key) => !allowed.has(key))).toEqual([]);
    expect(Object.keys((await call(`${def.name}/${record.id}/`)).body.data).filter((key) => !allowed.has(key))).toEqual([]);
  });

  it('users: no credential leaves the API in a list, a record, the buddies or the answer of a change', async () => {
    const { rows } = await up.db.query<{ password_hash: string }>("select password_hash from users where email = 'admin@example.com'");
    const hash = rows[0]!.password_hash;
    const invited = (await call('users/invite/', { email: `secrets-${Date.now()}@example.com` })).body.data;
    const user = (await call(`users/${invited.id}/`)).body.data;
    const answers = [
      (await call('users/?page_size=100')).body,
      (await call('buddies/?page_size=100')).body,
      (await call(`users/${user.id}/`)).body,
      (await put(`users/${user.id}/`, { ...user, first_name: 'Secretless' })).body,
      (await call(`users/${user.id}/cancel-invite/`, {})).body,
    ];
    for (const answer of answers) {
      expect(answer.success, JSON.stringify(answer.error)).toBe(true);
      const text = JSON.stringify(answer);
      expect(USER_SECRETS.filter((column) => text.includes(`"${column}"`))).toEqual([]);
      expect(text.includes(hash)).toBe(false);
    }
  });
});
