import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const rolesEntity = defineEntity({
  name: 'roles',
  screen: { list: '/roles', roles: ['Admin'], sidebar: { group: 'settings', order: 150, icon: 'shield-lock' } },
  label: '{name}',
  // The users list (Admin, BuddyShop) filters and invites by role name (users.roleNames).
  access: { alsoReadBy: ['BuddyShop'] },
  fields: {
    name: nameField(50, { unique: true }),
    description: { kind: 'text', max: 500, multiline: true, list: true, searchable: true },
  },
});
