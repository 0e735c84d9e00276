import { CLEAR_SITE_DATA } from '../../../shared/http-headers.ts';
import { googleLoginInput } from '../../../shared/schemas/auth.ts';
import {
  confirmEmailInput,
  forgotPasswordInput,
  loginInput,
  newPasswordInput,
  secondFactorInput,
  type LoginInput,
  type SecondFactorInput,
} from '../../../shared/schemas/credentials.ts';
import { ERROR_TEXT } from '../../../shared/errors.ts';
import { isTokenPair, sessionIdOf, type TokenPair } from '../../session/tokens.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { AppError } from '../../app-error.ts';
import { publicProcedure, router } from '../init.ts';
import { setLanguageCookie, type Context } from '../context.ts';
import { isLanguage, type Language } from '../../../shared/languages.ts';
import { passkeyAnswer } from '../../../shared/schemas/passkeys.ts';

/** §5: a login answer without a token pair is unsuccessful with 'Unexpected server response'. */
function requirePair(data: unknown): TokenPair {
  if (!isTokenPair(data)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return data;
}

/** The first step's answer when the user has a second factor (ADR 068). */
function isChallenge(data: unknown): data is { second_factor_required: true; challenge: string } {
  const v = data as { second_factor_required?: unknown; challenge?: unknown } | null;
  return !!v && v.second_factor_required === true && typeof v.challenge === 'string' && v.challenge.length > 0;
}

export interface SignInResult {
  roles: string[];
  language: Language | null;
  /** The password was right; a code of the second factor is asked next (`/login/second-factor`). */
  secondFactor?: true;
  /** Only enrolling a second factor is open until it is done (`/security`); absent otherwise. */
  enrol?: true;
}

/**
 * Stores the new session and applies the language of the person's profile (ADR 023): the profile's
 * language wins over the one the sign-in page was shown in. Without one, the page's language stays.
 * A challenge instead of tokens waits in its own cookie for the second step (ADR 068).
 */
async function signIn(ctx: Context, call: Promise<unknown>): Promise<SignInResult> {
  const data = await call;
  if (isChallenge(data)) {
    ctx.session.setChallenge(data.challenge);
    return { roles: [], language: null, secondFactor: true };
  }
  const pair = requirePair(data);
  ctx.session.set(pair);
  const info = ctx.session.info();
  const language = await profileLanguage(ctx);
  if (language) setLanguageCookie(ctx, language);
  return { roles: info?.roles ?? [], language, ...(info?.enrol ? { enrol: true } : {}) };
}

/** The second step of a sign-in: the code and the challenge the first step left in its cookie. */
export async function loginSecondFactor(ctx: Context, input: SecondFactorInput): Promise<SignInResult> {
  const challenge = ctx.session.challenge();
  if (!challenge) throw new AppError('BAD_REQUEST', 'second_factor_expired', ERROR_TEXT.second_factor_expired);
  try {
    return await signIn(
      ctx,
      ctx.upstream.call({
        method: 'POST',
        path: 'account/login/second-factor',
        body: { challenge, code: input.code },
        lang: ctx.lang,
        clientIp: ctx.req.ip,
        clientAgent: ctx.req.headers['user-agent'],
        requestId: String(ctx.req.id),
      }),
    );
  } catch (error) {
    // An expired challenge cannot be used again: back to the password.
    if (error instanceof UpstreamError && error.code === 'second_factor_expired') ctx.session.clearChallenge();
    throw error;
  }
}

async function profileLanguage(ctx: Context): Promise<Language | null> {
  try {
    const profile = await ctx.session.call<{ language?: unknown } | null>({ method: 'GET', path: 'account/', lang: ctx.lang });
    return isLanguage(profile?.language) ? profile.language : null;
  } catch (error) {
    // The sign-in itself succeeded; the page simply keeps its language.
    ctx.log.warn({ err: error }, 'profile language not read at sign-in');
    return null;
  }
}

/** A sign-in with a passkey (ADR 075): the browser's signed answer to the API's options; the API checks it all. */
export function loginWithPasskey(ctx: Context, response: unknown): Promise<SignInResult> {
  return signIn(
    ctx,
    ctx.upstream.call({
      method: 'POST',
      path: 'account/login/passkey',
      body: { response },
      lang: ctx.lang,
      clientIp: ctx.req.ip,
      clientAgent: ctx.req.headers['user-agent'],
      requestId: String(ctx.req.id),
    }),
  );
}

export async function loginWithPassword(ctx: Context, input: LoginInput) {
  await ctx.loginGuard.check(ctx.req, input.email);
  try {
    const result = await signIn(
      ctx,
      ctx.upstream.call({
        method: 'POST',
        path: 'account/login',
        body: input,
        lang: ctx.lang,
        clientIp: ctx.req.ip,
        clientAgent: ctx.req.headers['user-agent'],
        requestId: String(ctx.req.id),
      }),
    );
    ctx.loginGuard.settle(ctx.req, input.email, null);
    return result;
  } catch (error) {
    ctx.loginGuard.settle(ctx.req, input.email, error);
    throw error;
  }
}

/** A signed-out account step sent to the API from the browser's address, under the request's id. */
function signedOutCall(ctx: Context, path: string, body: unknown) {
  return ctx.upstream.call({ method: 'POST', path, body, lang: ctx.lang, clientIp: ctx.req.ip, requestId: String(ctx.req.id) });
}

export const authRouter = router({
  login: publicProcedure.input(loginInput).mutation(({ ctx, input }) => loginWithPassword(ctx, input)),
  secondFactor: publicProcedure.input(secondFactorInput).mutation(({ ctx, input }) => loginSecondFactor(ctx, input)),

  /** The options of a passkey sign-in (a sealed challenge of the API's; nothing is stored). */
  passkeyOptions: publicProcedure.mutation(({ ctx }) =>
    ctx.upstream.call<Record<string, unknown>>({
      method: 'POST',
      path: 'account/login/passkey/options',
      body: {},
      lang: ctx.lang,
      clientIp: ctx.req.ip,
      requestId: String(ctx.req.id),
    }),
  ),
  passkey: publicProcedure.input(passkeyAnswer).mutation(({ ctx, input }) => loginWithPasskey(ctx, input.response)),

  google: publicProcedure.input(googleLoginInput).mutation(({ ctx, input }) => {
    if (!ctx.googleClientId) throw new AppError('NOT_FOUND', 'not_found', 'Google sign-in is not configured.');
    return signIn(
      ctx,
      ctx.upstream.call({
        method: 'POST',
        path: 'auth/google',
        body: { id_token: input.idToken },
        lang: ctx.lang,
        clientIp: ctx.req.ip,
        clientAgent: ctx.req.headers['user-agent'],
        requestId: String(ctx.req.id),
      }),
    );
  }),

  logout: publicProcedure.mutation(async ({ ctx }) => {
    const refreshToken = ctx.session.refreshToken();
    const sessionId = sessionIdOf(ctx.session.accessToken());
    ctx.session.clear();
    // Everything this browser kept of the user goes with an explicit sign-out (ADR 067).
    ctx.reply.header('clear-site-data', CLEAR_SITE_DATA.signOut);
    if (sessionId) ctx.live?.endSession(sessionId);
    if (refreshToken) {
      // Revoke upstream too; a failure here must not keep the user signed in locally.
      await ctx.upstream
        .call({ method: 'POST', path: 'account/logout', body: { refresh_token: refreshToken }, lang: ctx.lang, clientIp: ctx.req.ip, requestId: String(ctx.req.id) })
        .catch((error: unknown) => ctx.log.warn({ err: error }, 'refresh token revocation failed'));
    }
    return { ok: true as const };
  }),

  forgotPassword: publicProcedure.input(forgotPasswordInput).mutation(async ({ ctx, input }) => {
    await signedOutCall(ctx, 'account/forgot-password', input);
    return { ok: true as const };
  }),

  resetPassword: publicProcedure.input(newPasswordInput).mutation(async ({ ctx, input }) => {
    await signedOutCall(ctx, 'account/reset-password', input);
    return { ok: true as const };
  }),

  acceptInvite: publicProcedure.input(newPasswordInput).mutation(async ({ ctx, input }) => {
    await signedOutCall(ctx, 'account/accept-invite', input);
    return { ok: true as const };
  }),

  confirmEmail: publicProcedure.input(confirmEmailInput).mutation(async ({ ctx, input }) => {
    await signedOutCall(ctx, 'account/confirm-email', input);
    // Whose address changed is not known here (the link is opened signed out): every header asks again.
    ctx.profiles.forgetAll();
    return { ok: true as const };
  }),
});
