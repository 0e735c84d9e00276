import { nameField, descriptionField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';
import { BUDDY_REFERENCE } from './people.ts';

/** §4 event status: 1 Draft, 2 Published, 3 Unpublished, 4 Finished. */
export const EVENT_STATUSES = [1, 2, 3, 4] as const;

/** §3 Event with the §5 rules; its slots are a sub-collection (event-slots), its bookings read-only. */
export const eventsEntity = defineEntity({
  name: 'events',
  screen: { list: '/events', detail: '/events/:id', roles: ['Admin'], sidebar: { group: 'catalogues', order: 50, icon: 'megaphone' } },
  defaultSort: '-start_date',
  exportable: true,
  label: '{name}',
  messages: { created: 'APP.EVENT.SUCCESS-ADD', saved: 'APP.EVENT.SUCCESS-EDIT', deleted: 'APP.EVENT.SUCCESS-DELETE' },
  fields: {
    name: nameField(120),
    business: nameField(120),
    location: { kind: 'text', required: true, max: 200, searchable: true, list: true },
    contact_person: { kind: 'text', required: true, max: 120, searchable: true },
    contact_phone: { kind: 'phone', required: true, max: 40 },
    start_date: { kind: 'date', required: true, sortable: true, list: true },
    end_date: { kind: 'date', required: true, sortable: true, list: true },
    status: { kind: 'enum', required: true, options: EVENT_STATUSES, default: 1, filter: true, sortable: true, list: true },
    link: { kind: 'url' },
    logo: { kind: 'image', uploadKind: 'event_logo' },
    description_en: descriptionField(4000),
    description_sv: descriptionField(4000),
    place_en: { kind: 'text', max: 200 },
    place_sv: { kind: 'text', max: 200 },
    responsible_name: { kind: 'text', max: 120 },
    responsible_email: { kind: 'email' },
    buddy_id: { kind: 'reference', reference: BUDDY_REFERENCE, filter: true, list: true },
  },
  checks: [
    {
      // §5: 'End date cannot be earlier than the start date.'
      test: (v) => typeof v.start_date !== 'string' || typeof v.end_date !== 'string' || v.end_date >= v.start_date,
      message: 'validation.endBeforeStart',
      path: 'end_date',
    },
  ],
});
