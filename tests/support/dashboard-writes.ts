import fc from 'fast-check';
import { expect } from 'vitest';
import type { Db } from '../../upstream/db.ts';
import { adminDashboard, buddyDashboard, statistics } from '../../upstream/resources/dashboard.ts';
import { recountAdminCounters, recountBuddyCounters, recountSeries, recountStatistics } from '../../upstream/resources/dashboard-recount.ts';

/**
 * Random writes to every table a dashboard figure reads (users, user_roles, roles, services,
 * subscriptions, promo_code_uses, trial_groups), as plain SQL the way any writer might send it: single
 * rows and many rows per statement, dates on both sides of today and of UTC midnight, role and state
 * changes, a service moved to another buddy, deletes that cascade, a statement changing two tables at
 * once, TRUNCATE, statements that fail, work rolled back. ADR 025's property: after any sequence, the
 * maintained figures equal a recount from the tables (`expectTalliesMatchRecount`).
 */

const DAY = 86_400_000;
/** A UTC time `day` days from today, `second` seconds after midnight (0 and 86 399 hit the day's edges). */
const at = (day: number, second: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + day) + second * 1000).toISOString();
};
const dateOf = (day: number) => at(day, 0).slice(0, 10);

/** The id of the `k`-th row of a table (modulo its size), as SQL; null when it is empty. */
const pick = (table: string, k: number) => `(select id from ${table} order by id offset (${k} % greatest((select count(*) from ${table}), 1)) limit 1)`;

const ROLES = ['Admin', 'Buddy', 'Customer', 'Buddy (renamed)'] as const;
const second = fc.constantFrom<number>(0, 1, 43_200, 86_399);
const moment = fc.record({ day: fc.integer({ min: -400, max: 3 }), second });
const recent = fc.record({ day: fc.integer({ min: -40, max: 2 }), second });
const serviceDay = fc.integer({ min: -100, max: 20 });
// Often one of the first few rows, so writes meet on the same user, service or subscription.
const k = fc.oneof(fc.nat({ max: 3 }), fc.nat({ max: 1000 }));
const userState = {
  active: fc.boolean(),
  status: fc.constantFrom('active', 'inactive', 'pending'),
  invitation: fc.constantFrom('none', 'pending', 'accepted'),
  type: fc.constantFrom(1, 2, 4, 5),
  member: fc.option(moment, { nil: null }),
};
const serviceState = {
  status: fc.integer({ min: 1, max: 5 }),
  day: serviceDay,
  buddy: k,
  origin: fc.constantFrom('one_off', 'subscriber_', 'b2b'),
  finished: recent,
};
const subscriptionState = {
  status: fc.constantFrom('active', 'trialing', 'past_due', 'canceled', 'incomplete'),
  company: fc.boolean(),
  bicycles: fc.integer({ min: 1, max: 3 }),
  user: k,
  created: recent,
};

export const writeArb = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('addUser' as const), ...userState }), weight: 4 },
  fc.record({ kind: fc.constant('updateUser' as const), pick: k, set: fc.record(userState, { requiredKeys: [] }) }),
  fc.record({ kind: fc.constant('deleteUser' as const), pick: k }),
  { arbitrary: fc.record({ kind: fc.constant('grantRole' as const), user: k, role: fc.constantFrom(...ROLES) }), weight: 3 },
  fc.record({ kind: fc.constant('revokeRole' as const), user: k, role: fc.constantFrom(...ROLES) }),
  fc.record({ kind: fc.constant('changeRole' as const), user: k, from: fc.constantFrom(...ROLES), to: fc.constantFrom(...ROLES) }),
  fc.record({ kind: fc.constant('renameBuddyRole' as const) }),
  fc.record({ kind: fc.constant('toggleActiveAndRevoke' as const), user: k }),
  { arbitrary: fc.record({ kind: fc.constant('addService' as const), ...serviceState }), weight: 5 },
  fc.record({ kind: fc.constant('updateService' as const), pick: k, set: fc.record(serviceState, { requiredKeys: [] }) }),
  fc.record({ kind: fc.constant('deleteService' as const), pick: k }),
  fc.record({ kind: fc.constant('shiftServices' as const), mod: fc.integer({ min: 1, max: 4 }), rem: fc.nat({ max: 3 }), days: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ kind: fc.constant('finishBooked' as const), mod: fc.integer({ min: 1, max: 3 }), rem: fc.nat({ max: 2 }), finished: recent }),
  fc.record({ kind: fc.constant('reopenFinished' as const), mod: fc.integer({ min: 1, max: 3 }), rem: fc.nat({ max: 2 }) }),
  { arbitrary: fc.record({ kind: fc.constant('addSubscription' as const), ...subscriptionState }), weight: 3 },
  fc.record({ kind: fc.constant('updateSubscription' as const), pick: k, set: fc.record(subscriptionState, { requiredKeys: [] }) }),
  fc.record({ kind: fc.constant('deleteSubscription' as const), pick: k }),
  fc.record({ kind: fc.constant('addPromoUse' as const), code: fc.nat({ max: 1 }), user: k }),
  fc.record({ kind: fc.constant('deletePromoUse' as const), pick: k }),
  fc.record({ kind: fc.constant('addTrialGroup' as const), end: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }) }),
  fc.record({ kind: fc.constant('updateTrialGroup' as const), pick: k, end: fc.option(fc.integer({ min: -3, max: 3 }), { nil: null }) }),
  fc.record({ kind: fc.constant('deleteTrialGroup' as const), pick: k }),
  fc.record({ kind: fc.constant('truncate' as const), table: fc.constantFrom('promo_code_uses', 'trial_groups') }),
  fc.record({ kind: fc.constant('compact' as const) }),
);
export type Write = typeof writeArb extends fc.Arbitrary<infer T> ? T : never;

