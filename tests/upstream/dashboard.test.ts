import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCounters, statistics } from '../../upstream/resources/dashboard.ts';
import { hashPassword } from '../../upstream/lib/password.ts';
import { setPolicyRoles } from '../../upstream/lib/factors.ts';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';

/**
 * Every dashboard counter (ADR 016) against data built by hand on an empty database: each row below
 * exists to be counted by exactly the counters its comment names, and to be left out by the others.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
const PASSWORD = 'dashboard-pass';
const DAY = 86_400_000;
const today = new Date();
const day = (offset: number) => new Date(today.getTime() + offset * DAY).toISOString().slice(0, 10);
const at = (offset: number) => new Date(today.getTime() + offset * DAY).toISOString();

async function user(email: string, values: { active?: boolean; status?: string; invitation?: string; type?: number; memberDaysAgo?: number | null; roles?: string[] }) {
  const { rows } = await up.db.query<{ id: number }>(
    `insert into users (email, password_hash, first_name, last_name, is_active, account_status, invitation_status, user_type, member_since)
     values ($1, $2, 'Test', $1, $3, $4, $5, $6, $7) returning id`,
    [
      email,
      await hashPassword(PASSWORD, 1024),
      values.active ?? true,
      values.status ?? 'active',
      values.invitation ?? 'accepted',
      values.type ?? 1,
      values.memberDaysAgo === null ? null : at(-(values.memberDaysAgo ?? 100)),
    ],
  );
  const id = Number(rows[0]!.id);
  for (const role of values.roles ?? []) await up.db.query('insert into user_roles (user_id, role_id) select $1, id from roles where name = $2', [id, role]);
  return id;
}

async function service(buddy: number, status: number, serviceDay: number, origin = 'subscriber_', finishedDaysAgo?: number) {
  await up.db.query(
    `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, owner_id, origin_type, finished_at, latitude, longitude)
     values ($1, 1, $2, $3, 1, $4, $5, $6, 59.3326, 18.0649)`,
    [day(serviceDay), status, buddy, ids.owner, origin, status === 4 ? at(-(finishedDaysAgo ?? 1)) : null],
  );
}

const ids: Record<string, number> = {};

beforeAll(async () => {
  up = await startUpstream({ port: 0, seedDemo: false, logger: testLogger('upstream-dashboard'), config: { scryptCost: 1024 } });
  await up.db.exec("insert into roles (name) values ('Admin'), ('Buddy'), ('Shop'), ('Customer')");
  // A database without demo data requires Admins to enrol a second factor (ADR 068); these counters' Admin signs in with a password.
  await setPolicyRoles(up.db, []);
  // total_users 9 · active_users 5 (admin, buddy, owner, direct, oldie) · total_buddies 1 (the inactive buddy is not)
  ids.admin = await user('admin@test.example', { roles: ['Admin'] });
  ids.buddy = await user('buddy@test.example', { roles: ['Buddy'], memberDaysAgo: 10 }); // new_users
  ids.sleepy = await user('sleepy@test.example', { roles: ['Buddy'], active: false, status: 'inactive' });
  ids.owner = await user('owner@test.example', { roles: ['Customer'], memberDaysAgo: 29 }); // new_users (29 days ago is within the 30)
  ids.direct = await user('direct@test.example', { type: 4, memberDaysAgo: 0 }); // new_users, direct_active
  ids.lapsed = await user('lapsed@test.example', { type: 4, active: false, status: 'inactive' }); // not direct_active: inactive
  ids.oldie = await user('oldie@test.example', { memberDaysAgo: 31 }); // not new: 31 days ago
  ids.invited1 = await user('invited1@test.example', { invitation: 'pending', status: 'pending', memberDaysAgo: null }); // invited_users
  ids.invited2 = await user('invited2@test.example', { invitation: 'pending', status: 'pending', memberDaysAgo: null }); // invited_users

  await up.db.exec(`
    insert into service_slots (name, start_time, end_time, max) values ('Morning', '08:00', '12:00', 9);
    insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, owner_id)
    values ('Bike', 'B-1', 'g', 'chain', 'disc', 'lock', '40', '622', 'presta', 'ok', '2024-01-01', ${ids.owner});
  `);
  // services_performed 3 (two one-off: one_off_total 2) · scheduled_services 2 (today and tomorrow; yesterday's does not count)
  await service(ids.buddy, 4, -3, 'one_off', 3);
  await service(ids.buddy, 4, -40, 'one_off', 40); // performed, outside the 30-day series
  await service(ids.buddy, 4, -2, 'b2b', 2);
  await service(ids.buddy, 2, 0);
  await service(ids.buddy, 2, 1);
  await service(ids.buddy, 2, -1); // booked but in the past: not scheduled
  await service(ids.buddy, 1, 2); // requested: neither
  await service(ids.buddy, 5, 2, 'one_off'); // canceled one-off: not in one_off_total

  await up.db.exec(`
    insert into companies (name) values ('Acme AB');
    insert into subscription_plans (slug, name_en, name_sv, price_sek, price_gbp, bicycles) values ('one', 'One', 'En', 99, 9, 1), ('family', 'Family', 'Familj', 199, 19, 3);
    insert into promo_codes (code, max_uses, starts_at, expires_at) values ('P1', 10, '2026-01-01', '2027-01-01');
    insert into promo_code_uses (promo_code_id, user_id) values (1, ${ids.owner}), (1, ${ids.direct}); -- promo_codes_used 2
    insert into trial_groups (name, start_date, end_date) values
      ('Running', '${day(-5)}', '${day(5)}'), ('Open-ended', '${day(-5)}', null), ('Over', '${day(-30)}', '${day(-1)}'); -- b2b_groups 2
  `);
  const subscription = (userId: number, status: string, bicycles: number, company: boolean) =>
    up.db.query(
      `insert into subscriptions (user_id, plan_id, status, current_period_start, current_period_end, amount, bicycles, company_id)
       values ($1, 1, $2, $3, $4, 99, $5, $6)`,
      [userId, status, day(-10), day(20), bicycles, company ? 1 : null],
    );
  await subscription(ids.owner, 'active', 1, false); // active_single_bike, subscriber
  await subscription(ids.owner, 'active', 2, false); // active_multiple_bike (the same subscriber counts once)
  await subscription(ids.direct, 'trialing', 1, false); // subscriber only: trialing is not active
  await subscription(ids.oldie, 'active', 1, true); // active_b2b2c (company-paid, not single)
  await subscription(ids.lapsed, 'canceled', 1, false); // nothing
  await subscription(ids.admin, 'past_due', 1, false); // nothing
});
afterAll(async () => up?.close());

describe('dashboard counters (ADR 016)', () => {
  it('counts each figure by its definition', async () => {
    expect(await adminCounters(up.db, today)).toEqual({
      total_users: 9,
      active_users: 5,
      total_buddies: 1,
      promo_codes_used: 2,
      services_performed: 3,
      new_users: 3,
      scheduled_services: 2,
      invited_users: 2,
      active_b2b2c: 1,
      active_single_bike: 1,
      active_multiple_bike: 1,
      b2b_groups: 2,
      one_off_total: 2,
      subscribers: 3,
      direct_active: 1,
    });
  });

  async function login(email: string) {
    const res = await fetch(up.url + 'account/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    return ((await res.json()) as { data: { token: string } }).data.token;
  }
  const get = async (path: string, token: string) => {
    const res = await fetch(up.url + path, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as { data: any } };
  };

  it('gives an Admin every counter and the last-30-day series, zero-filled per UTC day', async () => {
    const { status, body } = await get('dashboard/', await login('admin@test.example'));
    expect(status).toBe(200);
    expect(body.data.scope).toBe('all');
    const { days, values } = body.data.series;
    expect(days).toHaveLength(30);
    expect(days[29]).toBe(day(0));
    expect(values.new_users.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(values.new_users[29]).toBe(1); // the direct user joined today
    expect(values.services_performed.reduce((a: number, b: number) => a + b, 0)).toBe(2); // the one finished 40 days ago is outside
    expect(values.services_performed[27]).toBe(1);
    expect(values.new_subscriptions[29]).toBe(6);
  });

  it('gives a Buddy the figures of their own work only, and refuses other roles', async () => {
    const { body } = await get('dashboard/', await login('buddy@test.example'));
    expect(body.data).toMatchObject({ scope: 'own', counters: { services_performed: 3, scheduled_services: 2, services_today: 1 } });
    expect(Object.keys(body.data.counters)).toHaveLength(3);
    expect(Object.keys(body.data.series.values)).toEqual(['services_performed']);
    expect((await get('statistics/', await login('buddy@test.example'))).status).toBe(403);
    expect((await get('dashboard/', await login('owner@test.example'))).status).toBe(403);
  });

  it('statistics: services per status and per week, members per month with running totals', async () => {
    const stats = await statistics(up.db, today);
    expect(stats.servicesByStatus).toEqual([
      { status: 1, count: 1 },
      { status: 2, count: 3 },
      { status: 3, count: 0 },
      { status: 4, count: 3 },
      { status: 5, count: 1 },
    ]);
    expect(stats.servicesByWeek).toHaveLength(12);
    // Weeks start on Monday; the last one holds today. A service counts in the week of its date, so the
    // ones of the next days fall outside when today ends a week.
    const lastMonday = stats.servicesByWeek[11]!.week;
    expect(new Date(`${lastMonday}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(lastMonday <= day(0) && day(0) < new Date(Date.parse(lastMonday) + 7 * DAY).toISOString().slice(0, 10)).toBe(true);
    const weekEnd = new Date(Date.parse(lastMonday) + 6 * DAY).toISOString().slice(0, 10);
    const inWeeks = [-3, -40, -2, 0, 1, -1, 2, 2].filter((offset) => day(offset) <= weekEnd).length;
    expect(stats.servicesByWeek.reduce((a, w) => a + w.count, 0)).toBe(inWeeks);
    expect(stats.servicesByWeek.reduce((a, w) => a + w.finished, 0)).toBe(3);
    expect(stats.usersByMonth).toHaveLength(12);
    expect(stats.usersByMonth[11]!.month).toBe(day(0).slice(0, 7));
    // Seven members (two invited have not joined); running totals end at all of them.
    expect(stats.usersByMonth[11]!.total).toBe(7);
    expect(stats.usersByMonth.reduce((a, m) => a + m.joined, 0)).toBe(7);
  });
});
