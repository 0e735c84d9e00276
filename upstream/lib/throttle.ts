import { isIP } from 'node:net';
import type { Db } from '../db.ts';
import { ApiError } from './api-error.ts';

/** What is recorded for one counter, in seconds since its first and its last counted attempt. */
export interface ThrottleEntry {
  count: number;
  sinceFirst: number;
  sinceLast: number;
}

/** How a counter decides: how long the next attempt must wait, and when the record starts over. */
export interface ThrottlePolicy {
  waitSeconds(entry: ThrottleEntry): number;
  expired(entry: ThrottleEntry): boolean;
}

/** `free` attempts, then each further one waits 2^(count − free) seconds after the last, at most `maxDelay`. */
export function backoff(free: number, maxDelaySeconds: number, forgetAfterSeconds: number): ThrottlePolicy {
  return {
    waitSeconds: (e) => (e.count < free ? 0 : Math.min(2 ** (e.count - free), maxDelaySeconds) - e.sinceLast),
    expired: (e) => e.sinceLast >= forgetAfterSeconds,
  };
}

/** At most `limit` attempts in a window that opens with the first one. */
export function fixedWindow(limit: number, windowSeconds: number): ThrottlePolicy {
  return {
    waitSeconds: (e) => (e.count < limit ? 0 : windowSeconds - e.sinceFirst),
    expired: (e) => e.sinceFirst >= windowSeconds,
  };
}

export interface Counter {
  scope: string;
  key: string;
  policy: ThrottlePolicy;
}

/** `counts`: each counter's attempts in its window, this one included, in the order the counters were given. */
export type ThrottleVerdict = { allowed: true; counts: number[] } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one attempt against every counter, or none when any of them says wait. The rows are locked for
 * the decision, so simultaneous attempts are counted one after another and cannot all slip through.
 * An attempt is counted before its outcome is known; `forgive`/`giveBack` undo it after a success.
 */
export async function takeAttempt(db: Db, counters: readonly Counter[]): Promise<ThrottleVerdict> {
  return db.transaction(async (tx) => {
    const entries: ThrottleEntry[] = [];
    for (const { scope, key } of counters) {
      await tx.query('insert into throttle (scope, key) values ($1, $2) on conflict do nothing', [scope, key]);
      const { rows } = await tx.query<{ count: number; since_first: number; since_last: number }>(
        `select count, extract(epoch from now() - first_at)::float8 as since_first, extract(epoch from now() - last_at)::float8 as since_last
           from throttle where scope = $1 and key = $2 for update`,
        [scope, key],
      );
      const row = rows[0]!;
      entries.push({ count: Number(row.count), sinceFirst: Number(row.since_first), sinceLast: Number(row.since_last) });
    }
    const waits = counters.map((c, i) => (c.policy.expired(entries[i]!) ? 0 : c.policy.waitSeconds(entries[i]!)));
    const longest = Math.max(0, ...waits);
    if (longest > 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(longest)) };
    const counts: number[] = [];
    for (const [i, { scope, key, policy }] of counters.entries()) {
      const startOver = policy.expired(entries[i]!) || entries[i]!.count === 0;
      counts.push(startOver ? 1 : entries[i]!.count + 1);
      await tx.query(`update throttle set count = $3, last_at = now(), first_at = case when $4::boolean then now() else first_at end where scope = $1 and key = $2`, [
        scope,
        key,
        counts[i],
        startOver,
      ]);
    }
    return { allowed: true, counts };
  });
}

/** Forgets a counter (a correct password for this address and account). */
export async function forgive(db: Db, scope: string, key: string): Promise<void> {
  await db.query('delete from throttle where scope = $1 and key = $2', [scope, key]);
}

/** Takes back one counted attempt (a success must not use up an address's allowance). */
export async function giveBack(db: Db, scope: string, key: string): Promise<void> {
  await db.query('update throttle set count = greatest(count - 1, 0) where scope = $1 and key = $2', [scope, key]);
}

/**
 * The client address a counter is kept for. IPv4-mapped addresses count as IPv4; an IPv6 client counts by
 * its /64, the block one subscriber usually holds, so rotating through it does not reset the count.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIP(ip) !== 6) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return (
    groups
      .slice(0, 4)
      .map((g) => g.replace(/^0+(?=.)/, ''))
      .join(':') + '::/64'
  );
}

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/**
 * Whether a failed sign-in is written to the change history (ADR 058, I9): each entry takes the history's one
 * lock, so an anonymous flood must not write one per attempt. Written: the 1st, 2nd, 4th, 8th… failure of an
 * address + account pair (each entry says how many so far), while the client address has failed at most 64
 * times in its window, and past that only at its own 128th, 256th… failure. Every failure is still counted
 * (the throttle) and logged.
 */
export const recordsFailedSignIn = (pairFailures: number, addressFailures: number): boolean =>
  isPowerOfTwo(pairFailures) && (addressFailures <= 64 || isPowerOfTwo(addressFailures));

/** A throttled attempt's answer: 429 with how long to wait. */
export function refuseWithRetry(
  reply: { header(name: string, value: string): unknown },
  seconds: number,
  code: 'too_many_attempts' | 'too_many_requests' = 'too_many_attempts',
): never {
  reply.header('retry-after', String(seconds));
  throw new ApiError(429, code);
}
