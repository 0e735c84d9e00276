import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_LANGUAGE, isLanguage, type Language } from '../../shared/languages.ts';
import type { LoginGuard } from '../login-limiter.ts';
import type { RequestSession } from '../session/request-session.ts';
import type { ProfileCache } from '../session/profile-cache.ts';
import type { SessionUser } from '../../shared/schemas/auth.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import type { Geocoder } from '../geocoder.ts';

export interface Context {
  req: FastifyRequest;
  reply: FastifyReply;
  session: RequestSession;
  /** For calls made without the user's token (login, password flows). */
  upstream: UpstreamClient;
  lang: Language;
  log: FastifyBaseLogger;
  googleClientId: string | undefined;
  /** The configured address search, if any (ADR 011). */
  geocoder: Geocoder | undefined;
  /** Sign-in limits per client and per account (server/login-limiter.ts). */
  loginGuard: LoginGuard;
  /** Cookies are sent with Secure (production over https): the `lang` cookie set at sign-in too. */
  secureCookies: boolean;
  /** The shell's view of signed-in users, per access token (session.me). */
  profiles: ProfileCache<SessionUser>;
  /** The browsers' live-update streams (ADR 037), when on: a logout ends its session's at once. */
  live?: { endSession(sessionId: string): void };
}

export const LANG_COOKIE = 'lang';

/**
 * The interface language for the next pages (ADR 023): the same cookie the language switch writes, so
 * readable by the page's script (not HttpOnly), a year long.
 */
export function setLanguageCookie(ctx: Pick<Context, 'reply' | 'secureCookies'>, lang: Language): void {
  ctx.reply.setCookie(LANG_COOKIE, lang, { path: '/', maxAge: 31_536_000, sameSite: 'lax', secure: ctx.secureCookies, httpOnly: false });
}

export function languageOf(req: FastifyRequest): Language {
  const fromCookie = req.cookies?.[LANG_COOKIE];
  if (isLanguage(fromCookie)) return fromCookie;
  const header = req.headers['accept-language'];
  if (typeof header === 'string' && /^sv\b/i.test(header.trim())) return 'sv';
  return DEFAULT_LANGUAGE;
}
