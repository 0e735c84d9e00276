import { defineEntity } from '../entity/define.ts';
import { BUDDY_FIELD, DAY_AND_SLOT_FIELDS, scheduleEntry } from './people.ts';

/**
 * §3 Buddy work slot (the scheduler): when a buddy works and how many services they take per day.
 * A Buddy manages their own slots, an Admin everyone's. Services can only be booked into a working
 * slot (ADR 010).
 */
export const buddyWorkSlotsEntity = defineEntity({
  name: 'buddy-work-slots',
  ...scheduleEntry('buddy_id'),
  label: '{buddy_id_label} {service_date} {service_slot_id_label}',
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
