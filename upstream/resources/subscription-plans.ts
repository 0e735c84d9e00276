import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, ok } from '../lib/api-error.ts';
import { parseBody } from '../routes/validation.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';

/** Plans: the generic resource plus the public plan page's read. */
export const handlers: EntityHandlersFactory = ({ db }) => ({
  routes(app: FastifyInstance) {
    /** What /subscriptions/:plan/:language? shows, to anyone: active plans only, no internal fields. */
    app.get('/api/public/subscription-plans/:slug/', async (req, reply) => {
      const { slug } = parseBody(z.object({ slug: z.string().min(1).max(40) }), req.params);
      const { rows } = await db.query(
        `select slug, name_en, name_sv, description_en, description_sv, frequency, price_sek, price_gbp, bicycles
         from subscription_plans where lower(slug) = lower($1) and is_active`,
        [slug],
      );
      if (!rows[0]) throw new ApiError(404, 'not_found');
      const row = rows[0] as Record<string, unknown>;
      return ok(reply, { ...row, price_sek: Number(row.price_sek), price_gbp: Number(row.price_gbp), bicycles: Number(row.bicycles) });
    });
  },
});
