import { defineEntity } from '../entity/define.ts';

export const bicycleTypesEntity = defineEntity({
  name: 'bicycle-types',
  screen: { list: '/bicycle-types', roles: ['Admin'], sidebar: { order: 130, icon: 'package' } },
  table: 'bicycle_types',
  defaultSort: 'name',
  label: '{name}',
  fields: {
    name: { kind: 'text', required: true, max: 80, unique: true, searchable: true, sortable: true, list: true },
    description: { kind: 'text', max: 500, multiline: true, list: true },
  },
});
