import { nameField, descriptionField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

/**
 * §1/§7 service types, a catalogue the API serves rather than a fixed list (ADR 023): named per
 * language, with what a booking of the type usually takes and costs. Services reference it; a type in
 * use cannot be deleted (409 `in_use`), only made inactive.
 */
export const serviceTypesEntity = defineEntity({
  name: 'service-types',
  screen: { list: '/service-types', roles: ['Admin'], sidebar: { group: 'catalogues', order: 105, icon: 'stack' } },
  label: '{name_{lang}}',
  activeField: 'is_active',
  fields: {
    name_en: nameField(80, { unique: true }),
    name_sv: nameField(80),
    description: descriptionField(1000),
    duration_minutes: { kind: 'integer', min: 15, max: 600, list: true },
    price_sek: { kind: 'money', currency: 'sek', min: 0, sortable: true, list: true },
    is_active: { kind: 'boolean', default: true, filter: true, list: true, sortable: true },
  },
});
