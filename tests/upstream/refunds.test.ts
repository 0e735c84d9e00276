import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysBetween, proRataRefund } from '../../upstream/lib/refund.ts';

/** ADR 012: refund = floor(paid × unused days / period days), in minor units; today counts as used. */
describe('pro-rata refund', () => {
  it('refunds the unused days of a month, rounded down to the öre', () => {
    // 31 days in March; the 1st to the 10th are used (10 days), 21 are not: 19 900 × 21 / 31 = 13 480.6…
    expect(proRataRefund({ amountMinor: 19_900, periodStart: '2026-03-01', periodEnd: '2026-04-01', today: '2026-03-10' })).toEqual({
      amountMinor: 13_480,
      unusedDays: 21,
      periodDays: 31,
    });
  });

  it('counts the day of cancellation as used, and refunds everything for a period not begun', () => {
    expect(proRataRefund({ amountMinor: 3_000, periodStart: '2026-06-01', periodEnd: '2026-07-01', today: '2026-06-01' })).toEqual({
      amountMinor: 2_900,
      unusedDays: 29,
      periodDays: 30,
    });
    expect(proRataRefund({ amountMinor: 3_000, periodStart: '2026-06-01', periodEnd: '2026-07-01', today: '2026-05-20' })).toEqual({
      amountMinor: 3_000,
      unusedDays: 30,
      periodDays: 30,
    });
  });

  it('refunds nothing on the last day, after the period, or when nothing was paid', () => {
    expect(proRataRefund({ amountMinor: 19_900, periodStart: '2026-03-01', periodEnd: '2026-04-01', today: '2026-03-31' })).toBeNull();
    expect(proRataRefund({ amountMinor: 19_900, periodStart: '2026-03-01', periodEnd: '2026-04-01', today: '2026-04-15' })).toBeNull();
    expect(proRataRefund({ amountMinor: 0, periodStart: '2026-03-01', periodEnd: '2026-04-01', today: '2026-03-02' })).toBeNull();
    // One penny over 30 days, 29 unused: 0.96… rounds down to nothing.
    expect(proRataRefund({ amountMinor: 1, periodStart: '2026-06-01', periodEnd: '2026-07-01', today: '2026-06-01' })).toBeNull();
  });

  it('measures calendar days in UTC, leap years included', () => {
    expect(daysBetween('2028-02-01', '2028-03-01')).toBe(29);
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2); // across the European DST change
    // 15 January to 14 July 2028 used (182 days), 184 of 366 unused: 16 900 × 184 / 366 = 8 496.1…
    expect(proRataRefund({ amountMinor: 16_900, periodStart: '2028-01-15', periodEnd: '2029-01-15', today: '2028-07-14' })).toEqual({
      amountMinor: 8_496,
      unusedDays: 184,
      periodDays: 366,
    });
  });

  it('never refunds more than was paid nor less than nothing, and refunds less the later the cancellation', () => {
    const date = fc.integer({ min: 0, max: 800 }).map((n) => new Date(Date.UTC(2026, 0, 1 + n)).toISOString().slice(0, 10));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000_00 }),
        date,
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: -30, max: 430 }),
        (amountMinor, periodStart, length, dayIndex) => {
          const start = Date.parse(`${periodStart}T00:00:00Z`);
          const iso = (days: number) => new Date(start + days * 86_400_000).toISOString().slice(0, 10);
          const periodEnd = iso(length);
          const refund = proRataRefund({ amountMinor, periodStart, periodEnd, today: iso(dayIndex) });
          const later = proRataRefund({ amountMinor, periodStart, periodEnd, today: iso(dayIndex + 1) });
          const amount = refund?.amountMinor ?? 0;
          expect(Number.isInteger(amount)).toBe(true);
          expect(amount).toBeGreaterThanOrEqual(0);
          expect(amount).toBeLessThanOrEqual(amountMinor);
          expect(later?.amountMinor ?? 0).toBeLessThanOrEqual(amount);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
