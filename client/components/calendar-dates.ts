import { formatDate as formatAnyDate } from '../../shared/format.ts';

/** Calendar dates are ISO `YYYY-MM-DD` strings, computed in UTC so no time zone shifts a day. */
export type IsoDate = string;
export type CalendarView = 'month' | 'week' | 'day';
export const CALENDAR_VIEWS: readonly CalendarView[] = ['month', 'week', 'day'];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isValidIsoDate(value: string): boolean {
  return DATE.test(value) && !Number.isNaN(toDate(value).getTime()) && toIso(toDate(value)) === value;
}

const toDate = (iso: IsoDate) => new Date(`${iso}T00:00:00Z`);
const toIso = (d: Date): IsoDate => d.toISOString().slice(0, 10);

export function addDays(iso: IsoDate, days: number): IsoDate {
  const d = toDate(iso);
  d.setUTCDate(d.getUTCDate() + days);
  return toIso(d);
}

export function addMonths(iso: IsoDate, months: number): IsoDate {
  const d = toDate(iso);
  return toIso(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1)));
}

/** Monday of the date's week (ISO weeks). */
export function startOfWeek(iso: IsoDate): IsoDate {
  return addDays(iso, -((toDate(iso).getUTCDay() + 6) % 7));
}

export function todayIso(): IsoDate {
  const now = new Date();
  return toIso(new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate())));
}

/** The days a view shows: a month as whole weeks (Monday first), a week, or one day. */
export function daysOf(view: CalendarView, iso: IsoDate): IsoDate[] {
  if (view === 'day') return [iso];
  if (view === 'week') return Array.from({ length: 7 }, (_, i) => addDays(startOfWeek(iso), i));
  const first = `${iso.slice(0, 7)}-01`;
  const start = startOfWeek(first);
  const end = addDays(addMonths(first, 1), -1);
  const days: IsoDate[] = [];
  for (let day = start; day <= end || days.length % 7 !== 0; day = addDays(day, 1)) days.push(day);
  return days;
}

/** A calendar heading's date ("Wednesday 25 November"), written by the app's one formatter (ADR 045). */
export function formatDate(iso: IsoDate, lang: string, options: Intl.DateTimeFormatOptions): string {
  return formatAnyDate(iso, lang, options);
}
