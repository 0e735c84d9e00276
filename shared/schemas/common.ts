import { z } from 'zod';

/**
 * Validation messages are i18n keys (locales/<lang>/common.json → validation.*) so the same
 * schema speaks English in one browser and Swedish in the next, and the server's errors land on
 * the form field in the user's language.
 */
export const MSG = {
  required: 'validation.required',
  email: 'validation.email',
  passwordMin: 'validation.passwordMin',
  passwordsDoNotMatch: 'validation.passwordsDoNotMatch',
  tooLong: 'validation.tooLong',
  /** PostgreSQL cannot store U+0000 in text. */
  nul: 'validation.nul',
} as const;

const withoutNul = (value: string) => !value.includes('\u0000');

/** Text as the API stores it: trimmed, at most `max` characters, no NUL character. */
export const storableText = (max: number) => z.string({ error: MSG.required }).trim().max(max, { error: MSG.tooLong }).refine(withoutNul, { error: MSG.nul });

/** A database id: positive and within what JavaScript numbers and bigint columns both hold exactly. */
export const idField = () => z.coerce.number({ error: 'validation.number' }).int({ error: 'validation.integer' }).positive({ error: 'validation.option' }).max(Number.MAX_SAFE_INTEGER, { error: 'validation.option' });

/** A record version (an `integer` column). */
export const versionField = () => z.coerce.number({ error: 'validation.number' }).int({ error: 'validation.integer' }).positive({ error: 'validation.min:1' }).max(2_147_483_647, { error: 'validation.max:2147483647' });

export const requiredString = (max = 255) =>
  z
    .string({ error: MSG.required })
    .trim()
    .min(1, { error: MSG.required })
    .max(max, { error: MSG.tooLong })
    .refine(withoutNul, { error: MSG.nul });

export const emailField = z
  .string({ error: MSG.required })
  .trim()
  .min(1, { error: MSG.required })
  .max(254, { error: MSG.tooLong })
  .pipe(z.email({ error: MSG.email }));

export const passwordField = z
  .string({ error: MSG.required })
  .min(1, { error: MSG.required })
  .min(3, { error: MSG.passwordMin })
  .max(200, { error: MSG.tooLong });

export const LANGUAGES = ['en', 'sv'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';
export const languageField = z.enum(LANGUAGES);

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export const COUNTRIES = ['gb', 'se'] as const;

/** Field path → message key, from a zod error; what forms and the tRPC error formatter share. */
export function fieldErrorsOf(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join('.') || '_form';
    if (!(key in out)) out[key] = issue.message;
  }
  return out;
}
