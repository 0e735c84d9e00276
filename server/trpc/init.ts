import { initTRPC } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { z } from 'zod';
import { ERROR_TEXT } from '../../shared/errors.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { hasAnyRole, type Role } from '../../shared/roles.ts';
import { SessionExpiredError } from '../session/request-session.ts';
import { UpstreamError } from '../upstream/client.ts';
import { AppError } from '../app-error.ts';
import type { Context } from './context.ts';

/** What the client gets in `error.data` besides tRPC's own fields. */
interface AppErrorData {
  /** Upstream or app error code, e.g. `user_exists`, `session_expired`. */
  appCode: string | null;
  /** Field path → message (an i18n key from shared schemas, or upstream text). */
  fieldErrors: Record<string, string> | null;
  retryable: boolean;
}

const STATUS_TO_CODE: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  499: 'CLIENT_CLOSED_REQUEST',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

function toAppError(cause: unknown): AppError | null {
  if (cause instanceof AppError) return cause;
  if (cause instanceof SessionExpiredError) return new AppError('UNAUTHORIZED', 'session_expired', cause.message);
  if (cause instanceof UpstreamError) {
    // A 401 that survived the refresh means the upstream refused our fresh token: the session is gone.
    const code = STATUS_TO_CODE[cause.status] ?? (cause.status >= 500 ? 'BAD_GATEWAY' : 'BAD_REQUEST');
    return new AppError(code, cause.code, cause.message, cause.fields, cause.retryable);
  }
  return null;
}

const t = initTRPC.context<Context>().create({
  isDev: process.env.NODE_ENV === 'development',
  errorFormatter({ shape, error }) {
    const app = toAppError(error) ?? toAppError(error.cause);
    // Classic and zod/mini schemas (the sign-in forms, shared/schemas/credentials.ts) both throw a $ZodError.
    const zodCause = error.cause instanceof z.core.$ZodError ? error.cause : null;
    const data: AppErrorData & typeof shape.data = {
      ...shape.data,
      stack: undefined,
      appCode: app?.appCode ?? (zodCause ? 'validation_error' : null),
      fieldErrors: app?.fieldErrors ?? (zodCause ? fieldErrorsOf(zodCause) : null),
      retryable: app?.retryable ?? false,
    };
    const internal = error.code === 'INTERNAL_SERVER_ERROR' && !app;
    return {
      ...shape,
      message: internal ? ERROR_TEXT.internal_error : zodCause ? ERROR_TEXT.validation_error : shape.message,
      data,
    };
  },
});

export const router = t.router;

/** Turns upstream and session failures into typed tRPC errors with the right HTTP status. */
const mapErrors = t.middleware(async ({ next, ctx, path }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = toAppError(result.error.cause) ?? toAppError(result.error);
    if (mapped) {
      if (mapped.appCode === 'session_expired') ctx.session.clear();
      throw mapped;
    }
    if (result.error.code === 'INTERNAL_SERVER_ERROR') ctx.log.error({ err: result.error.cause ?? result.error, path }, 'procedure failed');
  }
  return result;
});

export const publicProcedure = t.procedure.use(mapErrors);

export const authedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session.isAuthenticated()) throw new AppError('UNAUTHORIZED', 'session_expired', 'Please sign in.');
  return next();
});

/**
 * Role-checked procedure. Pass the roles of the §2 route the procedure serves
 * (`roleProcedure(...rolesOf('/users'))`) so server checks, guards and sidebar cannot drift.
 */
export function roleProcedure(...roles: readonly Role[]) {
  return authedProcedure.use(async ({ ctx, next }) => {
    await requireRoles(ctx, (userRoles) => hasAnyRole(userRoles, roles));
    return next();
  });
}

/** For checks that depend on the input (an upload's kind): refuses unless `allowed` says yes. */
export async function requireRoles(ctx: Context, allowed: (roles: readonly Role[]) => boolean): Promise<void> {
  await ctx.session.ensureFresh();
  const info = ctx.session.info();
  if (!info || !allowed(info.roles)) throw new AppError('FORBIDDEN', 'forbidden', ERROR_TEXT.forbidden);
}
