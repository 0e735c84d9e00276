import type { FastifyInstance } from 'fastify';
import { MSG } from '../../shared/schemas/messages.ts';
import { ApiError } from './api-error.ts';

/**
 * Input PostgreSQL cannot take, refused before any route sees it (issue 12 L2, ADR 020): a NUL character
 * (U+0000) anywhere in a query string, a path parameter or a JSON body — keys included — is a 400 on that
 * field. The shared schemas say the same per field; this covers every route, present and future.
 */
export function nulPath(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '_form' : null;
  if (depth > 32 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return null;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '')].join('.') || '_form';
    const found = nulPath(child, [...path, key], depth + 1);
    if (found !== null) return found;
  }
  return null;
}

export function refuseUnstorableInput(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    for (const part of [req.params, req.query, req.body]) {
      const field = nulPath(part);
      if (field !== null) throw new ApiError(400, 'validation_error', undefined, { [field]: MSG.nul });
    }
  });
}

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22: a number out of range, a date that does not exist,
 * a character it cannot store, text that is not a valid number…) are bad input that slipped past a schema,
 * not a server fault: a backstop answers them 400 instead of 500.
 */
export function isDataException(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}
