import type { FastifyInstance } from 'fastify';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ok } from '../lib/api-error.ts';
import { verifyChain } from '../lib/audit.ts';
import { requireAuth } from '../lib/auth.ts';

/** GET audit/verify/ (Admin): the change history's chain walked end to end (ADR 035), as `npm run audit:verify` does. */
export function registerAuditRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  app.get('/api/audit/verify/', { preHandler: requireAuth(config, ['Admin']) }, async (_req, reply) => ok(reply, await verifyChain(db, config.auditKey)));
}
