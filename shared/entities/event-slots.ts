import { defineEntity } from '../entity/define.ts';

/** §3 "Event … has slots": a sub-collection listed and edited on the event's page. */
export const eventSlotsEntity = defineEntity({
  name: 'event-slots',
  route: '/events/:id',
  parent: { entity: 'events', field: 'event_id' },
  label: '{date|date} {start_time|hm}–{end_time|hm}',
  fields: {
    event_id: { kind: 'reference', required: true, reference: { entity: 'events' }, filter: true },
    name: { kind: 'text', max: 80, searchable: true, list: true },
    date: { kind: 'date', required: true, sortable: true, list: true },
    start_time: { kind: 'time', required: true, sortable: true, list: true },
    end_time: { kind: 'time', required: true, list: true },
    capacity: { kind: 'integer', required: true, min: 1, max: 10_000, default: 10, list: true },
  },
  checks: [
    {
      test: (v) => typeof v.start_time !== 'string' || typeof v.end_time !== 'string' || v.start_time <= v.end_time,
      message: 'validation.startAfterEnd',
      path: 'start_time',
    },
  ],
});
