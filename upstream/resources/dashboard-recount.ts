import { ADMIN_SERIES, BUDDY_SERIES, type BuddyCounter, type AdminCounter, type Series, type Statistics } from '../../shared/schemas/dashboard.ts';
import type { Db } from '../db.ts';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';
import { dayOf, firstMonth, firstWeek, monthlyTotals, seriesDays } from './dashboard-windows.ts';

/**
 * ADR 016's figures counted from the tables themselves, one pass over each: the reference the maintained
 * tallies (ADR 025) are checked against — by the property tests, and on a real database by
 * `node scripts/dashboard-recount.ts`. Never on a request path: at a million rows each call scans them.
 * Day boundaries are UTC midnights, whatever the session's time zone.
 */
const toNumbers = <K extends string>(row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as Record<K, number>;
const utcMidnight = (param: string) => `(${param}::date)::timestamp at time zone 'UTC'`;

export async function recountAdminCounters(db: Db, today: Date): Promise<Record<AdminCounter, number>> {
  const { rows } = await db.query(
    `with u as (
       select count(*) as total_users,
              count(*) filter (where is_active and account_status = 'active') as active_users,
              count(*) filter (where invitation_status = 'pending') as invited_users,
              count(*) filter (where member_since >= ${utcMidnight('$1')}) as new_users,
              count(*) filter (where is_active and account_status = 'active' and user_type = 4) as direct_active
         from users),
     s as (
       select count(*) filter (where status = ${SERVICE_STATUS.Finished}) as services_performed,
              count(*) filter (where status = ${SERVICE_STATUS.Booked} and service_date >= $2::date) as scheduled_services,
              count(*) filter (where status = ${SERVICE_STATUS.Finished} and origin_type = 'one_off') as one_off_total
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
    [dayOf(today, -(seriesDays(today).length - 1)), dayOf(today, 0)],
  );
  return toNumbers<AdminCounter>(rows[0]!);
}

export async function recountBuddyCounters(db: Db, buddyId: number, today: Date): Promise<Record<BuddyCounter, number>> {
  const { rows } = await db.query(
    `select count(*) filter (where status = ${SERVICE_STATUS.Finished}) as services_performed,
            count(*) filter (where status = ${SERVICE_STATUS.Booked} and service_date >= $2::date) as scheduled_services,
            count(*) filter (where status = ${SERVICE_STATUS.Booked} and service_date = $2::date) as services_today
       from services where buddy_id = $1`,
    [buddyId, dayOf(today, 0)],
  );
  return toNumbers<BuddyCounter>(rows[0]!);
}

/** The last-30-day series, zero-filled; `buddyId` narrows services performed to one buddy. */
export async function recountSeries(db: Db, today: Date, buddyId?: number): Promise<Series> {
  const days = seriesDays(today);
  const from = days[0]!;
  const sources = {
    new_users: {
      sql: `select to_char(member_since at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from users where member_since >= ${utcMidnight('$1')} group by 1`,
      params: [from],
    },
    services_performed: {
      sql: `select to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from services where finished_at >= ${utcMidnight('$1')}${buddyId ? ' and buddy_id = $2' : ''} group by 1`,
      params: buddyId ? [from, buddyId] : [from],
    },
    new_subscriptions: {
      sql: `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as n from subscriptions where created_at >= ${utcMidnight('$1')} group by 1`,
      params: [from],
    },
  };
  const names = buddyId ? BUDDY_SERIES : ADMIN_SERIES;
  const values: Record<string, number[]> = {};
  for (const name of names) {
    const { rows } = await db.query<{ day: string; n: number }>(sources[name].sql, sources[name].params);
    const byDay = new Map(rows.map((r) => [r.day, Number(r.n)]));
    values[name] = days.map((day) => byDay.get(day) ?? 0);
  }
  return { days, values };
}

export async function recountStatistics(db: Db, today: Date): Promise<Statistics> {
  const weekStart = firstWeek(today);
  const monthStart = firstMonth(today);
  const byStatus = await db.query<{ status: number; n: number }>(
    `select s.status, count(v.id) as n from generate_series(1, 5) as s(status) left join services v on v.status = s.status group by s.status order by s.status`,
  );
  const byWeek = await db.query<{ week: string; n: number; finished: number }>(
    `select to_char(w, 'YYYY-MM-DD') as week, count(v.id) as n, count(v.id) filter (where v.status = ${SERVICE_STATUS.Finished}) as finished
       from (select d::date as w from generate_series($1::date, $1::date + 77, interval '7 days') as d) as weeks
       left join services v on v.service_date >= weeks.w and v.service_date < weeks.w + 7
      group by weeks.w order by weeks.w`,
    [weekStart],
  );
  const byMonth = await db.query<{ month: string; n: number }>(
    `select to_char(date_trunc('month', member_since at time zone 'UTC'), 'YYYY-MM') as month, count(*) as n
       from users where member_since >= ${utcMidnight('$1')} group by 1`,
    [monthStart],
  );
  const before = await db.query<{ n: number }>(`select count(*) as n from users where member_since < ${utcMidnight('$1')}`, [monthStart]);
  return {
    servicesByStatus: byStatus.rows.map((r) => ({ status: Number(r.status), count: Number(r.n) })),
    servicesByWeek: byWeek.rows.map((r) => ({ week: r.week, count: Number(r.n), finished: Number(r.finished) })),
    usersByMonth: monthlyTotals(monthStart, new Map(byMonth.rows.map((r) => [r.month, Number(r.n)])), Number(before.rows[0]?.n ?? 0)),
  };
}
