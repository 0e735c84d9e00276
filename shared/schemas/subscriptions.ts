import type { EntityRecord } from '../entity/define.ts';
import type { Currency } from '../entities/subscriptions.ts';

/** What the subscription actions and the public plan page answer (ADR 012, 019); types only. */

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
