import { z } from 'zod';
import type { PublicPlan } from '../../../shared/schemas/subscriptions.ts';
import { publicProcedure } from '../init.ts';

/** Beside the derived subscription-plans procedures. */
export const extraProcedures = {
  /** The public plan page (/subscriptions/:plan/:language?): no sign-in, active plans only. */
  public: publicProcedure
    .input(
      z.object({
        slug: z
          .string()
          .trim()
          .min(1)
          .max(40)
          .regex(/^[A-Za-z0-9-]+$/),
      }),
    )
    .query(({ ctx, input }) => ctx.upstream.call<PublicPlan>({ method: 'GET', path: `public/subscription-plans/${encodeURIComponent(input.slug)}/`, lang: ctx.lang })),
};
