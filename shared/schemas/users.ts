import { z } from 'zod';
import { LANGUAGES } from '../languages.ts';
import { COUNTRIES, pageParams, storableText, versionField } from './common.ts';
import { emailField } from './credentials.ts';
import { MSG } from './messages.ts';
import { uploadedImageField } from './uploads.ts';

import { ACCOUNT_STATUSES, INVITATION_STATUSES, USER_TYPES } from '../entities/users.ts';

export { ACCOUNT_STATUSES, INVITATION_STATUSES, USER_TYPES };
export const USER_PAGE_SIZES = [10, 25, 50, 100] as const;
export const USER_ORDERINGS = ['id', 'first_name', 'last_name', 'email', 'member_since', 'invited_at'] as const;

export const userListInput = z.object({
  ...pageParams(USER_PAGE_SIZES, 25),
  search: storableText(200).optional(),
  ordering: z.enum([...USER_ORDERINGS, ...USER_ORDERINGS.map((o) => `-${o}` as const)]).optional(),
  role: storableText(50).optional(),
  // One of the §6 user types: anything else (2^31, say) is a field error, never a query that overflows.
  user_type: z.coerce
    .number({ error: 'validation.option' })
    .refine((n) => (USER_TYPES as readonly number[]).includes(n), { error: 'validation.option' })
    .optional(),
  account_status: z.enum(ACCOUNT_STATUSES).optional(),
  invitation_status: z.enum(INVITATION_STATUSES).optional(),
});
export type UserListInput = z.infer<typeof userListInput>;

const optionalText = (max: number) =>
  storableText(max)
    .nullish()
    .transform((v) => v || null);

/** What an Admin may change on a user (§3); e-mail, roles and statuses have their own flows. */
export const userUpdateFields = z.object({
  first_name: optionalText(80),
  last_name: optionalText(80),
  phone_number: optionalText(40),
  country: z
    .enum(COUNTRIES)
    .nullish()
    .transform((v) => v ?? null),
  language: z
    .enum(LANGUAGES)
    .nullish()
    .transform((v) => v ?? null),
  is_active: z.boolean({ error: 'validation.option' }),
  profile_image: uploadedImageField('user_profile_picture')
    .nullish()
    .transform((v) => v ?? null),
  user_type: z.union(USER_TYPES.map((t) => z.literal(t)) as [z.ZodLiteral<1>, z.ZodLiteral<2>, z.ZodLiteral<4>, z.ZodLiteral<5>], { error: 'validation.option' }),
  biography: optionalText(2000),
  social_security_number: optionalText(20),
  state: optionalText(80),
  area: optionalText(80),
  city: optionalText(80),
  post_code: optionalText(20),
});
/** The operational range is assigned and removed on its own, like roles (§2 user details). */
export const operationalRangeInput = z.object({
  operational_range_id: z.number({ error: 'validation.option' }).int({ error: 'validation.option' }).positive({ error: 'validation.option' }).nullable(),
});
export const userUpdateInput = userUpdateFields.extend({ version: versionField() });

export const inviteInput = z.object({
  email: emailField,
  first_name: storableText(80).optional(),
  last_name: storableText(80).optional(),
  roles: z.array(storableText(50)).max(10).optional(),
  user_type: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(5)], { error: 'validation.option' }).optional(),
  language: z.enum(LANGUAGES).optional(),
});

/** §5: one address or a comma-separated list; each is checked on its own. */
export function splitAddresses(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,;\s]+/)
        .map((a) => a.trim())
        .filter(Boolean),
    ),
  ];
}

export const bulkInviteInput = z.object({
  emails: storableText(20_000).refine((t) => splitAddresses(t).length > 0, { error: MSG.required }),
  roles: z.array(storableText(50)).max(10).optional(),
});

export interface BulkInviteResult {
  email: string;
  success: boolean;
  error?: { message: string; cause?: string; fields?: Record<string, string> };
}
