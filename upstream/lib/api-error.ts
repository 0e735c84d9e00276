import type { FastifyReply } from 'fastify';
import { ERROR_TEXT, type ErrorCode } from '../../shared/errors.ts';

/** An error the API answers in the envelope: `{success: false, data: null, error: {message, cause, fields}}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string> | undefined;
  constructor(status: number, code: ErrorCode | string, cause?: string, fields?: Record<string, string>) {
    super(cause ?? (ERROR_TEXT as Record<string, string>)[code] ?? code);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export function ok<T>(reply: FastifyReply, data: T, status = 200) {
  return reply.code(status).send({ success: true, data, error: null });
}

/** The envelope of a refusal. */
export function failBody(code: string, cause: string, fields?: Record<string, string>) {
  return { success: false as const, data: null, error: { message: code, cause, ...(fields ? { fields } : {}) } };
}

export function fail(reply: FastifyReply, status: number, code: string, cause: string, fields?: Record<string, string>) {
  return reply.code(status).send(failBody(code, cause, fields));
}
