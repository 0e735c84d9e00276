/** The header every state-changing call from the browser carries; the server refuses mutations without it (CSRF). */
export const CSRF_HEADER = 'x-backoffice-csrf';

/**
 * Sent by the public pages' script with a form it posts in the background (ADR 024): the server then
 * answers a redirect as JSON `{ location }` (a fetch cannot read a redirect's target), and anything
 * else, as always, with the page showing the outcome.
 */
export const BACKGROUND_FORM_HEADER = 'x-backoffice-form';
