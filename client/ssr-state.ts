import type { DehydratedState } from '@tanstack/react-query';
import type { Language } from '../shared/languages.ts';
import type { PublicConfig } from './public-config.tsx';

export const STATE_ELEMENT_ID = '__BO_STATE__';

/** What the server hands to the browser inside the page. Never tokens: see docs/decisions. */
export interface SsrState {
  lang: Language;
  config: Omit<PublicConfig, 'nonce'>;
  dehydrated: DehydratedState;
}

/**
 * JSON that is safe inside a <script> element: `<`, `>`, `&`, U+2028 and U+2029 are escaped,
 * so a stored `</script><script>` or `<!--` in any field cannot end the element.
 */
export function serializeState(state: unknown): string {
  return JSON.stringify(state).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
