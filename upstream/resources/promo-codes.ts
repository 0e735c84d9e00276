import { ApiError, ok } from '../lib/api-error.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';

/** Promo codes: who used a code, newest first. */
export const handlers: EntityHandlersFactory = ({ db }) => ({
  subResources: {
    users: {
      async list(req, reply) {
        const { id } = parseBody(idParam, req.params);
        if (!Number.isInteger(id) || id <= 0) throw new ApiError(404, 'not_found');
        const { rows } = await db.query<{ user_id: number; email: string; first_name: string | null; last_name: string | null; used_at: Date }>(
          `select u.id as user_id, u.email, u.first_name, u.last_name, p.used_at
             from promo_code_uses p join users u on u.id = p.user_id where p.promo_code_id = $1 order by p.used_at desc limit 500`,
          [id],
        );
        return ok(
          reply,
          rows.map((r) => ({ ...r, user_id: Number(r.user_id), used_at: new Date(r.used_at).toISOString() })),
        );
      },
    },
  },
});
