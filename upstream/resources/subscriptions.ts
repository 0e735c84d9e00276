import { z } from 'zod';
import { FREQUENCY_MONTHS, type PlanFrequency } from '../../shared/entities/subscription-plans.ts';
import { CAN_ACTIVATE, CAN_CANCEL, type Currency, type SubscriptionStatus } from '../../shared/entities/subscriptions.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { proRataRefund, todayUtc, type Refund } from '../lib/refund.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import type { EntityHandlersFactory, EntityRouteHandler } from './entity-resource.ts';

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

/** A refund as the back office lists it under its subscription (issue 13). */
export interface RefundRecord extends RefundAnswer {
  id: number;
  payment_id: number | null;
  created_at: string;
  created_by: number | null;
  created_by_label: string | null;
}

/**
 * What a cancellation today gives back of the payment for the subscription's current period: its pro-rata
 * share minus what was already refunded of that payment (ADR 019). Nothing when the period was not paid.
 */
async function refundDue(tx: Db, id: number, s: Locked, today: string): Promise<{ paymentId: number; currency: Currency; computed: Refund } | null> {
  const { rows } = await tx.query<{ id: number; amount_minor: number; currency: Currency; refunded: number }>(
    `select p.id, p.amount_minor, p.currency,
            coalesce((select sum(r.amount_minor) from subscription_refunds r where r.payment_id = p.id), 0) as refunded
       from subscription_payments p
      where p.subscription_id = $1 and p.period_start = $2::date and p.period_end = $3::date`,
    [id, s.period_start, s.period_end],
  );
  const payment = rows[0];
  if (!payment) return null;
  const paid = Number(payment.amount_minor);
  const refunded = Number(payment.refunded);
  const share = proRataRefund({ amountMinor: paid, periodStart: s.period_start, periodEnd: s.period_end, today });
  if (!share) return null;
  const amountMinor = Math.min(share.amountMinor - refunded, paid - refunded);
  return amountMinor > 0 ? { paymentId: Number(payment.id), currency: payment.currency, computed: { ...share, amountMinor } } : null;
}

