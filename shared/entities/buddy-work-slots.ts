import { defineEntity } from '../entity/define.ts';
import { BUDDY_FIELD, DAY_AND_SLOT_FIELDS } from './people.ts';

/**
 * §3 Buddy work slot (the scheduler): when a buddy works and how many services they take per day.
 * A Buddy manages their own slots, an Admin everyone's. Services can only be booked into a working
 * slot (ADR 010).
 */
/**
 * An entry of the buddies' schedule (a work slot, an absence): on the scheduler's screen and its calendar by
 * day; a Buddy writes their own (through `ownerField`), an Admin everyone's (ADR 010).
 */
export function scheduleEntry<const O extends string>(ownerField: O) {
  return {
    route: '/bike-buddy-scheduler',
    calendarField: 'service_date',
    access: { create: ['Admin', 'Buddy'], update: ['Admin', 'Buddy'], delete: ['Admin', 'Buddy'], ownerField },
  } as const;
}

export const buddyWorkSlotsEntity = defineEntity({
  name: 'buddy-work-slots',
  ...scheduleEntry('buddy_id'),
  label: '{buddy_id_label} {service_date|date} {service_slot_id_label}',
  unique: [{ name: 'buddy_day_slot', fields: ['buddy_id', 'service_date', 'service_slot_id'], message: 'validation.workSlotExists' }],
  fields: {
    buddy_id: BUDDY_FIELD,
    ...DAY_AND_SLOT_FIELDS,
    // §5: required and greater than zero.
    max_services_per_day: { kind: 'integer', required: true, min: 1, max: 100, default: 4, list: true },
    is_working_day: { kind: 'boolean', default: true, list: true, filter: true },
    notes: { kind: 'text', max: 1000, multiline: true, searchable: true, list: true },
  },
});