/** A sequence of writes, one in ten undone (run, then rolled back to a savepoint). */
export const writesArb = (maxLength: number) => fc.array(fc.record({ write: writeArb, undone: fc.nat({ max: 9 }).map((n) => n === 0) }), { minLength: 1, maxLength, size: 'max' });

let serial = 0;

/** The SQL of one write: statement and parameters (the numbers in it come from the generator, never text). */
function sqlOf(write: Write, fixtures: Fixtures): [string, unknown[]][] {
  serial += 1;
  switch (write.kind) {
    case 'addUser':
      return [
        [
          'insert into users (email, is_active, account_status, invitation_status, user_type, member_since) values ($1, $2, $3, $4, $5, $6)',
          [`tally${serial}-${process.pid}@test.example`, write.active, write.status, write.invitation, write.type, write.member && at(write.member.day, write.member.second)],
        ],
      ];
    case 'updateUser': {
      const columns = { active: 'is_active', status: 'account_status', invitation: 'invitation_status', type: 'user_type', member: 'member_since' } as const;
      const set = Object.entries(write.set) as [keyof typeof columns, unknown][];
      if (!set.length) return [];
      const values = set.map(([key, value]) => (key === 'member' ? value && at((value as { day: number }).day, (value as { second: number }).second) : value));
      return [[`update users set ${set.map(([key], i) => `${columns[key]} = $${i + 1}`).join(', ')} where id = ${pick('users', write.pick)}`, values]];
    }
    case 'deleteUser':
      return [[`delete from users where id = ${pick('users', write.pick)}`, []]];
    case 'grantRole':
      return [['insert into user_roles (user_id, role_id) select ' + pick('users', write.user) + ', id from roles where name = $1 on conflict do nothing', [write.role]]];
    case 'revokeRole':
      return [[`delete from user_roles where user_id = ${pick('users', write.user)} and role_id = (select id from roles where name = $1)`, [write.role]]];
    case 'changeRole':
      return [
        [
          `update user_roles set role_id = (select id from roles where name = $2) where user_id = ${pick('users', write.user)} and role_id = (select id from roles where name = $1)`,
          [write.from, write.to],
        ],
      ];
    case 'renameBuddyRole':
      return [["update roles set name = case name when 'Buddy' then 'Buddy (renamed)' else 'Buddy' end where name in ('Buddy', 'Buddy (renamed)')", []]];
    case 'toggleActiveAndRevoke':
      // Two tables in one statement: the user's state and their roles change together.
      return [
        [
          `with u as (update users set is_active = not is_active where id = ${pick('users', write.user)} returning id) delete from user_roles where user_id in (select id from u)`,
          [],
        ],
      ];
    case 'addService':
      return [
        [
          `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, origin_type, finished_at, latitude, longitude)
         values ($1, ${fixtures.slot}, $2, ${pick('users', write.buddy)}, ${fixtures.bicycle}, $3, $4, 59.33, 18.06)`,
          [dateOf(write.day), write.status, write.origin, write.status === 4 ? at(write.finished.day, write.finished.second) : null],
        ],
      ];
    case 'updateService': {
      const { status, day, buddy, origin, finished } = write.set;
      const parts: string[] = [];
      const params: unknown[] = [];
      const param = (value: unknown) => `$${params.push(value)}`;
      const newStatus = status !== undefined ? `${param(status)}::smallint` : 'status';
      if (status !== undefined) parts.push(`status = ${newStatus}`);
      if (day !== undefined) parts.push(`service_date = ${param(dateOf(day))}::date`);
      if (buddy !== undefined) parts.push(`buddy_id = ${pick('users', buddy)}`);
      if (origin !== undefined) parts.push(`origin_type = ${param(origin)}`);
      if (!parts.length && finished === undefined) return [];
      // finished_at stays set exactly when the service is Finished (migration 007's check).
      const finishedAt = finished !== undefined ? `${param(at(finished.day, finished.second))}::timestamptz` : 'null';
      parts.push(`finished_at = case when ${newStatus} = 4 then coalesce(${finishedAt}, finished_at, now()) end`);
      return [[`update services set ${parts.join(', ')} where id = ${pick('services', write.pick)}`, params]];
    }
    case 'deleteService':
      return [[`delete from services where id = ${pick('services', write.pick)}`, []]];
    case 'shiftServices':
      return [['update services set service_date = service_date + $1::int where id % $2 = $3', [write.days, write.mod, write.rem % write.mod]]];
    case 'finishBooked':
      return [
        ['update services set status = 4, finished_at = $1 where status = 2 and id % $2 = $3', [at(write.finished.day, write.finished.second), write.mod, write.rem % write.mod]],
      ];
    case 'reopenFinished':
      return [['update services set status = 2, finished_at = null where status = 4 and id % $1 = $2', [write.mod, write.rem % write.mod]]];
    case 'addSubscription':
      return [
        [
          `insert into subscriptions (user_id, plan_id, status, current_period_start, current_period_end, amount, bicycles, company_id, created_at)
         values (${pick('users', write.user)}, ${fixtures.plan}, $1, current_date, current_date + 30, 99, $2, $3, $4)`,
          [write.status, write.bicycles, write.company ? fixtures.company : null, at(write.created.day, write.created.second)],
        ],
      ];
    case 'updateSubscription': {
      const { status, company, bicycles, user, created } = write.set;
      const parts: string[] = [];
      const params: unknown[] = [];
      const param = (value: unknown) => `$${params.push(value)}`;
      if (status !== undefined) parts.push(`status = ${param(status)}`);
      if (company !== undefined) parts.push(`company_id = ${param(company ? fixtures.company : null)}::bigint`);
      if (bicycles !== undefined) parts.push(`bicycles = ${param(bicycles)}::int`);
      if (user !== undefined) parts.push(`user_id = ${pick('users', user)}`);
      if (created !== undefined) parts.push(`created_at = ${param(at(created.day, created.second))}::timestamptz`);
      return parts.length ? [[`update subscriptions set ${parts.join(', ')} where id = ${pick('subscriptions', write.pick)}`, params]] : [];
    }
    case 'deleteSubscription':
      return [[`delete from subscriptions where id = ${pick('subscriptions', write.pick)}`, []]];
    case 'addPromoUse':
      return [[`insert into promo_code_uses (promo_code_id, user_id) values ($1, ${pick('users', write.user)}) on conflict do nothing`, [fixtures.promoCodes[write.code]]]];
    case 'deletePromoUse':
      return [
        [
          `delete from promo_code_uses where ctid = (select ctid from promo_code_uses order by promo_code_id, user_id offset (${write.pick} % greatest((select count(*) from promo_code_uses), 1)) limit 1)`,
          [],
        ],
      ];
    case 'addTrialGroup':
      return [['insert into trial_groups (name, end_date) values ($1, $2)', [`Trial ${serial}-${process.pid}`, write.end === null ? null : dateOf(write.end)]]];
    case 'updateTrialGroup':
      return [[`update trial_groups set end_date = $1 where id = ${pick('trial_groups', write.pick)}`, [write.end === null ? null : dateOf(write.end)]]];
    case 'deleteTrialGroup':
      return [[`delete from trial_groups where id = ${pick('trial_groups', write.pick)}`, []]];
    case 'truncate':
      return [[`truncate ${write.table} cascade`, []]];
    case 'compact':
      return [['select dashboard_compact()', []]];
  }
}

