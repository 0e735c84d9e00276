import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const languagesEntity = defineEntity({
  name: 'languages',
  screen: { list: '/languages', roles: ['Admin'], sidebar: { group: 'settings', order: 110, icon: 'globe' } },
  label: '{name} ({code})',
  fields: {
    code: nameField(10, { unique: true }),
    name: nameField(80),
    native_name: nameField(80),
  },
});
