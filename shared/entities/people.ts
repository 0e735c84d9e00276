import type { FieldDef } from '../entity/define.ts';

/** A reference to any user, labelled by name (the users' `referenceLabel`, written on the server: ADR 072). */
export const USER_REFERENCE: NonNullable<FieldDef['reference']> = { entity: 'users', label: '{email}', sqlLabel: true, labelShortSearch: true };

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
