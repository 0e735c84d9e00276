import { z } from 'zod';
import type { EntityRecord } from '../../../shared/entity/define.ts';
import { subscriptionPlansEntity } from '../../../shared/entities/subscription-plans.ts';
import { subscriptionsEntity, type Currency } from '../../../shared/entities/subscriptions.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { createCrudProcedures, createReadProcedures } from '../crud-router.ts';
import { publicProcedure, roleProcedure, router } from '../init.ts';

export interface Refund {
  amount: number;
  amount_minor: number;
  currency: Currency;
  unused_days: number;
  period_days: number;
}

/** What activate and cancel answer: the subscription as it is now, the refund a cancel paid out, and whether anything changed. */
export interface SubscriptionActionResult {
  subscription: EntityRecord;
  refund: Refund | null;
  /** False when the subscription already was in the state asked for (the actions are idempotent, ADR 019). */
  changed: boolean;
}

/** A refund a subscription paid out, as listed under it (issue 13). */
export interface RefundRecord extends Refund {
  id: number;
  payment_id: number | null;
  created_at: string;
  created_by: number | null;
  created_by_label: string | null;
}

export interface PublicPlan {
  slug: string;
  name_en: string;
  name_sv: string;
  description_en: string | null;
  description_sv: string | null;
  frequency: string;
  price_sek: number;
  price_gbp: number;
  bicycles: number;
}

const actionProcedure = roleProcedure(...rolesOf(subscriptionsEntity.route));
const idInput = z.object({ id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

function expectAction(data: unknown): SubscriptionActionResult {
  const result = data as Partial<SubscriptionActionResult> | null;
  if (!result?.subscription || typeof result.subscription !== 'object') throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return { subscription: result.subscription, refund: result.refund ?? null, changed: result.changed !== false };
}

function expectRefunds(data: unknown): RefundRecord[] {
  const results = (data as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return results as RefundRecord[];
}

export const subscriptionPlansRouter = router({
  ...createCrudProcedures(subscriptionPlansEntity),
  /** The public plan page (/subscriptions/:plan/:language?): no sign-in, active plans only. */
  public: publicProcedure
    .input(z.object({ slug: z.string().trim().min(1).max(40).regex(/^[A-Za-z0-9-]+$/) }))
    .query(({ ctx, input }) => ctx.upstream.call<PublicPlan>({ method: 'GET', path: `public/subscription-plans/${encodeURIComponent(input.slug)}/`, lang: ctx.lang })),
});

export const subscriptionsRouter = router({
  ...createReadProcedures(subscriptionsEntity),
  activate: actionProcedure
    .input(idInput)
    .mutation(async ({ ctx, input }) => expectAction(await ctx.session.call({ method: 'POST', path: `subscriptions/${input.id}/activate/`, lang: ctx.lang }))),
  /** Ends it now (with a pro-rata refund of a paid period), or at the end of the period. */
  cancel: actionProcedure
    .input(idInput.extend({ at_period_end: z.boolean().optional() }))
    .mutation(async ({ ctx, input }) =>
      expectAction(await ctx.session.call({ method: 'POST', path: `subscriptions/${input.id}/cancel/`, body: { at_period_end: input.at_period_end ?? false }, lang: ctx.lang })),
    ),
  /** The refunds it paid out, newest first: date, amount in its currency, days, who cancelled. */
  refunds: actionProcedure
    .input(idInput)
    .query(async ({ ctx, input }) => expectRefunds(await ctx.session.call({ method: 'GET', path: `subscriptions/${input.id}/refunds/`, lang: ctx.lang }))),
});
