import { nameField } from '../entity/fields.ts';
import type { FieldDef } from '../entity/define.ts';
import { defineEntity } from '../entity/define.ts';

/** A user as an item of another record's sub-resource (a promo code's users, a trial group's members): the user and their name. */
export const PERSON_ITEM = {
  user_id: { kind: 'reference', required: true, reference: { entity: 'users', label: '{email}' } },
  email: { kind: 'email', required: true },
  first_name: { kind: 'text' },
  last_name: { kind: 'text' },
} as const satisfies Record<string, FieldDef>;

export const promoCodesEntity = defineEntity({
  name: 'promo-codes',
  screen: {
    list: '/promo-codes',
    detail: '/promo-codes/:id',
    roles: ['Admin'],
    sidebar: { group: 'catalogues', order: 60, icon: 'tag' },
    pages: { detail: 'client/pages/promo-code-page.tsx' },
  },
  defaultSort: '-starts_at',
  label: '{code}',
  fields: {
    code: nameField(40, { unique: true }),
    company_name: { kind: 'text', max: 120, searchable: true, sortable: true, list: true },
    company_logo: { kind: 'image', uploadKind: 'company_logo' },
    duration_days: { kind: 'integer', min: 0, max: 3650, list: true },
    max_uses: { kind: 'integer', required: true, min: 1, max: 1_000_000, default: 1, list: true },
    uses: { kind: 'integer', readOnly: true, list: true, sortable: true },
    discount_percent: { kind: 'integer', min: 0, max: 100, list: true },
    starts_at: { kind: 'date', required: true, sortable: true, list: true },
    expires_at: { kind: 'date', required: true, sortable: true, list: true },
  },
  checks: [
    {
      // §5: 'Expires At date needs to be after Start At date.'
      test: (v) => typeof v.starts_at !== 'string' || typeof v.expires_at !== 'string' || v.expires_at > v.starts_at,
      message: 'validation.expiresBeforeStart',
      path: 'expires_at',
    },
  ],
  subResources: {
    /** Who used the code, newest first. */
    users: {
      key: 'user_id',
      item: {
        ...PERSON_ITEM,
        used_at: { kind: 'datetime', required: true },
      },
    },
  },
});
