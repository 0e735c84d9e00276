import { nameField, descriptionField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const PLAN_FREQUENCIES = ['monthly', 'quarterly', 'yearly'] as const;
export type PlanFrequency = (typeof PLAN_FREQUENCIES)[number];

/** Months in one billing period of each frequency (ADR 012). */
export const FREQUENCY_MONTHS: Record<PlanFrequency, number> = { monthly: 1, quarterly: 3, yearly: 12 };

/**
 * What a subscriber pays for (ADR 012): a name and description per language, how often it renews,
 * a price per period in each currency, and how many bicycles it covers. `slug` names the plan in
 * the public page /subscriptions/<slug>/<language>. Managed in the Admin-only tab of /users.
 */
export const subscriptionPlansEntity = defineEntity({
  name: 'subscription-plans',
  route: '/users/:id',
  embedded: true,
  label: '{name_{lang}}',
  activeField: 'is_active',
  fields: {
    slug: nameField(40, { unique: true }),
    name_en: nameField(120),
    name_sv: nameField(120, { list: false }),
    description_en: descriptionField(2000),
    description_sv: descriptionField(2000),
    frequency: { kind: 'enum', required: true, options: PLAN_FREQUENCIES, default: 'monthly', filter: true, list: true },
    price_sek: { kind: 'money', required: true, currency: 'sek', min: 0, sortable: true, list: true },
    price_gbp: { kind: 'money', required: true, currency: 'gbp', min: 0, sortable: true, list: true },
    bicycles: { kind: 'integer', required: true, min: 1, max: 20, default: 1, list: true },
    is_active: { kind: 'boolean', default: true, filter: true, list: true },
  },
  checks: [{ test: (v) => typeof v.slug !== 'string' || /^[a-z0-9]+(-[a-z0-9]+)*$/.test(v.slug), message: 'validation.slug', path: 'slug' }],
});
