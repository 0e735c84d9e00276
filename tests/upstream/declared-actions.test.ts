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
