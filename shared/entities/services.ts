import { defineEntity, type StatusFlow } from '../entity/define.ts';
import { BUDDY_CHOICE, DAY_AND_SLOT_FIELDS, USER_REFERENCE } from './people.ts';

/** §4 service status (1–5). */
export const SERVICE_STATUS = { Requested: 1, Booked: 2, CanceledByBuddy: 3, Finished: 4, CanceledByUserOrAdmin: 5 } as const;

/**
 * ADR 009: Requested → Booked → Finished; either cancellation from the open states (a buddy can only
 * cancel as "by Bike Buddy"); nothing leaves a final state (3, 4, 5). Finished stamps `finished_at`.
 */
export const SERVICE_STATUS_FLOW: StatusFlow = {
  colors: { 1: 'attention', 2: 'accent', 3: 'severe', 4: 'success', 5: 'danger' },
  initial: [SERVICE_STATUS.Requested, SERVICE_STATUS.Booked],
  transitions: [
    { from: 1, to: 2 },
    { from: 1, to: 3 },
    { from: 1, to: 5, roles: ['Admin'] },
    { from: 2, to: 4 },
    // Unassigning on the dispatch board (ADR 044): back to the requests, still provisionally with its buddy.
    { from: 2, to: 1, roles: ['Admin'] },
    { from: 2, to: 3 },
    { from: 2, to: 5, roles: ['Admin'] },
  ],
  stamps: { 4: 'finished_at' },
};

/** Statuses that hold a place in a buddy's slot (ADR 010): everything but the cancellations. */
export const CAPACITY_STATUSES: readonly number[] = [SERVICE_STATUS.Requested, SERVICE_STATUS.Booked, SERVICE_STATUS.Finished];

/** §9 origin types, spelt as stored (subscriber_ keeps its trailing underscore). */
export const ORIGIN_TYPES = ['one_off', 'subscriber_', 'e_commerce', 'b2b', 'benefit_bike'] as const;

/** §5 "Rating: numeric, 1 to 5": the customer's rating of a finished service (ADR 023). */
export const RATING = { min: 1, max: 5 } as const;

/**
 * §3 Service. A Buddy sees and changes only the services assigned to them (`buddy_id`); only an Admin
 * books, edits or deletes; both move the status along SERVICE_STATUS_FLOW. The bicycle owner is taken
 * from the bicycle by the API. Capacity and the operation range are checked by the API (ADR 010, 011).
 */
