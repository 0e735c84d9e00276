/** The header every state-changing call from the browser carries; the server refuses mutations without it (CSRF). */
export const CSRF_HEADER = 'x-backoffice-csrf';

/**
 * Sent by the public pages' script with a form it posts in the background (ADR 024): the server then
 * answers a redirect as JSON `{ location }` (a fetch cannot read a redirect's target), and anything
 * else, as always, with the page showing the outcome.
 */
/**
 * Names one write so it is done once however often it is sent (ADR 042): the browser's offline queue sends
 * it with a replayed action, the back office passes it on to the API with each write that action makes.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** A key: printable ASCII without spaces, 1–200 characters (a UUID in practice; the back office may add `.2`). */
export const isIdempotencyKey = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]{1,200}$/.test(value);

export const BACKGROUND_FORM_HEADER = 'x-backoffice-form';

/**
 * What a browser must delete of this site when a session ends (ADR 067), as `Clear-Site-Data` values. A sign-out
 * (the menu's, or the no-JS `POST /logout`) deletes everything kept in the browser: local storage (the offline
 * queue), the service worker and its caches (the day's stops: customers' addresses and phone numbers), and the
 * HTTP cache. A session found ended otherwise (expired, deactivated, signed out elsewhere) deletes the HTTP cache
 * only: the page then deletes the day's copy itself and keeps the offline queue, sealed, for the same user.
 */
export const CLEAR_SITE_DATA = { signOut: '"cache", "storage"', sessionEnded: '"cache"' } as const;
