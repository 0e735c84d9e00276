import { defineEntity } from '../entity/define.ts';
import { scheduleEntry } from './buddy-work-slots.ts';
import { BUDDY_FIELD, DAY_AND_SLOT_FIELDS } from './people.ts';

/** §3 Not-working (unreachable) slot: a buddy cannot be booked in this slot on this day. */
export const notWorkingSlotsEntity = defineEntity({
  name: 'not-working-slots',
  ...scheduleEntry('user_id'),
  label: '{user_id_label} {service_date|date} {service_slot_id_label}',
  unique: [{ name: 'user_day_slot', fields: ['user_id', 'service_date', 'service_slot_id'], message: 'validation.notWorkingExists' }],
  fields: {
    user_id: BUDDY_FIELD,
    ...DAY_AND_SLOT_FIELDS,
    notes: { kind: 'text', max: 1000, multiline: true, searchable: true, list: true },
  },
});
