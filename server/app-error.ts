import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/**
 * A failure the client may act on: a tRPC error with the app's code, field errors and whether a retry can
 * help. Its own module, below `trpc/init.ts`, so that modules the tRPC context names (the sign-in limiter)
 * can throw it without importing the procedures (ADR 030: no import circles).
 */
export class AppError extends TRPCError {
  readonly appCode: string;
  readonly fieldErrors: Record<string, string> | undefined;
  readonly retryable: boolean;
  constructor(code: TRPC_ERROR_CODE_KEY, appCode: string, message: string, fieldErrors?: Record<string, string>, retryable = false) {
    super({ code, message });
    this.appCode = appCode;
    this.fieldErrors = fieldErrors;
    this.retryable = retryable;
  }
}
