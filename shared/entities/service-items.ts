import { nameField, descriptionField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const serviceItemsEntity = defineEntity({
  name: 'service-items',
  screen: { list: '/service-items', roles: ['Admin'], sidebar: { group: 'catalogues', order: 90, icon: 'list-unordered' } },
  label: '{name_{lang}}',
  fields: {
    name_en: nameField(120),
    name_sv: nameField(120),
    description: descriptionField(1000, { list: true }),
    // A service is not finished while one of these is unanswered (ADR 043).
    is_required: { kind: 'boolean', default: false, list: true, filter: true, sortable: true },
  },
});

/** §3 check statuses of a service detail, keyed by service_detail_item_id. */
export const SERVICE_CHECK_STATUSES = [
  { id: 1, key: 'needRepair', label: 'Needs repair', color: 'red' },
  { id: 2, key: 'adjusted', label: 'Adjusted & OK', color: 'green' },
  { id: 3, key: 'controlled', label: 'Controlled & OK', color: 'green' },
] as const;
