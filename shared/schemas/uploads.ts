import { z } from 'zod';
// Types only: auth.ts builds its profile schema from this module, so a value import would be a cycle.
import type { UploadKind } from './auth.ts';

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
