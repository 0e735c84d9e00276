import { z } from 'zod';
import { FREQUENCY_MONTHS, type PlanFrequency } from '../../shared/entities/subscription-plans.ts';
import { CAN_ACTIVATE, CAN_CANCEL, type Currency, type SubscriptionStatus } from '../../shared/entities/subscriptions.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { addMonths, proRataRefund, todayUtc, type Refund } from '../lib/refund.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { actionVersionOf, type EntityHandlersFactory, type EntityRouteHandler } from './entity-actions.ts';

const cancelInput = z.object({ at_period_end: z.boolean().optional().default(false) });

export interface RefundAnswer {
  amount: number;
  amount_minor: number;
  currency: Currency;
  unused_days: number;
  period_days: number;
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
async function refundDue(tx: Db, s: EntityRecord, today: string): Promise<{ paymentId: number; currency: Currency; computed: Refund } | null> {
  const [start, end] = [String(s.current_period_start), String(s.current_period_end)];
  const { rows } = await tx.query<{ id: number; amount_minor: number; currency: Currency; refunded: number }>(
    `select p.id, p.amount_minor, p.currency,
            coalesce((select sum(r.amount_minor) from subscription_refunds r where r.payment_id = p.id), 0) as refunded
       from subscription_payments p
      where p.subscription_id = $1 and p.period_start = $2::date and p.period_end = $3::date`,
    [s.id, start, end],
  );
  const payment = rows[0];
  if (!payment) return null;
  const paid = Number(payment.amount_minor);
  const refunded = Number(payment.refunded);
  const share = proRataRefund({ amountMinor: paid, periodStart: start, periodEnd: end, today });
  if (!share) return null;
  const amountMinor = Math.min(share.amountMinor - refunded, paid - refunded);
  return amountMinor > 0 ? { paymentId: Number(payment.id), currency: payment.currency, computed: { ...share, amountMinor } } : null;
}

/** The plan's current price in the subscription's currency, in minor units (PostgreSQL computes it). */
async function planPriceMinor(tx: Db, s: EntityRecord): Promise<number> {
  const { rows } = await tx.query<{ minor: number }>(
    `select (case when $2 = 'gbp' then p.price_gbp else p.price_sek end * 100)::bigint as minor from subscription_plans p where p.id = $1`,
    [s.plan_id, s.currency],
  );
  return Number(rows[0]!.minor);
}

/**
 * What activating changes, or null when the subscription already is what was asked (`changed: false`). Coming
 * back from canceled starts a new period at the plan's current price (a promo applied once) — not a payment:
 * until the provider records one, cancelling this period refunds nothing. Incomplete or trialing: the first
 * period starts today (paid when the provider says so).
 */
async function activation(tx: Db, s: EntityRecord, today: string): Promise<Record<string, unknown> | null> {
  const status = s.status as SubscriptionStatus;
  const newPeriod = { current_period_start: today, current_period_end: addMonths(today, FREQUENCY_MONTHS[s.frequency as PlanFrequency]) };
  if (status === 'active') return s.cancel_at_period_end ? { cancel_at_period_end: false } : null;
  if (!CAN_ACTIVATE.includes(status)) throw invalidState('activate', status);
  if (status === 'past_due') return { status: 'active' };
  if (status === 'canceled') return { status: 'active', cancel_at_period_end: false, canceled_at: null, amount: (await planPriceMinor(tx, s)) / 100, ...newPeriod };
  return { status: 'active', cancel_at_period_end: false, ...newPeriod };
}

/** What cancelling changes (now, or at the period's end), or null when it is already so. */
function cancellation(s: EntityRecord, atPeriodEnd: boolean): Record<string, unknown> | null {
  const status = s.status as SubscriptionStatus;
  if (status === 'canceled') return null;
  if (atPeriodEnd) {
    if (status !== 'active' && status !== 'trialing') throw invalidState('cancel', status);
    return s.cancel_at_period_end ? null : { cancel_at_period_end: true };
  }
  if (!CAN_CANCEL.includes(status)) throw invalidState('cancel', status);
  return { status: 'canceled', cancel_at_period_end: false, canceled_at: new Date().toISOString() };
}

// Activate and cancel are idempotent: asking for the state a subscription is already in changes nothing
// and answers it as it is (`changed: false`), so a double click or a retried request never refunds twice.
// Both change the record through the one write path (ADR 069): the row locked, the version checked and stepped.
const activateAction: EntityRouteHandler = async (req, reply, r) => {
  const { id } = parseBody(idParam, req.params);
  const today = todayUtc();
  let changed = false;
  await r.change(req, {
    id,
    version: actionVersionOf(req),
    computed: async (current, tx) => {
      const values = await activation(tx, current, today);
      changed = values !== null;
      return values;
    },
  });
  return ok(reply, { subscription: await r.fetchOne(id), refund: null, changed });
};

const cancelAction: EntityRouteHandler = async (req, reply, r) => {
  const { id } = parseBody(idParam, req.params);
  const { at_period_end } = parseBody(cancelInput, req.body ?? {});
  const today = todayUtc();
  let changed = false;
  let refund: RefundAnswer | null = null;
  // The row lock makes concurrent cancels queue: the second finds it canceled and refunds nothing.
  await r.change(req, {
    id,
    version: actionVersionOf(req),
    computed: async (current) => {
      const values = cancellation(current, at_period_end);
      changed = values !== null;
      return values;
    },
    // Only money that was paid goes back: the payment for this very period, less what it already gave back.
    effects: async (tx, _written, before) => {
      if (at_period_end) return;
      const due = await refundDue(tx, before, today);
      if (!due) return;
      const { computed, currency, paymentId } = due;
      await tx.query(
        'insert into subscription_refunds (subscription_id, payment_id, amount_minor, currency, unused_days, period_days, created_by) values ($1, $2, $3, $4, $5, $6, $7)',
        [id, paymentId, computed.amountMinor, currency, computed.unusedDays, computed.periodDays, req.user!.id],
      );
      refund = { amount: computed.amountMinor / 100, amount_minor: computed.amountMinor, currency, unused_days: computed.unusedDays, period_days: computed.periodDays };
    },
  });
  return ok(reply, { subscription: await r.fetchOne(id), refund, changed });
};

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
  actions: { activate: activateAction, cancel: cancelAction },
  subResources: { refunds: { list: listRefunds(db) } },
});
