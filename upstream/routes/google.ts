import type { FastifyInstance } from 'fastify';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { completeFirstFactor, type IssuePair } from './account.ts';
import { parseBody } from './validation.ts';

/** Social login: a Google ID token, verified against Google's (configurable) JWKS, for an existing active user. */
export function registerGoogleRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair) {
  const jwks = createRemoteJWKSet(new URL(config.googleJwksUrl));
  app.post('/api/auth/google', async (req, reply) => {
    if (!config.googleClientId) throw new ApiError(404, 'not_found', 'Google sign-in is not configured.');
    const { id_token } = parseBody(z.object({ id_token: z.string().min(10).max(8192) }), req.body);
    let email: string;
    try {
      const { payload } = await jwtVerify(id_token, jwks, { audience: config.googleClientId, issuer: ['accounts.google.com', 'https://accounts.google.com'] });
      if (payload.email_verified !== true || typeof payload.email !== 'string') throw new Error('e-mail not verified');
      email = payload.email;
    } catch (error) {
      req.log.warn({ err: error }, 'google token rejected');
      throw new ApiError(400, 'invalid_google_token');
    }
    // A canceled invitation must not become a way in through Google (ADR 018).
    const { rows } = await db.query<{ id: number; is_active: boolean; invitation_status: string }>(
      'select id, is_active, invitation_status from users where lower(email) = lower($1)',
      [email],
    );
    if (!rows[0] || !rows[0].is_active || rows[0].invitation_status === 'canceled') throw new ApiError(400, 'user_does_not_exist');
    return ok(reply, await completeFirstFactor(db, config, req, issuePair, Number(rows[0].id), 'google'));
  });
}
