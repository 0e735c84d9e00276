import type { FieldDef } from '../entity/define.ts';

/**
 * A referenced user's label in SQL over the user row `r`: their full name, or their e-mail without one.
 * Written with `||` (immutable; `concat_ws` is not) so that migration 053 can index it for searches.
 */
export const USER_FULL_NAME_SQL = "coalesce(nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), ''), r.email)";

/** A reference to any user, labelled by name. */
export const USER_REFERENCE: NonNullable<FieldDef['reference']> = { entity: 'users', label: '{email}', labelSql: USER_FULL_NAME_SQL, labelShortSearch: true };

/** A reference to a buddy: choices and accepted values are active users holding the Buddy role (§3). */
export const BUDDY_REFERENCE: NonNullable<FieldDef['reference']> = { ...USER_REFERENCE, role: 'Buddy' };

/** A buddy chosen in a form: required, with its own message (§5), listed and filtered. */
export const BUDDY_CHOICE = {
  kind: 'reference',
  required: true,
  requiredMessage: 'validation.buddyRequired',
  reference: BUDDY_REFERENCE,
  list: true,
  filter: true,
} as const satisfies FieldDef;

/** A buddy chosen in a form, and the records searched by the buddy's name. */
export const BUDDY_FIELD = { ...BUDDY_CHOICE, searchable: true } as const satisfies FieldDef;

/** The day and the slot of a buddy's work, absence or service: listed, filtered (the day by range), the day sortable. */
export const DAY_AND_SLOT_FIELDS = {
  service_date: { kind: 'date', required: true, sortable: true, list: true, filter: 'range' },
  service_slot_id: { kind: 'reference', required: true, reference: { entity: 'service-slots', label: '{name}' }, list: true, filter: true },
} as const satisfies Record<string, FieldDef>;
