import { z } from 'zod';
import { LANGUAGES } from '../languages.ts';
import { MSG } from './messages.ts';

const withoutNul = (value: string) => !value.includes('\u0000');

/** Text as the API stores it: trimmed, at most `max` characters, no NUL character. */
export const storableText = (max: number) => z.string({ error: MSG.required }).trim().max(max, { error: MSG.tooLong }).refine(withoutNul, { error: MSG.nul });

/** A database id: positive and within what JavaScript numbers and bigint columns both hold exactly. */
export const idField = () =>
  z.coerce
    .number({ error: 'validation.number' })
    .int({ error: 'validation.integer' })
    .positive({ error: 'validation.option' })
    .max(Number.MAX_SAFE_INTEGER, { error: 'validation.option' });

/** A record version (an `integer` column). */
export const versionField = () =>
  z.coerce
    .number({ error: 'validation.number' })
    .int({ error: 'validation.integer' })
    .positive({ error: 'validation.min:1' })
    .max(2_147_483_647, { error: 'validation.max:2147483647' });

export const languageField = z.enum(LANGUAGES);

export const COUNTRIES = ['gb', 'se'] as const;

/** A list's page and page size (one of `sizes`, `fallback` when absent), as lists and paged sub-resources accept them. */
export function pageParams(sizes: readonly number[], fallback: number) {
  return {
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    page_size: z.coerce
      .number()
      .int()
      .refine((n) => sizes.includes(n), { error: 'validation.pageSize' })
      .default(fallback),
  };
}
