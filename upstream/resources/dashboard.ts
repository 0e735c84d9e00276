import type { FastifyInstance } from 'fastify';
import { ADMIN_COUNTERS, BUDDY_COUNTERS, type AdminCounter, type BuddyCounter, type Dashboard, type Series, type Statistics } from '../../shared/schemas/dashboard.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ALL, readTallies, sumTallies, type TallyRow } from '../dashboard-tallies.ts';
import { ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { dayOf, firstMonth, firstWeek, monthlyTotals, seriesDays, weekStarts } from './dashboard-windows.ts';

/**
 * The dashboard and statistics (ADR 016) read from the tallies the database keeps current (ADR 025):
 * each figure sums a few rows, so a request costs the same at a million rows as at ten. The definitions
 * live in migration 080's `dashboard_keys`; `dashboard-recount.ts` counts the same figures from the
 * tables, and the tests hold the two equal.
 */

/** Where each counter comes from: a metric, summed over all its rows, from today on, today only, or the last 30 days. */
type Window = 'all' | 'from_today' | 'today' | 'last_30_days';
const ADMIN_SOURCES: Record<AdminCounter, [metric: string, window: Window][]> = {
  total_users: [['users.total', 'all']],
  active_users: [['users.active', 'all']],
  total_buddies: [['buddies.active', 'all']],
  promo_codes_used: [['promo_code_uses.total', 'all']],
  services_performed: [['services.status.4', 'all']],
  new_users: [['users.members', 'last_30_days']],
  scheduled_services: [['services.booked_by_date', 'from_today']],
  invited_users: [['users.invited', 'all']],
  active_b2b2c: [['subscriptions.active_b2b2c', 'all']],
  active_single_bike: [['subscriptions.active_single_bike', 'all']],
  active_multiple_bike: [['subscriptions.active_multiple_bike', 'all']],
  b2b_groups: [
    ['trial_groups.open', 'all'],
    ['trial_groups.by_end_date', 'from_today'],
  ],
  one_off_total: [['services.one_off_finished', 'all']],
  subscribers: [['subscriptions.subscribers', 'all']],
  direct_active: [['users.direct_active', 'all']],
};
const BUDDY_SOURCES: Record<BuddyCounter, [metric: string, window: Window][]> = {
  services_performed: [['services.status.4', 'all']],
  scheduled_services: [['services.booked_by_date', 'from_today']],
  services_today: [['services.booked_by_date', 'today']],
};
/** The last-30-day series: per day of a metric. */
const ADMIN_SERIES_SOURCES = { new_users: 'users.members', services_performed: 'services.finished_by_day', new_subscriptions: 'subscriptions.created' } as const;
const BUDDY_SERIES_SOURCES = { services_performed: 'services.finished_by_day' } as const;

function windowRange(window: Window, today: Date) {
  const ranges = { all: {}, from_today: { from: dayOf(today, 0) }, today: { from: dayOf(today, 0), to: dayOf(today, 0) }, last_30_days: { from: seriesDays(today)[0] } };
  return ranges[window];
}

function counters<K extends string>(rows: readonly TallyRow[], sources: Record<K, [string, Window][]>, order: readonly K[], today: Date): Record<K, number> {
  return Object.fromEntries(
    order.map((name) => [name, sources[name].reduce((total, [metric, window]) => total + sumTallies(rows, metric, windowRange(window, today)), 0)]),
  ) as Record<K, number>;
}

function series(rows: readonly TallyRow[], sources: Record<string, string>, today: Date): Series {
  const days = seriesDays(today);
  const values = Object.fromEntries(Object.entries(sources).map(([name, metric]) => [name, days.map((day) => sumTallies(rows, metric, { from: day, to: day }))]));
  return { days, values };
}

const metricsOf = (counterSources: Record<string, [string, unknown][]>, seriesSources: Record<string, string>) => [
  ...new Set([...Object.values(counterSources).flatMap((parts) => parts.map(([metric]) => metric)), ...Object.values(seriesSources)]),
];
const ADMIN_METRICS = metricsOf(ADMIN_SOURCES, ADMIN_SERIES_SOURCES);
const BUDDY_METRICS = metricsOf(BUDDY_SOURCES, BUDDY_SERIES_SOURCES);

/** Every Admin counter of §1 and the last-30-day series, from one read of the marketplace's tallies. */
export async function adminDashboard(db: Db, today: Date): Promise<Extract<Dashboard, { scope: 'all' }>> {
  const rows = await readTallies(db, ALL, ADMIN_METRICS, seriesDays(today)[0]!);
  return { scope: 'all', counters: counters(rows, ADMIN_SOURCES, ADMIN_COUNTERS, today), series: series(rows, ADMIN_SERIES_SOURCES, today) };
}

export async function adminCounters(db: Db, today: Date): Promise<Record<AdminCounter, number>> {
  return (await adminDashboard(db, today)).counters;
}

/** A Buddy's own figures: their finished services, their booked services to come and today's, their last 30 days. */
export async function buddyDashboard(db: Db, buddyId: number, today: Date): Promise<Extract<Dashboard, { scope: 'own' }>> {
  const rows = await readTallies(db, buddyId, BUDDY_METRICS, seriesDays(today)[0]!);
  return { scope: 'own', counters: counters(rows, BUDDY_SOURCES, BUDDY_COUNTERS, today), series: series(rows, BUDDY_SERIES_SOURCES, today) };
}

export async function statistics(db: Db, today: Date): Promise<Statistics> {
  const weeks = weekStarts(firstWeek(today));
  const monthStart = firstMonth(today);
  const statuses = [1, 2, 3, 4, 5];
  const [services, members] = await Promise.all([
    readTallies(db, ALL, [...statuses.map((s) => `services.status.${s}`), 'services.by_date', 'services.finished_by_date'], weeks[0]!),
    readTallies(db, ALL, ['users.members_by_month'], null),
  ]);
  const weekRange = (week: string) => ({ from: week, to: dayOf(new Date(`${week}T00:00:00Z`), 6) });
  // Rows are keyed by each month's first day.
  const joinedByMonth = new Map(members.map((row) => [row.day!.slice(0, 7), row.n]));
  const before = sumTallies(members, 'users.members_by_month', { to: dayOf(new Date(`${monthStart}T00:00:00Z`), -1) });
  return {
    servicesByStatus: statuses.map((status) => ({ status, count: sumTallies(services, `services.status.${status}`) })),
    servicesByWeek: weeks.map((week) => ({
      week,
      count: sumTallies(services, 'services.by_date', weekRange(week)),
      finished: sumTallies(services, 'services.finished_by_date', weekRange(week)),
    })),
    usersByMonth: monthlyTotals(monthStart, joinedByMonth, before),
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
    const data: Dashboard = user.roles.includes('Admin') ? await adminDashboard(db, today) : await buddyDashboard(db, user.id, today);
    return ok(reply, data);
  });

  app.get('/api/statistics/', { preHandler: requireAuth(config, ['Admin']) }, async (_req, reply) => ok(reply, await statistics(db, new Date())));
}