/** The subscription row locked for an action, with amounts in minor units computed by PostgreSQL. */
async function lockSubscription(tx: Db, id: number): Promise<Locked> {
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

// Activate and cancel are idempotent: asking for the state a subscription is already in changes nothing
// and answers it as it is (`changed: false`), so a double click or a retried request never refunds twice.
function activateAction(db: Db): EntityRouteHandler {
  return async (req, reply, { fetchOne }) => {
    const { id } = parseBody(idParam, req.params);
    const today = todayUtc();
    const changed = await db.transaction(async (tx) => {
      const s = await lockSubscription(tx, id);
      const months = FREQUENCY_MONTHS[s.frequency];
      const newPeriod = `current_period_start = $2::date, current_period_end = ($2::date + make_interval(months => $3))::date`;
      let sets: string;
      let params: unknown[] = [id];
      if (s.status === 'active' && !s.cancel_at_period_end) return false;
      if (s.status === 'active') sets = 'cancel_at_period_end = false';
      else if (!CAN_ACTIVATE.includes(s.status)) throw invalidState('activate', s.status);
      else if (s.status === 'past_due') sets = `status = 'active'`;
      else if (s.status === 'canceled') {
        // Coming back starts a new period at the plan's current price (a promo applied once). Not a
        // payment: until the provider records one, cancelling this period refunds nothing.
        sets = `status = 'active', cancel_at_period_end = false, canceled_at = null, amount = $4::numeric / 100, ${newPeriod}`;
        params = [id, today, months, s.plan_price_minor];
      } else {
        // incomplete or trialing: the first period starts today (paid when the provider says so).
        sets = `status = 'active', cancel_at_period_end = false, ${newPeriod}`;
        params = [id, today, months];
      }
      await tx.query(`update subscriptions set ${sets}, version = version + 1, updated_at = now() where id = $1`, params);
      return true;
    });
    return ok(reply, { subscription: await fetchOne(id), refund: null, changed });
  };
}

function cancelAction(db: Db): EntityRouteHandler {
  return async (req, reply, { fetchOne }) => {
    const { id } = parseBody(idParam, req.params);
    const { at_period_end } = parseBody(cancelInput, req.body ?? {});
    const today = todayUtc();
    const { refund, changed } = await db.transaction(async (tx): Promise<{ refund: RefundAnswer | null; changed: boolean }> => {
      // The row lock makes concurrent cancels queue: the second finds it canceled and refunds nothing.
      const s = await lockSubscription(tx, id);
      if (s.status === 'canceled') return { refund: null, changed: false };
      if (at_period_end) {
        if (s.status !== 'active' && s.status !== 'trialing') throw invalidState('cancel', s.status);
        if (s.cancel_at_period_end) return { refund: null, changed: false };
        await tx.query('update subscriptions set cancel_at_period_end = true, version = version + 1, updated_at = now() where id = $1', [id]);
        return { refund: null, changed: true };
      }
      if (!CAN_CANCEL.includes(s.status)) throw invalidState('cancel', s.status);
      await tx.query(`update subscriptions set status = 'canceled', cancel_at_period_end = false, canceled_at = now(), version = version + 1, updated_at = now() where id = $1`, [
        id,
      ]);
      // Only money that was paid goes back: the payment for this very period, less what it already gave back.
      const due = await refundDue(tx, id, s, today);
      if (!due) return { refund: null, changed: true };
      const { computed, currency, paymentId } = due;
      await tx.query(
        'insert into subscription_refunds (subscription_id, payment_id, amount_minor, currency, unused_days, period_days, created_by) values ($1, $2, $3, $4, $5, $6, $7)',
        [id, paymentId, computed.amountMinor, currency, computed.unusedDays, computed.periodDays, req.user!.id],
      );
      return {
        refund: { amount: computed.amountMinor / 100, amount_minor: computed.amountMinor, currency, unused_days: computed.unusedDays, period_days: computed.periodDays },
        changed: true,
      };
    });
    return ok(reply, { subscription: await fetchOne(id), refund, changed });
  };
}

/** The refunds a subscription has paid out, newest first, with who cancelled (issue 13). */
function listRefunds(db: Db): EntityRouteHandler {
  return async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { rows: exists } = await db.query('select 1 from subscriptions where id = $1', [id]);
    if (!exists[0]) throw new ApiError(404, 'not_found');
    const { rows } = await db.query<Record<string, unknown>>(
      `select r.id, r.payment_id, r.amount_minor, r.currency, r.unused_days, r.period_days, r.created_at, r.created_by,
              nullif(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')), '') as created_by_name, u.email as created_by_email
         from subscription_refunds r left join users u on u.id = r.created_by
        where r.subscription_id = $1
        order by r.created_at desc, r.id desc
        limit 200`,
      [id],
    );
    const results: RefundRecord[] = rows.map((r) => ({
      id: Number(r.id),
      payment_id: r.payment_id === null ? null : Number(r.payment_id),
      amount: Number(r.amount_minor) / 100,
      amount_minor: Number(r.amount_minor),
      currency: r.currency as Currency,
      unused_days: Number(r.unused_days),
      period_days: Number(r.period_days),
      created_at: new Date(r.created_at as string).toISOString(),
      created_by: r.created_by === null ? null : Number(r.created_by),
      created_by_label: (r.created_by_name as string | null) ?? (r.created_by_email as string | null) ?? null,
    }));
    return ok(reply, { results });
  };
}

/** Subscriptions: read-only lists plus the two actions, activate and cancel with the pro-rata refund of ADR 012 and 019. */
export const handlers: EntityHandlersFactory = ({ db }) => ({
  actions: { activate: activateAction(db), cancel: cancelAction(db) },
  subResources: { refunds: { list: listRefunds(db) } },
});
