/**
 * What this browser keeps of a signed-in user for the Today page's dead spots (ADR 042), by name, and what
 * goes when the session ends other than by a sign-out (ADR 067). Plain DOM: the public pages' script uses it.
 */

/** The service worker's copy of the Today page and its stops (`client/public/sw.js`): customers' addresses and phone numbers. */
export const DAY_CACHE = 'bb-today-v1';
/** The steps taken offline, waiting to be sent (`client/pages/today-offline.tsx`). */
export const QUEUE_KEY = 'bb-offline-queue';
/** Whose they are: another user signing in on this browser deletes them (`client/shell/offline-worker.ts`). */
export const USER_KEY = 'bb-offline-user';

/**
 * What a queued step keeps of its stop once the session has ended: enough to tell, at the next sign-in, whether
 * the office changed its status meanwhile; the customer's address, names, phone number and notes are gone.
 */
const KEPT_OF_STOP = ['id', 'status', 'version'] as const;

/**
 * The session ended, not by a sign-out (it expired, the account was deactivated, it was signed out elsewhere):
 * the day's copy is deleted, and the offline queue is kept for the same user's next sign-in — its steps only
 * (what to send, with which key), without the personal data of the stops they were taken on. A sign-out deletes
 * the queue too (`Clear-Site-Data` on its answer, and `forgetOfflineData`); another user's sign-in as well.
 */
export async function forgetAfterSessionEnded(): Promise<void> {
  try {
    const raw = localStorage.getItem(QUEUE_KEY);
    const steps: unknown = raw ? JSON.parse(raw) : null;
    if (Array.isArray(steps)) {
      const reduced = steps.map((step: Record<string, unknown>) => {
        const before = (step.before ?? {}) as Record<string, unknown>;
        return { ...step, before: Object.fromEntries(KEPT_OF_STOP.filter((field) => field in before).map((field) => [field, before[field]])) };
      });
      localStorage.setItem(QUEUE_KEY, JSON.stringify(reduced));
    } else if (raw !== null) localStorage.removeItem(QUEUE_KEY);
  } catch {
    // Storage refused (private mode), or a queue that does not parse: nothing usable was kept.
    try {
      localStorage.removeItem(QUEUE_KEY);
    } catch {
      // Refused: nothing was kept there.
    }
  }
  await globalThis.caches?.delete(DAY_CACHE).catch(() => false);
}
