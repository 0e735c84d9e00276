import { defineEntity } from '../entity/define.ts';

export const competenciesEntity = defineEntity({
  name: 'competencies',
  screen: { list: '/competencies', roles: ['Admin'], sidebar: { order: 120, icon: 'star' } },
  table: 'competencies',
  defaultSort: 'name',
  label: '{name}',
  fields: {
    name: { kind: 'text', required: true, max: 80, unique: true, searchable: true, sortable: true, list: true },
    description: { kind: 'text', max: 500, multiline: true, list: true },
  },
});
