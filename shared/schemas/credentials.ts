import * as z from 'zod/mini';
import { MSG } from './messages.ts';

/**
 * The fields of the sign-in and password forms (§5), written with zod/mini: the server validates
 * with these, and so does the small script of the public pages (ADR 024), which cannot afford the
 * classic zod API (~24 KB gzip against ~5 KB for these). Classic schemas may embed them.
 */
export const emailField = z.pipe(
  z.string({ error: MSG.required }).check(z.trim(), z.minLength(1, { error: MSG.required }), z.maxLength(254, { error: MSG.tooLong })),
  z.email({ error: MSG.email }),
);

export const passwordField = z
  .string({ error: MSG.required })
  .check(z.minLength(1, { error: MSG.required }), z.minLength(3, { error: MSG.passwordMin }), z.maxLength(200, { error: MSG.tooLong }));

const accountToken = z.string().check(z.minLength(1), z.maxLength(512));

export const loginInput = z.object({ email: emailField, password: passwordField });
export type LoginInput = z.infer<typeof loginInput>;

/** A code of the authenticator app (6 digits) or a recovery code (`xxxxx-xxxxx`), ADR 068. */
export const secondFactorInput = z.object({
  code: z.string({ error: MSG.required }).check(z.trim(), z.minLength(1, { error: MSG.required }), z.maxLength(32, { error: MSG.tooLong })),
});
export type SecondFactorInput = z.infer<typeof secondFactorInput>;

export const forgotPasswordInput = z.object({ email: emailField });

/** Reset password and accept invitation: the same two fields and rules (§5). */
export const newPasswordInput = z
  .object({
    token: accountToken,
    password: passwordField,
    password_confirm: z.string({ error: MSG.required }).check(z.minLength(1, { error: MSG.required }), z.maxLength(200)),
  })
  .check(z.refine((v) => v.password === v.password_confirm, { error: MSG.passwordsDoNotMatch, path: ['password_confirm'] }));

export const confirmEmailInput = z.object({ email: emailField, token: accountToken });
