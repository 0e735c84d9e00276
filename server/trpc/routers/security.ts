import QRCode from 'qrcode';
import { z } from 'zod';
import { ROLE } from '../../../shared/roles.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { secondFactorInput } from '../../../shared/schemas/credentials.ts';
import { passkeyRegistration, passkeyRemoval } from '../../../shared/schemas/passkeys.ts';
import { sessionIdOf } from '../../session/tokens.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { roleProcedure, router } from '../init.ts';

/**
 * Sign-in security (issue 32, ADR 068): the signed-in user's second factors and sessions, and the Admin's
 * policy naming the roles that must have a second factor. The API keeps the rules; this is the page's view.
 */
const securityProcedure = roleProcedure(...rolesOf('/security'));
const adminProcedure = roleProcedure(ROLE.Admin);

const factorsSchema = z.object({
  totp: z.object({ created_at: z.string(), last_used_at: z.string().nullable() }).nullable(),
  passkeys: z.array(z.object({ id: z.number(), name: z.string().nullable(), created_at: z.string(), last_used_at: z.string().nullable() })),
  recovery_codes_left: z.number(),
  required: z.boolean(),
});
const sessionsSchema = z.array(
  z.object({ id: z.string(), created_at: z.string(), last_seen_at: z.string().nullable(), ip: z.string().nullable(), user_agent: z.string().nullable(), current: z.boolean() }),
);
const codesSchema = z.object({ recovery_codes: z.array(z.string()) });

function parsed<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (!result.success) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return result.data;
}

export const securityRouter = router({
  factors: securityProcedure.query(async ({ ctx }) => parsed(factorsSchema, await ctx.session.call({ method: 'GET', path: 'account/factors', lang: ctx.lang }))),

  /** A new authenticator-app secret, as text and as a QR code (an SVG data URL drawn on the server): shown once. */
  startTotp: securityProcedure.mutation(async ({ ctx }) => {
    const started = parsed(z.object({ secret: z.string(), uri: z.string() }), await ctx.session.call({ method: 'POST', path: 'account/factors/totp', body: {}, lang: ctx.lang }));
    const svg = await QRCode.toString(started.uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
    return { secret: started.secret, uri: started.uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
  }),

  confirmTotp: securityProcedure
    .input(secondFactorInput)
    .mutation(async ({ ctx, input }) =>
      parsed(codesSchema, await ctx.session.call({ method: 'POST', path: 'account/factors/totp/confirm', body: { code: input.code }, lang: ctx.lang })),
    ),

  removeTotp: securityProcedure.input(secondFactorInput).mutation(async ({ ctx, input }) => {
    await ctx.session.call({ method: 'POST', path: 'account/factors/totp/remove', body: { code: input.code }, lang: ctx.lang });
    return { removed: true as const };
  }),

  newRecoveryCodes: securityProcedure.mutation(async ({ ctx }) =>
    parsed(codesSchema, await ctx.session.call({ method: 'POST', path: 'account/factors/recovery-codes', body: {}, lang: ctx.lang })),
  ),

  /** Options for a new passkey (ADR 075): the API's challenge, this user, the passkeys they already have. */
  passkeyOptions: securityProcedure.mutation(({ ctx }) =>
    ctx.session.call<Record<string, unknown>>({ method: 'POST', path: 'account/factors/passkey/options', body: {}, lang: ctx.lang }),
  ),
  /** Registers the passkey the browser made; a first factor answers recovery codes too (shown once). */
  addPasskey: securityProcedure
    .input(passkeyRegistration)
    .mutation(async ({ ctx, input }) =>
      parsed(
        z.object({ recovery_codes: z.array(z.string()).nullable() }),
        await ctx.session.call({ method: 'POST', path: 'account/factors/passkey', body: input, lang: ctx.lang }),
      ),
    ),
  /** Options for confirming it is the user with one of their passkeys: the fresh proof a removal carries (ADR 075). */
  passkeyConfirmOptions: securityProcedure.mutation(({ ctx }) =>
    ctx.session.call<Record<string, unknown>>({ method: 'POST', path: 'account/factors/passkey/confirm-options', body: {}, lang: ctx.lang }),
  ),
  /** Removes a passkey with its fresh proof (the password or a passkey's answer); the API refuses it without one. */
  removePasskey: securityProcedure.input(passkeyRemoval).mutation(async ({ ctx, input }) => {
    const { id, ...proof } = input;
    await ctx.session.call({ method: 'POST', path: `account/factors/passkey/${id}/remove`, body: proof, lang: ctx.lang });
    return { removed: true as const };
  }),

  sessions: securityProcedure.query(async ({ ctx }) => parsed(sessionsSchema, await ctx.session.call({ method: 'GET', path: 'account/sessions', lang: ctx.lang }))),

  /** Ends one of the user's sessions; ending this one signs out here too. */
  endSession: securityProcedure.input(z.object({ id: z.string().min(1).max(64) })).mutation(async ({ ctx, input }) => {
    const current = sessionIdOf(ctx.session.accessToken()) === input.id;
    await ctx.session.call({ method: 'POST', path: `account/sessions/${encodeURIComponent(input.id)}/end`, body: {}, lang: ctx.lang });
    ctx.live?.endSession(input.id);
    if (current) ctx.session.clear();
    return { current };
  }),

  policy: adminProcedure.query(async ({ ctx }) =>
    parsed(z.object({ roles: z.array(z.string()) }), await ctx.session.call({ method: 'GET', path: 'second-factor-policy', lang: ctx.lang })),
  ),
  setPolicy: adminProcedure
    .input(z.object({ roles: z.array(z.string().min(1).max(64)).max(50) }))
    .mutation(async ({ ctx, input }) =>
      parsed(z.object({ roles: z.array(z.string()) }), await ctx.session.call({ method: 'PUT', path: 'second-factor-policy', body: input, lang: ctx.lang })),
    ),
});
