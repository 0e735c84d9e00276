import { defineEntity } from '../entity/define.ts';
import { PLAN_FREQUENCIES } from './subscription-plans.ts';

/** `incomplete`: created, first payment outstanding. The others as §3/§4 name them (ADR 012). */
export const SUBSCRIPTION_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const CURRENCIES = ['sek', 'gbp'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Which statuses each action accepts (the upstream checks the same in its UPDATE). */
export const CAN_ACTIVATE: readonly SubscriptionStatus[] = ['incomplete', 'trialing', 'past_due', 'canceled'];
export const CAN_CANCEL: readonly SubscriptionStatus[] = ['incomplete', 'trialing', 'active', 'past_due'];

/** Active or trialing: the subscriptions that can be told to end with their current period (ADR 012). */
const runsToPeriodEnd = (r: Record<string, unknown>) => r.status === 'active' || r.status === 'trialing';

/** A subscription told to end with its current period. */
export const endsWithPeriod = (r: Record<string, unknown>) => runsToPeriodEnd(r) && r.cancel_at_period_end === true;

/** Activating an active subscription told to end with its period takes the flag back ("resume"). */
export const isResume = (r: Record<string, unknown>) => r.status === 'active' && r.cancel_at_period_end === true;

/**
 * §3 Subscription. Created by the consumer app, so the back office only reads them and acts on them
 * (activate, cancel with a pro-rata refund). Listed in the Admin-only Subscriptions tab of /users and
 * on each user's page (ADR 012).
 */
export const subscriptionsEntity = defineEntity({
  name: 'subscriptions',
  route: '/users/:id',
  embedded: true,
  readOnly: true,
  defaultSort: '-created_at',
  metaColumns: ['id', 'created_at'],
  label: '#{id} {plan_id_label}',
  fields: {
    user_id: { kind: 'reference', required: true, reference: { entity: 'users', label: '{email}' }, filter: true, searchable: true, list: true },
    plan_id: { kind: 'reference', required: true, reference: { entity: 'subscription-plans' }, filter: true, list: true },
    frequency: { kind: 'enum', options: PLAN_FREQUENCIES, lookup: { via: 'plan_id', column: 'frequency' }, list: true },
    status: { kind: 'enum', required: true, options: SUBSCRIPTION_STATUSES, default: 'incomplete', filter: true, sortable: true, list: true },
    current_period_start: { kind: 'date', required: true, sortable: true, list: true },
    current_period_end: { kind: 'date', required: true, sortable: true, list: true },
    cancel_at_period_end: { kind: 'boolean', default: false, filter: true, list: true },
    promo_code_id: { kind: 'reference', reference: { entity: 'promo-codes' }, list: true },
    currency: { kind: 'enum', required: true, options: CURRENCIES, default: 'sek' },
    amount: { kind: 'money', required: true, currencyField: 'currency', min: 0 },
    bicycles: { kind: 'integer', required: true, min: 1, max: 20, default: 1 },
    company_id: { kind: 'reference', reference: { entity: 'companies' }, filter: true },
    canceled_at: { kind: 'datetime', readOnly: true },
  },
  actions: {
    activate: {
      roles: ['Admin'],
      confirm: true,
      inList: true,
      result: { recordKey: 'subscription' },
      enabledWhen: (r) => CAN_ACTIVATE.includes(r.status as SubscriptionStatus) || isResume(r),
      textContext: (r) => (isResume(r) ? 'resume' : undefined),
    },
    /** Ends it now (with a pro-rata refund of a paid period), or at the end of the period. */
    cancel: {
      roles: ['Admin'],
      confirm: true,
      danger: true,
      inList: true,
      input: { at_period_end: { kind: 'boolean' } },
      variants: { now: { at_period_end: false }, atPeriodEnd: { at_period_end: true } },
      result: { recordKey: 'subscription' },
      enabledWhen: (r, input) => (input?.at_period_end ? runsToPeriodEnd(r) && r.cancel_at_period_end !== true : CAN_CANCEL.includes(r.status as SubscriptionStatus)),
    },
  },
  subResources: {
    /** The refunds it paid out, newest first: date, amount in its currency, days, who cancelled. */
    refunds: {
      item: {
        amount: { kind: 'decimal', required: true },
        amount_minor: { kind: 'integer', required: true },
        currency: { kind: 'enum', required: true, options: CURRENCIES },
        unused_days: { kind: 'integer', required: true },
        period_days: { kind: 'integer', required: true },
        payment_id: { kind: 'integer' },
        created_by: { kind: 'reference', reference: { entity: 'users', label: '{email}' } },
        created_at: { kind: 'datetime', required: true },
      },
    },
  },
});
