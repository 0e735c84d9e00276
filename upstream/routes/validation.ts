import { z } from 'zod';
import { idField } from '../../shared/schemas/common.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { ApiError } from '../lib/api-error.ts';

/** Validates a body with a shared schema; field messages are the same i18n keys the back office uses. */
export function parseBody<S extends z.core.$ZodType>(schema: S, body: unknown): z.output<S> {
  const result = z.safeParse(schema, body ?? {});
  if (result.success) return result.data;
  const fields = fieldErrorsOf(result.error);
  if (fields.password_confirm === 'validation.passwordsDoNotMatch' && Object.keys(fields).length === 1) {
    throw new ApiError(400, 'passwords_do_not_match', 'Passwords do not match.', fields);
  }
  throw new ApiError(400, 'validation_error', undefined, fields);
}

/** A record's `:id` in a path: a positive integer JavaScript holds exactly (larger ids are a 400 with a field message, not a miss). */
export const idParam = z.object({ id: idField() });
