import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { FREQUENCY_MONTHS, subscriptionPlansEntity, type PlanFrequency } from '../../shared/entities/subscription-plans.ts';
import { CAN_ACTIVATE, CAN_CANCEL, subscriptionsEntity, type Currency, type SubscriptionStatus } from '../../shared/entities/subscriptions.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { proRataRefund, todayUtc } from '../lib/refund.ts';
import { parseBody } from '../routes/validation.ts';
import { registerEntityResource } from './entity-resource.ts';

const idParam = z.object({ id: z.coerce.number().int().positive().max(2 ** 53) });
const cancelInput = z.object({ at_period_end: z.boolean().optional().default(false) });

export interface RefundAnswer {
  amount: number;
  amount_minor: number;
  currency: Currency;
  unused_days: number;
  period_days: number;
}

interface Locked {
  status: SubscriptionStatus;
  cancel_at_period_end: boolean;
  amount_minor: number;
  currency: Currency;
  period_start: string;
  period_end: string;
  frequency: PlanFrequency;
  plan_price_minor: number;
}

const invalidState = (action: 'activate' | 'cancel', status: string) =>
  new ApiError(409, 'invalid_state', action === 'activate' ? `A ${status} subscription cannot be activated.` : `A ${status} subscription cannot be canceled.`);

/** Plans: the generic resource plus the public plan page's read. */
export function registerSubscriptionPlans(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  registerEntityResource(app, db, config, subscriptionPlansEntity);

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
}

/** Subscriptions: read-only lists plus the two actions, activate and cancel with the pro-rata refund of ADR 012. */
export function registerSubscriptions(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const { fetchOne, write } = registerEntityResource(app, db, config, subscriptionsEntity);

  /** The subscription row locked for an action, with amounts in minor units computed by PostgreSQL. */
  async function lock(tx: Db, id: number): Promise<Locked> {
    const { rows } = await tx.query<Record<string, unknown>>(
      `select s.status, s.cancel_at_period_end, (s.amount * 100)::bigint as amount_minor, s.currency,
              to_char(s.current_period_start, 'YYYY-MM-DD') as period_start, to_char(s.current_period_end, 'YYYY-MM-DD') as period_end,
              p.frequency, (case when s.currency = 'gbp' then p.price_gbp else p.price_sek end * 100)::bigint as plan_price_minor
         from subscriptions s join subscription_plans p on p.id = s.plan_id
        where s.id = $1 for update of s`,
      [id],
    );
    const row = rows[0];
    if (!row) throw new ApiError(404, 'not_found');
    return { ...(row as unknown as Locked), amount_minor: Number(row.amount_minor), plan_price_minor: Number(row.plan_price_minor) };
  }

  app.post('/api/subscriptions/:id/activate/', { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const today = todayUtc();
    await db.transaction(async (tx) => {
      const s = await lock(tx, id);
      const months = FREQUENCY_MONTHS[s.frequency];
      const newPeriod = `current_period_start = $2::date, current_period_end = ($2::date + make_interval(months => $3))::date`;
      let sets: string;
      let params: unknown[] = [id];
      if (s.status === 'active' && s.cancel_at_period_end) sets = 'cancel_at_period_end = false';
      else if (!CAN_ACTIVATE.includes(s.status)) throw invalidState('activate', s.status);
      else if (s.status === 'past_due') sets = `status = 'active'`;
      else if (s.status === 'canceled') {
        // Coming back starts a new period at the plan's current price (a promo applied once).
        sets = `status = 'active', cancel_at_period_end = false, canceled_at = null, amount = $4::numeric / 100, ${newPeriod}`;
        params = [id, today, months, s.plan_price_minor];
      } else {
        // incomplete or trialing: the first paid period starts today.
        sets = `status = 'active', cancel_at_period_end = false, ${newPeriod}`;
        params = [id, today, months];
      }
      await tx.query(`update subscriptions set ${sets}, version = version + 1, updated_at = now() where id = $1`, params);
    });
    return ok(reply, { subscription: await fetchOne(id), refund: null });
  });

  app.post('/api/subscriptions/:id/cancel/', { preHandler: write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { at_period_end } = parseBody(cancelInput, req.body ?? {});
    const today = todayUtc();
    const refund = await db.transaction(async (tx): Promise<RefundAnswer | null> => {
      const s = await lock(tx, id);
      if (at_period_end) {
        if (s.status !== 'active' && s.status !== 'trialing') throw invalidState('cancel', s.status);
        await tx.query('update subscriptions set cancel_at_period_end = true, version = version + 1, updated_at = now() where id = $1', [id]);
        return null;
      }
      if (!CAN_CANCEL.includes(s.status)) throw invalidState('cancel', s.status);
      await tx.query(
        `update subscriptions set status = 'canceled', cancel_at_period_end = false, canceled_at = now(), version = version + 1, updated_at = now() where id = $1`,
        [id],
      );
      // Only an active subscription has paid for the period it is in (trials and past-due periods have not).
      if (s.status !== 'active') return null;
      const computed = proRataRefund({ amountMinor: s.amount_minor, periodStart: s.period_start, periodEnd: s.period_end, today });
      if (!computed) return null;
      await tx.query(
        'insert into subscription_refunds (subscription_id, amount_minor, currency, unused_days, period_days, created_by) values ($1, $2, $3, $4, $5, $6)',
        [id, computed.amountMinor, s.currency, computed.unusedDays, computed.periodDays, req.user!.id],
      );
      return { amount: computed.amountMinor / 100, amount_minor: computed.amountMinor, currency: s.currency, unused_days: computed.unusedDays, period_days: computed.periodDays };
    });
    return ok(reply, { subscription: await fetchOne(id), refund });
  });
}
