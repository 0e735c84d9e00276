import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamConfig } from '../config.ts';
import { ApiError } from './api-error.ts';
import { verifyAccessToken } from './jwt.ts';

export interface AuthUser {
  id: number;
  roles: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    user?: AuthUser;
  }
}

export const STAFF_ROLES = ['Admin', 'Buddy', 'Shop'];

/** Bearer JWT check; `roles` narrows to users holding at least one of them. */
export function requireAuth(config: UpstreamConfig, roles?: readonly string[]) {
  return async (req: FastifyRequest, _reply: FastifyReply) => {
    const header = req.headers.authorization ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1];
    if (!token) throw new ApiError(401, 'unauthorized');
    const result = await verifyAccessToken(config.jwtSecret, token);
    if ('error' in result) throw new ApiError(401, result.error === 'expired' ? 'token_expired' : 'unauthorized');
    req.user = { id: Number(result.claims.sub), roles: result.claims.scope };
    if (roles && !roles.some((role) => req.user!.roles.includes(role))) throw new ApiError(403, 'forbidden');
  };
}
