import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

/** §3 Bicycle with the §5 required fields and maximum lengths. Owner and type are references. */
export const bicyclesEntity = defineEntity({
  name: 'bicycles',
  screen: {
    list: '/bicycles',
    detail: '/bicycles/:id',
    roles: ['Admin'],
    sidebar: { group: 'people', order: 160, icon: 'rocket' },
    pages: { detail: 'client/pages/bicycle-page.tsx' },
  },
  defaultSort: '-id',
  exportable: true,
  // The buddy at the bike reads it and its history from their service's card (ADR 044); the screens stay an Admin's.
  access: { readThrough: [{ entity: 'services', field: 'bicycle_id', roles: ['Buddy'] }] },
  label: '{brand_and_model} ({serial_number})',
  fields: {
    brand_and_model: nameField(45, { valuesRepeat: true }),
    serial_number: nameField(45, { shortSearch: true }),
    bicycle_type_id: { kind: 'reference', reference: { entity: 'bicycle-types' }, filter: true, list: true },
    owner_id: { kind: 'reference', reference: { entity: 'users', label: '{email}' }, filter: true, list: true, searchable: true },
    groupset: { kind: 'text', required: true, max: 20 },
    drivetrain: { kind: 'text', required: true, max: 45 },
    front_brake: { kind: 'text', required: true, max: 45 },
    lock_model: { kind: 'text', required: true, max: 20 },
    smart_lock_id: { kind: 'text', max: 45 },
    insurance_company: { kind: 'text', max: 45, searchable: true, valuesRepeat: true },
    tyre_size: { kind: 'text', required: true, max: 20 },
    tyre_diameter: { kind: 'text', required: true, max: 20 },
    valve_type: { kind: 'enum', required: true, options: ['presta', 'schrader', 'dunlop'] },
    age_and_condition: { kind: 'text', required: true, max: 120, multiline: true },
    purchase_date: { kind: 'date', required: true, sortable: true, list: true },
    purchase_value: { kind: 'text', max: 20 },
    year: { kind: 'text', max: 4 },
    is_active: { kind: 'boolean', default: true, filter: true, list: true, sortable: true },
  },
  checks: [{ test: (v) => typeof v.year !== 'string' || /^\d{4}$/.test(v.year), message: 'validation.year', path: 'year' }],
  actions: {
    // Changes of one field through the one write path (ADR 069): the owner's limit is the update rule's.
    activate: { roles: ['Admin'], confirm: true, sets: { is_active: true }, enabledWhen: (r) => !r.is_active },
    deactivate: { roles: ['Admin'], confirm: true, danger: true, sets: { is_active: false }, enabledWhen: (r) => Boolean(r.is_active) },
  },
  subResources: {
    images: {
      item: { kind: { kind: 'enum', required: true, options: ['image', 'defect'] }, url: { kind: 'image', required: true }, created_at: { kind: 'datetime', required: true } },
      add: { url: { kind: 'url', required: true, max: 2048 }, kind: { kind: 'enum', required: true, options: ['image', 'defect'] } },
      remove: true,
    },
    /** The bicycle's services, newest first, with the checklist summed up and the rating (ADR 023). */
    history: {
      path: 'services',
      paged: true,
      item: {
        service_date: { kind: 'date', required: true },
        slot_label: { kind: 'text' },
        status: { kind: 'integer', required: true },
        service_type_label: { kind: 'text' },
        buddy_label: { kind: 'text' },
        notes: { kind: 'text' },
        rating: { kind: 'integer' },
        checked: { kind: 'integer', required: true },
        needs_repair: { kind: 'integer', required: true },
        // The service's photos (ADR 043), oldest first.
        photos: { kind: 'url', required: true, many: 100 },
      },
    },
  },
});
