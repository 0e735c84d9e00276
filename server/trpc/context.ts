import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_LANGUAGE, isLanguage, type Language } from '../../shared/schemas/common.ts';
import type { RequestSession } from '../session/request-session.ts';
import type { UpstreamClient } from '../upstream/client.ts';

export interface Context {
  req: FastifyRequest;
  reply: FastifyReply;
  session: RequestSession;
  /** For calls made without the user's token (login, password flows). */
  upstream: UpstreamClient;
  lang: Language;
  log: FastifyBaseLogger;
  googleClientId: string | undefined;
  /** Throws TOO_MANY_REQUESTS when this client or account has tried to sign in too often. */
  checkLoginAllowed: (email: string) => Promise<void>;
}

export const LANG_COOKIE = 'lang';

export function languageOf(req: FastifyRequest): Language {
  const fromCookie = req.cookies?.[LANG_COOKIE];
  if (isLanguage(fromCookie)) return fromCookie;
  const header = req.headers['accept-language'];
  if (typeof header === 'string' && /^sv\b/i.test(header.trim())) return 'sv';
  return DEFAULT_LANGUAGE;
}
