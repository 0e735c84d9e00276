import type { FastifyReply, FastifyRequest } from 'fastify';
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
  }
  interface FastifyInstance {
    /** Whether a token's session still stands (upstream/lib/sessions.ts); decorated by buildUpstream. */
    checkSession(sessionId: string, userId: number, version: number): Promise<SessionCheck>;
  }
}

export const STAFF_ROLES = ['Admin', 'Buddy', 'Shop'];

/** Who may pass: any of these roles, or a rule over the token's roles. */
export type RoleRule = readonly string[] | ((roles: readonly string[]) => boolean);

function permits(rule: RoleRule | undefined, roles: readonly string[]): boolean {
  if (!rule) return true;
  return typeof rule === 'function' ? rule(roles) : rule.some((role) => roles.includes(role));
}

/**
 * Bearer JWT check, then the session check (one indexed lookup: not revoked, user active, roles
 * unchanged since issue); `rule` narrows to users holding at least one of the roles, or passing the rule.
 */
export function requireAuth(config: UpstreamConfig, rule?: RoleRule) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!token) throw new ApiError(401, 'unauthorized');
    const result = await verifyAccessToken(config.jwtSecret, token);
    if ('error' in result) throw new ApiError(401, result.error === 'expired' ? 'token_expired' : 'unauthorized');
    const { sub, scope, sid, sv } = result.claims;
    // A token from before sessions existed: a refresh (same family, now a session) replaces it.
    if (sid === undefined || sv === undefined) throw new ApiError(401, 'token_expired', OUTDATED);
    const state = await req.server.checkSession(sid, Number(sub), sv);
    if (state === 'ended') throw new ApiError(401, 'session_ended');
    if (state === 'stale') throw new ApiError(401, 'token_expired', OUTDATED);
    req.user = { id: Number(sub), roles: scope, sessionId: sid };
    if (!permits(rule, req.user.roles)) throw new ApiError(403, 'forbidden');
  };
}

const OUTDATED = 'The access token is out of date (the account changed): refresh it.';
