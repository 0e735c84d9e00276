import type { Language } from '../../shared/languages.ts';
import { MSG } from '../../shared/schemas/messages.ts';

/** What the public pages' script needs from the server (ADR 024), in the page's `PUBLIC_BOOT_ID` element. */
export interface PublicBoot {
  lang: Language;
  /** The texts the script may show itself, in the page's language: i18n key → text. */
  messages: Record<string, string>;
  googleClientId: string | null;
}

/**
 * What the script can say without the server: the messages of the sign-in and password schemas
 * (shared/schemas/credentials.ts) and the fallbacks for a request that did not get through.
 */
export const PUBLIC_MESSAGE_KEYS = [
  ...Object.values(MSG),
  'errors.generic',
  'errors.upstream_unreachable',
  'errors.invalidCredentials',
  'errors.passkey_invalid',
  'auth.passkeyFailed',
] as const;
