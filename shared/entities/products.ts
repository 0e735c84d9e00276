import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const productsEntity = defineEntity({
  name: 'products',
  screen: { list: '/products', roles: ['Admin'], sidebar: { group: 'catalogues', order: 190, icon: 'briefcase' } },
  label: '{name_{lang}}',
  activeField: 'is_active',
  fields: {
    name_en: nameField(120),
    name_sv: nameField(120, { list: false }),
    description_en: { kind: 'text', required: true, max: 2000, multiline: true },
    description_sv: { kind: 'text', required: true, max: 2000, multiline: true },
    price_sek: { kind: 'money', currency: 'sek', min: 0, sortable: true, list: true },
    price_gbp: { kind: 'money', currency: 'gbp', min: 0, sortable: true, list: true },
    max_quantity_per_bicycle: { kind: 'integer', min: 1, max: 100, list: true },
    is_active: { kind: 'boolean', default: true, filter: true, list: true, sortable: true },
  },
});