export const servicesEntity = defineEntity({
  name: 'services',
  screen: {
    list: '/services',
    detail: '/services/:id',
    roles: ['Admin', 'Buddy'],
    sidebar: { group: 'daily', order: 70, icon: 'tools' },
    pages: { list: 'client/pages/services-page.tsx', detail: 'client/pages/service-page.tsx' },
  },
  defaultSort: '-service_date',
  calendarField: 'service_date',
  label: '#{id} · {service_date|date}',
  access: { create: ['Admin'], update: ['Admin'], delete: ['Admin'], transition: ['Admin', 'Buddy'], ownerField: 'buddy_id' },
  location: { address: 'address', latitude: 'latitude', longitude: 'longitude', withinOperationRange: true },
  fields: {
    ...DAY_AND_SLOT_FIELDS,
    service_time: { kind: 'time' },
    status: { kind: 'enum', required: true, options: [1, 2, 3, 4, 5], default: 2, status: SERVICE_STATUS_FLOW, list: true, filter: true, sortable: true },
    buddy_id: BUDDY_CHOICE,
    bicycle_id: {
      kind: 'reference',
      required: true,
      reference: { entity: 'bicycles' },
      list: true,
      searchable: true,
      filter: true,
      filterHidden: true,
    },
    owner_id: { kind: 'reference', readOnly: true, reference: USER_REFERENCE, searchable: true, filter: true, filterHidden: true },
    // Read through the references (ADR 021): the buddy calls the owner, and a day's stops are put in
    // order by their slot's hours when no time was agreed.
    owner_phone: { kind: 'phone', lookup: { via: 'owner_id', column: 'phone_number' } },
    slot_start_time: { kind: 'time', lookup: { via: 'service_slot_id', column: 'start_time' }, hidden: true },
    slot_end_time: { kind: 'time', lookup: { via: 'service_slot_id', column: 'end_time' }, hidden: true },
    origin_type: { kind: 'enum', required: true, options: ORIGIN_TYPES, list: true, filter: true },
    service_type_id: { kind: 'reference', reference: { entity: 'service-types' }, filter: true },
    operational_range_id: { kind: 'reference', reference: { entity: 'operational-ranges' }, filter: true },
    address: { kind: 'text', max: 255, searchable: true, valuesRepeat: true, list: true },
    latitude: { kind: 'decimal', required: true, requiredMessage: 'validation.locationRequired', min: -90, max: 90, scale: 7 },
    longitude: { kind: 'decimal', required: true, requiredMessage: 'validation.locationRequired', min: -180, max: 180, scale: 7 },
    notes: { kind: 'text', max: 2000, multiline: true, searchable: true, shortSearch: true },
    rating: { kind: 'integer', min: RATING.min, max: RATING.max, sortable: true, list: true },
    finished_at: { kind: 'datetime', readOnly: true },
    // The stop's place in its buddy's day as applied from a route suggestion (1, 2, …; 0: none, the day goes by
    // time). Written by the orderRoute action only; cleared when the stop's buddy, day, slot or time changes (ADR 044).
    route_position: { kind: 'integer', readOnly: true, hidden: true, min: 0 },
  },
  checks: [
    // A rating is the customer's verdict on work done: only a finished service has one.
    { test: (v) => v.rating === null || v.rating === undefined || Number(v.status) === SERVICE_STATUS.Finished, message: 'validation.ratingNeedsFinished', path: 'rating' },
  ],
  actions: {
    // Finishing before the service's date is refused by the API; an Admin may, after saying so (ADR 028).
    transition: { override: { code: 'finish_before_date', roles: ['Admin'], input: { force: true } } },
    // Applies a visiting order to one buddy's day: every open stop of it, agreed times kept in time order (ADR 044).
    orderRoute: {
      on: 'collection',
      roles: ['Admin', 'Buddy'],
      path: 'route-order',
      button: false,
      result: 'none',
      input: { order: { kind: 'integer', required: true, min: 1, max: Number.MAX_SAFE_INTEGER, many: 100 } },
    },
  },
  subResources: {
    /**
     * The §3 checklist: one row per service item with what was recorded for it; whoever may move the
     * service along (Admin, its Buddy) sets an item's check, or the whole checklist at once as one form
     * (`setMany`, all or nothing, ADR 043). Its images are the handler's own routes.
     */
    details: {
      setMany: true,
      key: 'service_item_id',
      item: {
        service_item_id: { kind: 'reference', reference: { entity: 'service-items' } },
        check_status: { kind: 'enum', options: [1, 2, 3] },
        needs_repair: { kind: 'boolean' },
        notes: { kind: 'text', max: 2000, multiline: true },
      },
      set: {
        check_status: { kind: 'enum', required: true, options: [1, 2, 3], requiredMessage: 'validation.checkStatusRequired' },
        needs_repair: { kind: 'boolean', default: false },
        notes: { kind: 'text', max: 2000, multiline: true },
      },
      writeRoles: ['Admin', 'Buddy'],
    },
    /**
     * Photos of the service (§9 upload kind `service_image`), taken with the phone's camera by its Buddy while
     * the service is booked; only files stored through our signed uploads are accepted (ADR 020, 043).
     */
    images: {
      // An image (ADR 065): the history shows the photo added or removed as its thumbnail.
      item: { url: { kind: 'image', required: true }, created_at: { kind: 'datetime', required: true } },
      add: { url: { kind: 'url', required: true, max: 2048 } },
      remove: true,
      writeRoles: ['Admin', 'Buddy'],
    },
  },
});
