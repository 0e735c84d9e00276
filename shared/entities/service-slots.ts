import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const serviceSlotsEntity = defineEntity({
  name: 'service-slots',
  screen: { list: '/service-slots', roles: ['Admin'], sidebar: { group: 'catalogues', order: 100, icon: 'clock' } },
  defaultSort: 'start_time',
  label: '{name} {start_time|hm}–{end_time|hm}',
  activeField: 'is_active',
  fields: {
    name: nameField(80),
    start_time: { kind: 'time', required: true, sortable: true, list: true },
    end_time: { kind: 'time', required: true, sortable: true, list: true },
    max: { kind: 'integer', required: true, min: 1, max: 1000, default: 1, sortable: true, list: true },
    is_active: { kind: 'boolean', default: true, filter: true, list: true, sortable: true },
  },
  checks: [
    {
      // §5: 'Start Time can't be after End Time.'
      test: (v) => typeof v.start_time !== 'string' || typeof v.end_time !== 'string' || v.start_time <= v.end_time,
      message: 'validation.startAfterEnd',
      path: 'start_time',
    },
  ],
});
