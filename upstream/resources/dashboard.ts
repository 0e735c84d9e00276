import type { FastifyInstance } from 'fastify';
import { SERIES_DAYS, type Dashboard, type Series, type Statistics } from '../../shared/schemas/dashboard.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';

/** A UTC calendar day `offset` days from `today`, as YYYY-MM-DD. */
function dayOf(today: Date, offset: number): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + offset)).toISOString().slice(0, 10);
}

const toNumbers = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));

/**
 * Every Admin counter of §1 in one round trip: one pass over each large table (`count(*) filter`), so
 * the cost grows with the tables once, not once per counter. The definitions are ADR 016's.
 */
export async function adminCounters(db: Db, today: Date) {
  const { rows } = await db.query(
    `with u as (
       select count(*) as total_users,
              count(*) filter (where is_active and account_status = 'active') as active_users,
              count(*) filter (where invitation_status = 'pending') as invited_users,
              count(*) filter (where member_since >= $1::date) as new_users,
              count(*) filter (where is_active and account_status = 'active' and user_type = 4) as direct_active
         from users),
     s as (
       select count(*) filter (where status = 4) as services_performed,
              count(*) filter (where status = 2 and service_date >= $2::date) as scheduled_services,
              count(*) filter (where status = 4 and origin_type = 'one_off') as one_off_total
         from services),
     sub as (
       select count(*) filter (where status = 'active' and company_id is not null) as active_b2b2c,
              count(*) filter (where status = 'active' and company_id is null and bicycles = 1) as active_single_bike,
              count(*) filter (where status = 'active' and company_id is null and bicycles > 1) as active_multiple_bike,
              count(distinct user_id) filter (where status in ('active', 'trialing')) as subscribers
         from subscriptions)
     select u.*, s.*, sub.*,
            (select count(*) from users b
              where b.is_active and b.account_status = 'active'
                and exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = b.id and r.name = 'Buddy')) as total_buddies,
            (select count(*) from promo_code_uses) as promo_codes_used,
            (select count(*) from trial_groups where end_date is null or end_date >= $2::date) as b2b_groups
       from u, s, sub`,
    [dayOf(today, -(SERIES_DAYS - 1)), dayOf(today, 0)],
  );
  return toNumbers(rows[0]!);
}

/** A Buddy's own figures: their finished services, their booked services to come, and today's. */
async function buddyCounters(db: Db, buddyId: number, today: Date) {
  const { rows } = await db.query(
    `select count(*) filter (where status = 4) as services_performed,
            count(*) filter (where status = 2 and service_date >= $2::date) as scheduled_services,
            count(*) filter (where status = 2 and service_date = $2::date) as services_today
       from services where buddy_id = $1`,
    [buddyId, dayOf(today, 0)],
  );
  return toNumbers(rows[0]!);
}

/**
 * Per-day counts of the last 30 days (UTC), zero-filled. Each query groups one indexed range of one table
 * by day; `scope` narrows services to one buddy.
 */
async function series(db: Db, today: Date, names: readonly ('new_users' | 'services_performed' | 'new_subscriptions')[], buddyId?: number): Promise<Series> {
  const from = dayOf(today, -(SERIES_DAYS - 1));
  const days = Array.from({ length: SERIES_DAYS }, (_, i) => dayOf(today, i - (SERIES_DAYS - 1)));
  const sources = {
    new_users: { sql: `select to_char(member_since at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from users where member_since >= $1::date group by 1`, params: [from] },
    services_performed: {
      sql: `select to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from services where finished_at >= $1::date${buddyId ? ' and buddy_id = $2' : ''} group by 1`,
      params: buddyId ? [from, buddyId] : [from],
    },
    new_subscriptions: { sql: `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from subscriptions where created_at >= $1::date group by 1`, params: [from] },
  };
  const values: Record<string, number[]> = {};
  for (const name of names) {
    const { rows } = await db.query<{ day: string; n: number }>(sources[name].sql, sources[name].params);
    const byDay = new Map(rows.map((r) => [r.day, Number(r.n)]));
    values[name] = days.map((day) => byDay.get(day) ?? 0);
  }
  return { days, values };
}

/** Twelve months from `firstMonth`: members who joined in each, and the running total at its end. */
function monthlyTotals(firstMonth: string, rows: { month: string; n: number }[], before: number) {
  const joined = new Map(rows.map((r) => [r.month, Number(r.n)]));
  const [year, month] = firstMonth.split('-').map(Number) as [number, number];
  let total = before;
  return Array.from({ length: 12 }, (_, i) => {
    const key = new Date(Date.UTC(year, month - 1 + i, 1)).toISOString().slice(0, 7);
    total += joined.get(key) ?? 0;
    return { month: key, joined: joined.get(key) ?? 0, total };
  });
}

export async function statistics(db: Db, today: Date): Promise<Statistics> {
  const weekStart = dayOf(today, -((today.getUTCDay() + 6) % 7) - 7 * 11);
  const firstMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
  const [byStatus, byWeek, byMonth, before] = await Promise.all([
    db.query<{ status: number; n: number }>(
      `select s.status, count(v.id) as n from generate_series(1, 5) as s(status) left join services v on v.status = s.status group by s.status order by s.status`,
    ),
    db.query<{ week: string; n: number; finished: number }>(
      `select to_char(w, 'YYYY-MM-DD') as week, count(v.id) as n, count(v.id) filter (where v.status = 4) as finished
         from (select d::date as w from generate_series($1::date, $1::date + 77, interval '7 days') as d) as weeks
         left join services v on v.service_date >= weeks.w and v.service_date < weeks.w + 7
        group by weeks.w order by weeks.w`,
      [weekStart],
    ),
    // Members per month with one grouped pass, and the members before the first month; totals are running sums.
    db.query<{ month: string; n: number }>(
      `select to_char(date_trunc('month', member_since at time zone 'UTC'), 'YYYY-MM') as month, count(*) as n
         from users where member_since >= $1::date group by 1`,
      [firstMonth],
    ),
    db.query<{ n: number }>('select count(*) as n from users where member_since < $1::date', [firstMonth]),
  ]);
  return {
    servicesByStatus: byStatus.rows.map((r) => ({ status: Number(r.status), count: Number(r.n) })),
    servicesByWeek: byWeek.rows.map((r) => ({ week: r.week, count: Number(r.n), finished: Number(r.finished) })),
    usersByMonth: monthlyTotals(firstMonth, byMonth.rows, Number(before.rows[0]?.n ?? 0)),
  };
}

/**
 * GET dashboard/ (Admin, Buddy): every §1 counter and the last-30-day series for an Admin; a Buddy's own
 * figures for a Buddy. GET statistics/ (Admin): services per status and per week, members over time.
 */
export function registerDashboard(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  app.get('/api/dashboard/', { preHandler: requireAuth(config, ['Admin', 'Buddy']) }, async (req, reply) => {
    const today = new Date();
    const user = req.user!;
    const data: Dashboard = user.roles.includes('Admin')
      ? { scope: 'all', counters: (await adminCounters(db, today)) as Extract<Dashboard, { scope: 'all' }>['counters'], series: await series(db, today, ['new_users', 'services_performed', 'new_subscriptions']) }
      : { scope: 'own', counters: (await buddyCounters(db, user.id, today)) as Extract<Dashboard, { scope: 'own' }>['counters'], series: await series(db, today, ['services_performed'], user.id) };
    return ok(reply, data);
  });

  app.get('/api/statistics/', { preHandler: requireAuth(config, ['Admin']) }, async (_req, reply) => ok(reply, await statistics(db, new Date())));
}