export interface Fixtures {
  /** A user who owns the bicycle (and may do services). */
  owner: number;
  slot: number;
  bicycle: number;
  plan: number;
  company: number;
  promoCodes: [number, number];
}

/** What the writes point at besides users: roles, a slot, a bicycle, a plan, a company, two promo codes. */
export async function createFixtures(db: Db): Promise<Fixtures> {
  const id = async (sql: string) => Number((await db.query<{ id: number }>(sql + ' returning id')).rows[0]!.id);
  await db.exec("insert into roles (name) values ('Admin'), ('Buddy'), ('Customer') on conflict do nothing");
  const owner = await id("insert into users (email, member_since) values ('tally-owner@test.example', now() - interval '3 days')");
  const slot = await id("insert into service_slots (name, start_time, end_time, max) values ('Tally slot', '08:00', '12:00', 9)");
  const bicycle =
    await id(`insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, owner_id)
     values ('Bike', 'TALLY-1', 'g', 'chain', 'disc', 'lock', '40', '622', 'presta', 'ok', '2024-01-01', ${owner})`);
  const plan = await id("insert into subscription_plans (slug, name_en, name_sv, price_sek, price_gbp, bicycles) values ('tally', 'Tally', 'Tally', 99, 9, 1)");
  const company = await id("insert into companies (name) values ('Tally AB')");
  const promoCodes = [
    await id("insert into promo_codes (code, max_uses, starts_at, expires_at) values ('TALLY1', 10, '2026-01-01', '2027-01-01')"),
    await id("insert into promo_codes (code, max_uses, starts_at, expires_at) values ('TALLY2', 10, '2026-01-01', '2027-01-01')"),
  ] as [number, number];
  return { owner, slot, bicycle, plan, company, promoCodes };
}

