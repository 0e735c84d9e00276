/**
 * The dashboard's figures (spec §1), defined in ADR 016; the reference API reads them from tallies its
 * database keeps current (`upstream/resources/dashboard.ts`, ADR 025). Dates are UTC calendar days, as
 * everywhere in the API.
 */
export const ADMIN_COUNTERS = [
  'total_users',
  'active_users',
  'total_buddies',
  'promo_codes_used',
  'services_performed',
  'new_users',
  'scheduled_services',
  'invited_users',
  'active_b2b2c',
  'active_single_bike',
  'active_multiple_bike',
  'b2b_groups',
  'one_off_total',
  'subscribers',
  'direct_active',
] as const;

/** What a Buddy sees: the figures of their own work. */
export const BUDDY_COUNTERS = ['services_performed', 'scheduled_services', 'services_today'] as const;

export type AdminCounter = (typeof ADMIN_COUNTERS)[number];
export type BuddyCounter = (typeof BUDDY_COUNTERS)[number];

/** The last-30-day figures: one value per day, oldest first, and their total. */
export const ADMIN_SERIES = ['new_users', 'services_performed', 'new_subscriptions'] as const;
export const BUDDY_SERIES = ['services_performed'] as const;

export const SERIES_DAYS = 30;

export interface Series {
  /** YYYY-MM-DD, one per day from 29 days ago to today. */
  days: string[];
  values: Record<string, number[]>;
}

export type Dashboard = { scope: 'all'; counters: Record<AdminCounter, number>; series: Series } | { scope: 'own'; counters: Record<BuddyCounter, number>; series: Series };

export interface Statistics {
  /** Services per status (1–5), every status present. */
  servicesByStatus: { status: number; count: number }[];
  /** Services per ISO week (Monday) of their service date, the last 12 weeks, oldest first. */
  servicesByWeek: { week: string; count: number; finished: number }[];
  /** New members per month and the members at the month's end, the last 12 months, oldest first. */
  usersByMonth: { month: string; joined: number; total: number }[];
}
