import { describe, expect, it } from 'vitest';
import { recordsFailedSignIn } from '../../upstream/lib/throttle.ts';

/** I9 (ADR 058): which failed sign-ins take the history's lock. */
describe('failed sign-ins in the history', () => {
  it('records the 1st, 2nd, 4th, 8th… failure of a pair, and past 64 failures of an address only at its powers of two', () => {
    const pair = Array.from({ length: 40 }, (_, i) => i + 1).filter((n) => recordsFailedSignIn(n, 1));
    expect(pair).toEqual([1, 2, 4, 8, 16, 32]);
    // One address trying 1,000 accounts once each: 64 entries, then 128, 256, 512.
    const flood = Array.from({ length: 1000 }, (_, i) => i + 1).filter((n) => recordsFailedSignIn(1, n));
    expect(flood).toHaveLength(64 + 3);
  });
});