/**
 * Applies the writes, each behind a savepoint (so a statement the database refuses, say deleting a user
 * who still has services, is undone alone, as in autocommit). Only inside a transaction.
 */
export async function applyWrites(tx: Db, fixtures: Fixtures, writes: readonly { write: Write; undone: boolean }[], tally: WriteTally = new Map()) {
  for (const { write, undone } of writes) {
    await tx.exec('savepoint write');
    const counts = tally.get(write.kind) ?? { applied: 0, refused: [] };
    tally.set(write.kind, counts);
    try {
      for (const [sql, params] of sqlOf(write, fixtures)) await tx.query(sql, params);
      await tx.exec(undone ? 'rollback to savepoint write' : 'release savepoint write');
      counts.applied += 1;
    } catch (error) {
      await tx.exec('rollback to savepoint write');
      counts.refused.push(error instanceof Error ? error.message : String(error));
    }
  }
  return tally;
}

/** Per kind of write: how many the database applied, and why it refused the others. */
export type WriteTally = Map<Write['kind'], { applied: number; refused: string[] }>;

/** One write in autocommit, for concurrent writers: a refused statement (a deadlock too) just fails. */
export async function applyWrite(db: Db, fixtures: Fixtures, write: Write): Promise<boolean> {
  try {
    for (const [sql, params] of sqlOf(write, fixtures)) await db.query(sql, params);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every figure of GET dashboard/ (Admin, and a Buddy's own for each user who has services) and of
 * GET statistics/, maintained vs recounted, as seen on `today` plus each of `dayOffsets`.
 */
export async function expectTalliesMatchRecount(db: Db, dayOffsets: readonly number[] = [0]) {
  const { rows } = await db.query<{ id: number }>('select distinct buddy_id as id from services order by 1');
  const buddies = rows.map((r) => Number(r.id));
  for (const offset of dayOffsets) {
    const today = new Date(Date.now() + offset * DAY);
    const label = `as seen ${offset} days from today`;
    expect(await adminDashboard(db, today), label).toEqual({ scope: 'all', counters: await recountAdminCounters(db, today), series: await recountSeries(db, today) });
    expect(await statistics(db, today), label).toEqual(await recountStatistics(db, today));
    for (const buddy of buddies) {
      expect(await buddyDashboard(db, buddy, today), `${label}, buddy ${buddy}`).toEqual({
        scope: 'own',
        counters: await recountBuddyCounters(db, buddy, today),
        series: await recountSeries(db, today, buddy),
      });
    }
  }
}
