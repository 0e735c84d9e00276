import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../upstream/db.ts';
import { forgetColumnSamples, tableRows } from '../../upstream/lib/page-query.ts';

/** A database whose table-size reads answer 1, 2, 3… when `answer()` is called, and count how often they were asked. */
function fakeDb() {
  let reads = 0;
  const pending: (() => void)[] = [];
  const db = {
    kind: 'pglite',
    query: async () => {
      const n = ++reads;
      await new Promise<void>((resolve) => pending.push(resolve));
      return { rows: [{ n }] };
    },
  } as unknown as Db;
  return { db, reads: () => reads, answer: () => pending.splice(0).forEach((resolve) => resolve()) };
}

/** Whether `promise` has settled after the current microtasks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the statistics a search reads (table sizes, column samples: ADR 052, 054)', () => {
  afterEach(() => {
    vi.useRealTimers();
    forgetColumnSamples();
  });

  it('are read once per ten minutes, and past them answer at once while the next read runs', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    forgetColumnSamples();
    const { db, reads, answer } = fakeDb();
    // The first request waits for the first read.
    const first = tableRows(db, 'bicycles');
    expect(await settled(first)).toBe(false);
    answer();
    expect(await first).toBe(1);
    // Within ten minutes: kept, no read.
    vi.setSystemTime(Date.now() + 9 * 60_000);
    expect(await tableRows(db, 'bicycles')).toBe(1);
    expect(reads()).toBe(1);
    // Past them: the kept figure answers at once, and one read starts behind it.
    vi.setSystemTime(Date.now() + 2 * 60_000);
    const stale = tableRows(db, 'bicycles');
    expect(await settled(stale)).toBe(true);
    expect(await stale).toBe(1);
    expect(await tableRows(db, 'bicycles')).toBe(1);
    expect(reads()).toBe(2);
    // Once that read answers, its figure is the one kept.
    answer();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await tableRows(db, 'bicycles')).toBe(2);
    expect(reads()).toBe(2);
  });

  it('are kept per database: the same table in another database is read from that one', async () => {
    const one = fakeDb();
    const other = fakeDb();
    const first = tableRows(one.db, 'bicycles');
    one.answer();
    expect(await first).toBe(1);
    const second = tableRows(other.db, 'bicycles');
    expect(await settled(second)).toBe(false);
    expect(other.reads()).toBe(1);
    other.answer();
    expect(await second).toBe(1);
    expect(one.reads()).toBe(1);
  });
});
