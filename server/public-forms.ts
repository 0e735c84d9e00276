import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';
import type { PublicFormResult } from '../shared/ssr-contract.ts';
import { ERROR_TEXT } from '../shared/errors.ts';
import { BACKGROUND_FORM_HEADER } from '../shared/http-headers.ts';
import { safeRedirectPath } from '../shared/route-table.ts';
import { loginInput, secondFactorInput } from '../shared/schemas/credentials.ts';
import { fieldErrorsOf } from '../shared/schemas/messages.ts';
import { isCrossSite } from './csrf.ts';
import type { Context } from './trpc/context.ts';
import { AppError } from './app-error.ts';
import { appRouter } from './trpc/router.ts';
import { loginSecondFactor, loginWithPassword, type SignInResult } from './trpc/routers/auth.ts';
import { UpstreamError } from './upstream/client.ts';

/**
 * The public pages' forms work without JavaScript (ADR 005, ADR 024): each posts here, to its own
 * address, and gets a redirect or the same page showing the outcome (a confirmation, or the messages
 * on the fields). The actions are the tRPC procedures the app calls, through a server-side caller, so
 * validation, upstream calls and error rules are the same. A post from the page script carries
 * BACKGROUND_FORM_HEADER and is answered a redirect as JSON `{ location }` instead.
 */
export interface PublicFormDeps {
  createContext(req: FastifyRequest, reply: FastifyReply): Context;
  /** Renders the page at the request's address with the outcome of its form. */
  sendPage(req: FastifyRequest, reply: FastifyReply, form: PublicFormResult, status: number): Promise<FastifyReply>;
}

/** A form field as a plain string: a missing or repeated field is empty, never an array or undefined. */
type Body = (name: string) => string;
type Caller = ReturnType<typeof appRouter.createCaller>;

interface PasswordFlow {
  path: string;
  run(caller: Caller, params: Record<string, string>, body: Body): Promise<unknown>;
  /** Fields shown again after a failure (never passwords). */
  keep?: readonly string[];
}

const FLOWS: readonly PasswordFlow[] = [
  { path: '/forgot-password', run: (caller, _params, body) => caller.auth.forgotPassword({ email: body('email') }), keep: ['email'] },
  {
    path: '/reset-password/:token',
    run: (caller, params, body) => caller.auth.resetPassword({ token: params.token!, password: body('password'), password_confirm: body('password_confirm') }),
  },
  {
    path: '/accept-invitation/:token',
    run: (caller, params, body) => caller.auth.acceptInvite({ token: params.token!, password: body('password'), password_confirm: body('password_confirm') }),
  },
  { path: '/confirm-email/:token/:email', run: (caller, params) => caller.auth.confirmEmail({ token: params.token!, email: params.email! }) },
];

export const SECOND_FACTOR_PATH = '/login/second-factor';

/** Where a sign-in step goes next: the code page, enrolment the policy requires, the page asked for, or /forbidden. */
function afterSignIn(result: SignInResult, target: string): string {
  if (result.secondFactor) return `${SECOND_FACTOR_PATH}?${new URLSearchParams({ redirect: target }).toString()}`;
  if (result.roles.length === 0) return '/forbidden';
  return result.enrol ? '/security' : target;
}

function bodyOf(req: FastifyRequest): Body {
  const raw = (req.body ?? {}) as Record<string, unknown>;
  return (name) => (typeof raw[name] === 'string' ? (raw[name] as string) : '');
}

/** What went wrong, as the page shows it: the same codes, texts and field keys tRPC's error formatter gives the app. */
function failureOf(error: unknown, req: FastifyRequest): { form: PublicFormResult; status: number } {
  if (error instanceof TRPCError && error.cause instanceof z.core.$ZodError) {
    return { form: { error: { appCode: 'validation_error', message: ERROR_TEXT.validation_error }, fields: fieldErrorsOf(error.cause) }, status: 400 };
  }
  if (error instanceof AppError)
    return { form: { error: { appCode: error.appCode, message: error.message }, fields: error.fieldErrors }, status: getHTTPStatusCodeFromError(error) };
  if (error instanceof UpstreamError) return { form: { error: { appCode: error.code, message: error.message }, fields: error.fields }, status: error.status >= 500 ? 502 : 400 };
  req.log.error({ err: error }, 'public form failed');
  return { form: { error: { appCode: 'generic', message: ERROR_TEXT.internal_error } }, status: 500 };
}

function keptValues(body: Body, keep: readonly string[] = []): Record<string, string> {
  return Object.fromEntries(keep.map((key) => [key, body(key).slice(0, 254)]));
}

