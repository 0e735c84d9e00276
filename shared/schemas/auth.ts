import { z } from 'zod';
import { rolesOf, type AppPath } from '../route-table.ts';
import { hasAnyRole, type Role } from '../roles.ts';
import { COUNTRIES, languageField, storableText } from './common.ts';
import { emailField } from './credentials.ts';
import { MSG } from './messages.ts';
import { uploadedImageField } from './uploads.ts';

export const googleLoginInput = z.object({ idToken: z.string().min(10).max(8192) });

/** Profile as the upstream returns it from GET account/ (spec §3 User). */
export const profileSchema = z.object({
  id: z.union([z.number(), z.string()]),
  email: z.string(),
  first_name: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
  phone_number: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  language: z.string().nullable().optional(),
  profile_image: z.string().nullable().optional(),
  biography: z.string().nullable().optional(),
  roles: z.array(z.string()).optional(),
  state: z.string().nullable().optional(),
  area: z.string().nullable().optional(),
  city: z.string().nullable().optional(),
  post_code: z.string().nullable().optional(),
  /** An address the user asked to change to and has not confirmed yet. */
  pending_email: z.string().nullable().optional(),
});
export type Profile = z.infer<typeof profileSchema>;

export const changeEmailInput = z.object({ email: emailField });

const optionalText = (max: number) => storableText(max).nullable().optional();

export const profileUpdateInput = z.object({
  first_name: storableText(80).pipe(z.string().min(1, { error: MSG.required })),
  last_name: storableText(80).pipe(z.string().min(1, { error: MSG.required })),
  phone_number: optionalText(40),
  country: z.enum(COUNTRIES).nullable().optional(),
  language: languageField.nullable().optional(),
  // Only a picture uploaded through our upload endpoint (issue 12 M6); `javascript:`, `data:` and other sites are refused.
  profile_image: uploadedImageField('user_profile_picture').nullable().optional(),
  biography: optionalText(2000),
  state: optionalText(80),
  area: optionalText(80),
  city: optionalText(80),
  post_code: optionalText(20),
});
export type ProfileUpdateInput = z.infer<typeof profileUpdateInput>;

export const UPLOAD_KINDS = [
  'company_logo',
  'user_profile_picture',
  'bicycle',
  'service_image',
  'service_detail_image',
  'event_logo',
] as const;
export const UPLOAD_CONTENT_TYPES = ['image/jpg', 'image/jpeg', 'image/png'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/**
 * The screen each upload kind serves. Only users who may open that screen get a signed address for it;
 * the back office and the reference API both check (security guide: uploads).
 */
export const UPLOAD_KIND_ROUTE = {
  company_logo: '/promo-codes/:id',
  user_profile_picture: '/profile',
  bicycle: '/bicycles/:id',
  service_image: '/services/:id',
  service_detail_image: '/services/:id',
  event_logo: '/events/:id',
} as const satisfies Record<UploadKind, AppPath>;

export function mayUpload(roles: readonly Role[], kind: UploadKind): boolean {
  return hasAnyRole(roles, rolesOf(UPLOAD_KIND_ROUTE[kind]));
}

export const uploadSignInput = z.object({
  kind: z.enum(UPLOAD_KINDS),
  contentType: z.enum(UPLOAD_CONTENT_TYPES),
});
export type UploadSignInput = z.infer<typeof uploadSignInput>;
