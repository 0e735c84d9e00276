import { defineEntity } from '../entity/define.ts';

export const operationalRangesEntity = defineEntity({
  name: 'operational-ranges',
  screen: { list: '/operational-ranges', roles: ['Admin'], sidebar: { order: 170, icon: 'location' } },
  table: 'operational_ranges',
  defaultSort: 'name',
  label: '{name}',
  fields: {
    name: { kind: 'text', required: true, max: 80, unique: true, searchable: true, sortable: true, list: true },
  },
});