/** A post sent by the page's script (it reads the answer), not by a form without JavaScript. */
const background = (req: FastifyRequest) => req.headers[BACKGROUND_FORM_HEADER] === '1';

/** On to `location`: a redirect, or for a background post the address in JSON. */
const redirect = (req: FastifyRequest, reply: FastifyReply, location: string) =>
  background(req) ? reply.header('cache-control', 'no-store').send({ location }) : reply.redirect(location, 303);

/** A form whose fields did not pass their schema: the fields' messages under them. */
const invalidForm = (error: Parameters<typeof fieldErrorsOf>[0]): PublicFormResult => ({
  error: { appCode: 'validation_error', message: ERROR_TEXT.validation_error },
  fields: fieldErrorsOf(error),
});

/** A sign-in step's outcome: on to where the visitor was going, or its failure handed to `fail`. */
async function signInStep(
  req: FastifyRequest,
  reply: FastifyReply,
  target: string,
  step: () => Promise<Parameters<typeof afterSignIn>[0]>,
  fail: (form: PublicFormResult, status: number) => unknown,
) {
  try {
    return redirect(req, reply, afterSignIn(await step(), target));
  } catch (error) {
    const failure = failureOf(error, req);
    return fail(failure.form, failure.status);
  }
}

export function registerPublicForms(app: FastifyInstance, deps: PublicFormDeps) {
  app.post('/login', async (req, reply) => {
    if (isCrossSite(req)) return reply.code(403).send('Forbidden');
    const body = bodyOf(req);
    const target = safeRedirectPath(body('redirect'));
    const values = { email: body('email').slice(0, 254) };
    // Without JavaScript a failure goes back to /login?error=<code>; the e-mail address stays out of the
    // URL (history, proxies and logs keep URLs). A background post keeps it in the field instead.
    const fail = (form: PublicFormResult, status: number) =>
      background(req)
        ? deps.sendPage(req, reply, { ...form, values }, status)
        : reply.redirect(`/login?${new URLSearchParams({ error: form.error?.appCode ?? 'generic', redirect: target }).toString()}`, 303);
    const input = loginInput.safeParse({ email: body('email'), password: body('password') });
    if (!input.success) return fail(invalidForm(input.error), 400);
    return signInStep(req, reply, target, () => loginWithPassword(deps.createContext(req, reply), input.data), fail);
  });

  /**
   * The second step (ADR 068): a code of the authenticator app or a recovery code, with the challenge the
   * password step left in its cookie. Without JavaScript a failure comes back as ?error=<code>; a challenge
   * that expired sends the visitor back to the password.
   */
  app.post(SECOND_FACTOR_PATH, async (req, reply) => {
    if (isCrossSite(req)) return reply.code(403).send('Forbidden');
    const body = bodyOf(req);
    const target = safeRedirectPath(body('redirect'));
    const fail = (form: PublicFormResult, status: number) => {
      if (form.error?.appCode === 'second_factor_expired')
        return redirect(req, reply, `/login?${new URLSearchParams({ error: 'second_factor_expired', redirect: target }).toString()}`);
      return background(req)
        ? deps.sendPage(req, reply, form, status)
        : reply.redirect(`${SECOND_FACTOR_PATH}?${new URLSearchParams({ error: form.error?.appCode ?? 'generic', redirect: target }).toString()}`, 303);
    };
    const input = secondFactorInput.safeParse({ code: body('code') });
    if (!input.success) return fail(invalidForm(input.error), 400);
    return signInStep(req, reply, target, () => loginSecondFactor(deps.createContext(req, reply), input.data), fail);
  });

  for (const flow of FLOWS) {
    app.post(flow.path, async (req, reply) => {
      if (isCrossSite(req)) return reply.code(403).send('Forbidden');
      const body = bodyOf(req);
      const caller = appRouter.createCaller(deps.createContext(req, reply));
      try {
        await flow.run(caller, req.params as Record<string, string>, body);
        return deps.sendPage(req, reply, { done: true }, 200);
      } catch (error) {
        const failure = failureOf(error, req);
        return deps.sendPage(req, reply, { ...failure.form, values: keptValues(body, flow.keep) }, failure.status);
      }
    });
  }

  /** "Sign in with another account" on /forbidden: signs out (revoking upstream) and goes to /login. */
  app.post('/logout', async (req, reply) => {
    if (isCrossSite(req)) return reply.code(403).send('Forbidden');
    await appRouter.createCaller(deps.createContext(req, reply)).auth.logout();
    return redirect(req, reply, '/login');
  });
}
