/**
 * Pro-rata refund of the unused part of a paid billing period (ADR 012), in integer minor units
 * (öre, pence) so no amount is ever rounded twice.
 *
 * - A period runs from `periodStart` (inclusive) to `periodEnd` (exclusive): the date the next one
 *   would begin. Its length is at least one day.
 * - The day of cancellation counts as used. Days before the period began are unused.
 * - refund = floor(paid × unused days / period days): rounded down to the minor unit, so the sum
 *   refunded never exceeds what was paid.
 */
export interface RefundInput {
  amountMinor: number;
  periodStart: string;
  periodEnd: string;
  /** YYYY-MM-DD of the cancellation (UTC calendar date). */
  today: string;
}

export interface Refund {
  amountMinor: number;
  unusedDays: number;
  periodDays: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

export function proRataRefund({ amountMinor, periodStart, periodEnd, today }: RefundInput): Refund | null {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 0) throw new RangeError('amountMinor must be a non-negative integer');
  const periodDays = Math.max(1, daysBetween(periodStart, periodEnd));
  const usedDays = Math.min(periodDays, Math.max(0, daysBetween(periodStart, today) + 1));
  const unusedDays = periodDays - usedDays;
  if (amountMinor === 0 || unusedDays === 0) return null;
  const refund = Number((BigInt(amountMinor) * BigInt(unusedDays)) / BigInt(periodDays));
  return refund > 0 ? { amountMinor: refund, unusedDays, periodDays } : null;
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** A date `months` calendar months after `date` (YYYY-MM-DD), the day kept within the month, as PostgreSQL's `date + interval`. */
export function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const total = year * 12 + (month - 1) + months;
  const [y, m] = [Math.floor(total / 12), total % 12];
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return `${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
}
