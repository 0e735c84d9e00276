import { defineEntity } from '../entity/define.ts';

export const languagesEntity = defineEntity({
  name: 'languages',
  screen: { list: '/languages', roles: ['Admin'], sidebar: { order: 110, icon: 'globe' } },
  table: 'languages',
  defaultSort: 'name',
  label: '{name} ({code})',
  fields: {
    code: { kind: 'text', required: true, max: 10, unique: true, searchable: true, sortable: true, list: true },
    name: { kind: 'text', required: true, max: 80, searchable: true, sortable: true, list: true },
    native_name: { kind: 'text', required: true, max: 80, searchable: true, sortable: true, list: true },
  },
});
