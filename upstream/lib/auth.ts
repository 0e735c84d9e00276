import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamConfig } from '../config.ts';
import { ApiError } from './api-error.ts';
import { verifyAccessToken } from './jwt.ts';
import type { SessionCheck } from './sessions.ts';

export interface AuthUser {
  id: number;
  roles: string[];
  /** The sign-in session the token belongs to (ADR 017). */
  sessionId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: AuthUser;
    /**
     * A read's session check still under way (`requireAuth(…, { overlap: true })`): what it refuses with, or
     * null once the session stands. The session gate (`registerSessionGate`) waits for it before any answer.
     */
    sessionPending?: Promise<Error | null>;
    /** The answer's headers when the overlapped handler started: what a refusal is sent with (the handler's own are dropped). */
    headersBeforeHandler?: ReturnType<FastifyReply['getHeaders']>;
  }
  interface FastifyInstance {
    /** Whether a token's session still stands (upstream/lib/sessions.ts); decorated by buildUpstream. */
    checkSession(sessionId: string, userId: number, version: number): Promise<SessionCheck>;
    /** The session gate is installed (`registerSessionGate`): a read may overlap its session check. */
    sessionGate?: true;
  }
}

export const STAFF_ROLES = ['Admin', 'Buddy', 'Shop'];

/** Who may pass: any of these roles, or a rule over the token's roles. */
export type RoleRule = readonly string[] | ((roles: readonly string[]) => boolean);

function permits(rule: RoleRule | undefined, roles: readonly string[]): boolean {
  if (!rule) return true;
  return typeof rule === 'function' ? rule(roles) : rule.some((role) => roles.includes(role));
}

/** What a session's state refuses with, or null when it stands. */
function refusalOf(state: SessionCheck): ApiError | null {
  if (state === 'ended') return new ApiError(401, 'session_ended');
  if (state === 'stale') return new ApiError(401, 'token_expired', OUTDATED);
  return null;
}

export interface AuthOptions {
  /**
   * A read whose handler only reads (no write, no side effect before its answer) may run its statements while
   * the session check is still under way (ADR 052): the check's round trip then overlaps the handler's first
   * statement instead of coming before it. The answer still waits for the check (the session gate, installed
   * by `registerSessionGate`): a revoked session gets its 401 and nothing else, whatever the handler found.
   * Writes never overlap: they start only after the check passed. The handler must answer through
   * `reply.send` (no `reply.hijack()`, no writing to `reply.raw`), which is where the gate waits.
   */
  overlap?: boolean;
}

/**
 * Bearer JWT check, then the session check (one indexed lookup: not revoked, user active, roles
 * unchanged since issue); `rule` narrows to users holding at least one of the roles, or passing the rule.
 */
export function requireAuth(config: UpstreamConfig, rule?: RoleRule, options: AuthOptions = {}) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!token) throw new ApiError(401, 'unauthorized');
    const result = await verifyAccessToken(config.jwtSecret, token);
    if ('error' in result) throw new ApiError(401, result.error === 'expired' ? 'token_expired' : 'unauthorized');
    const { sub, scope, sid, sv, enrol } = result.claims;
    // A token from before sessions existed: a refresh (same family, now a session) replaces it.
    if (sid === undefined || sv === undefined) throw new ApiError(401, 'token_expired', OUTDATED);
    if (options.overlap && req.server.sessionGate) {
      overlapSessionCheck(req, reply, req.server.checkSession(sid, Number(sub), sv));
    } else {
      const refused = refusalOf(await req.server.checkSession(sid, Number(sub), sv));
      if (refused) throw refused;
    }
    // The token's roles are signed: the role rule needs no database (a refused role waits for the gate too).
    req.user = { id: Number(sub), roles: scope, sessionId: sid };
    // A sign-in the policy sends to enrol a second factor reaches only the account's own routes (ADR 068).
    if (enrol && !req.url.startsWith('/api/account/')) throw new ApiError(403, 'second_factor_enrolment_required');
    if (!permits(rule, req.user.roles)) throw new ApiError(403, 'forbidden');
  };
}

/** Lets the handler run while `check` is under way; the session gate waits for it before the answer leaves. */
export function overlapSessionCheck(req: FastifyRequest, reply: FastifyReply, check: Promise<SessionCheck>): void {
  // Never rejects (a failed check is its error), so nothing is left unhandled if the answer comes first.
  req.sessionPending = check.then(refusalOf, (error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  req.headersBeforeHandler = { ...reply.getHeaders() };
}

/**
 * The session gate (ADR 052): every answer of a request whose session check overlapped its handler waits for
 * that check, and a session that does not stand replaces the answer — rows, a validation error, a 403, a 500
 * alike — with its refusal (`answer`, the API's error handler's envelope), sent with the headers the answer had
 * before the handler ran. Nothing of the handler's answer is sent before: onSend runs before the status line
 * and headers are written. Only answers sent through `reply.send` pass here: an overlapped handler must not
 * hijack the reply or write to the socket itself.
 */
export function registerSessionGate(app: FastifyInstance, answer: (error: Error, req: FastifyRequest, reply: FastifyReply) => { status: number; body: unknown }) {
  app.decorate('sessionGate', true as const);
  app.addHook('onSend', async (req, reply, payload) => {
    const pending = req.sessionPending;
    if (!pending) return payload;
    req.sessionPending = undefined;
    const refused = await pending;
    if (!refused) return payload;
    // A stream answer (none overlaps today) is dropped unread.
    if (payload && typeof (payload as { destroy?: unknown }).destroy === 'function') (payload as { destroy: () => void }).destroy();
    // The refusal goes out as if the check had refused before the handler ran: none of the handler's headers.
    const before = req.headersBeforeHandler ?? {};
    for (const name of Object.keys(reply.getHeaders())) if (!(name in before)) reply.removeHeader(name);
    reply.headers(before);
    const { status, body } = answer(refused, req, reply);
    void reply.code(status).header('content-type', 'application/json; charset=utf-8').removeHeader('content-length');
    return JSON.stringify(body);
  });
}

const OUTDATED = 'The access token is out of date (the account changed): refresh it.';
