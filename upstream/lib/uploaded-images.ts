import type { UploadKind } from '../../shared/schemas/uploads.ts';
import { uploadKeyOf } from '../../shared/schemas/uploads.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError } from './api-error.ts';

export interface UploadedImageRule {
  field: string;
  kind: UploadKind;
  /** The value stored now: sending it back unchanged is always accepted (a record is never blocked by what it holds). */
  current: unknown;
  /** Whose uploads may be used; unset: anyone's (catalogue images written by admins). */
  uploadedBy?: readonly number[];
}

/**
 * An image field takes only a file our upload endpoint stored (issue 12 M6, ADR 020): the access URL of a
 * finished upload of the field's kind, on this API's public origin, and for a profile picture one the
 * person or the admin editing them uploaded. Anything else is a 400 on the field.
 */
export async function checkUploadedImage(db: Db, config: UpstreamConfig, value: unknown, rule: UploadedImageRule): Promise<void> {
  if (value === null || value === undefined || value === '' || value === rule.current) return;
  const refuse = () => new ApiError(400, 'validation_error', undefined, { [rule.field]: 'validation.uploadedImage' });
  if (typeof value !== 'string') throw refuse();
  const key = uploadKeyOf(value, rule.kind);
  if (!key || new URL(value).origin !== new URL(config.publicOrigin).origin) throw refuse();
  const { rows } = await db.query(
    `select 1 from uploads where key = $1 and kind = $2 and uploaded_at is not null${rule.uploadedBy ? ' and created_by = any($3::bigint[])' : ''}`,
    rule.uploadedBy ? [key, rule.kind, rule.uploadedBy] : [key, rule.kind],
  );
  if (!rows[0]) throw refuse();
}
