import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';
import { EVENT_STATUSES } from './events.ts';

export const BOOKING_STATUSES = ['booked', 'confirmed', 'attended', 'canceled'] as const;

/**
 * §3 Booking of an event slot, made in the consumer app: read-only here. `service_id` is the service
 * the booking turned into; its reference to `services` arrives with the services work.
 */
export const eventBookingsEntity = defineEntity({
  name: 'event-bookings',
  screen: { list: '/event-bookings', roles: ['Admin'], sidebar: { group: 'daily', order: 40, icon: 'checklist' } },
  readOnly: true,
  defaultSort: '-booked_at',
  metaColumns: ['id'],
  label: '#{id} {full_name}',
  fields: {
    service_id: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, list: true },
    main_company_id: { kind: 'reference', reference: { entity: 'companies' }, list: true },
    company_id: { kind: 'reference', reference: { entity: 'companies' }, filter: true, list: true },
    event_id: { kind: 'reference', required: true, reference: { entity: 'events' }, filter: true, list: true },
    event_slot_id: { kind: 'reference', reference: { entity: 'event-slots', label: '{date|date}' } },
    full_name: nameField(120),
    email: { kind: 'email', searchable: true },
    event_status: { kind: 'enum', options: EVENT_STATUSES, lookup: { via: 'event_id', column: 'status' }, list: true },
    status: { kind: 'enum', required: true, options: BOOKING_STATUSES, default: 'booked', filter: true, sortable: true, list: true },
    buddy_id: { kind: 'reference', reference: { entity: 'users', label: '{email}' }, list: true },
    given_company: { kind: 'text', max: 120, searchable: true, list: true },
    date: { kind: 'date', required: true, filter: 'range', sortable: true, list: true },
    booked_at: { kind: 'datetime', required: true, sortable: true, list: true },
  },
});
