import { z } from 'zod';
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

/** The shell's view of the signed-in user (the server's `session.me`; kept per token in its profile cache). */
export type SessionUser = Pick<Profile, 'id' | 'email' | 'first_name' | 'last_name' | 'profile_image' | 'language'>;

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
