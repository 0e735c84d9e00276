import { SERIES_DAYS } from '../../shared/schemas/dashboard.ts';

/** The day ranges of ADR 016's figures, in UTC calendar days (YYYY-MM-DD, which also sort as text). */

/** A UTC calendar day `offset` days from `today`. */
export function dayOf(today: Date, offset: number): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + offset)).toISOString().slice(0, 10);
}

/** The last 30 days: today and the 29 before it, oldest first. */
export function seriesDays(today: Date): string[] {
  return Array.from({ length: SERIES_DAYS }, (_, i) => dayOf(today, i - (SERIES_DAYS - 1)));
}

/** The Monday of the ISO week 11 weeks before this one: the statistics' first week. */
export function firstWeek(today: Date): string {
  return dayOf(today, -((today.getUTCDay() + 6) % 7) - 7 * 11);
}

/** The first day of the month 11 months before this one: the statistics' first month. */
export function firstMonth(today: Date): string {
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 11, 1)).toISOString().slice(0, 10);
}

/** Twelve months from `first`: members who joined in each, and the running total at its end. */
export function monthlyTotals(first: string, joinedByMonth: ReadonlyMap<string, number>, before: number) {
  const [year, month] = first.split('-').map(Number) as [number, number];
  let total = before;
  return Array.from({ length: 12 }, (_, i) => {
    const key = new Date(Date.UTC(year, month - 1 + i, 1)).toISOString().slice(0, 7);
    const joined = joinedByMonth.get(key) ?? 0;
    total += joined;
    return { month: key, joined, total };
  });
}

/** The twelve week starts (Mondays) from `first`. */
export function weekStarts(first: string): string[] {
  const start = new Date(`${first}T00:00:00Z`);
  return Array.from({ length: 12 }, (_, i) => dayOf(start, 7 * i));
}
