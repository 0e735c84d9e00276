import { z } from 'zod';
import { rolesOf, type AppPath } from '../route-table.ts';
import { hasAnyRole, type Role } from '../roles.ts';
import { UPLOAD_KINDS, type UploadKind } from '../upload-kinds.ts';

export { UPLOAD_KINDS, type UploadKind };

export const UPLOAD_CONTENT_TYPES = ['image/jpg', 'image/jpeg', 'image/png'] as const;

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

/** The shape of the object key the upload endpoint chooses: `<kind>/<uuid>.<jpg|png>`. */
const UPLOAD_KEY = /^[a-z_]+\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png)$/;

/**
 * The key of an access URL our upload endpoint issued (`<origin>/files/<key>`), or null for anything
 * else: another scheme (`javascript:`, `data:`), credentials, a query or fragment, another path, or (with
 * `kind`) another kind of upload. Which origin is ours only the API knows; it checks that too.
 */
export function uploadKeyOf(value: string, kind?: UploadKind): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.search || url.hash) return null;
  if (url.href !== value) return null;
  const match = /^\/files\/(.+)$/.exec(url.pathname);
  const key = match?.[1];
  if (!key || !UPLOAD_KEY.test(key)) return null;
  if (kind && !key.startsWith(`${kind}/`)) return null;
  return key;
}

/** A field holding an image uploaded through our upload endpoint, or nothing (issue 12 M6). */
export function uploadedImageField(kind: UploadKind) {
  return z
    .string({ error: 'validation.uploadedImage' })
    .max(2048, { error: 'validation.uploadedImage' })
    .refine((value) => uploadKeyOf(value, kind) !== null, { error: 'validation.uploadedImage' });
}
