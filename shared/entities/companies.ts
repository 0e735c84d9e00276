import { nameField } from '../entity/fields.ts';
import { defineEntity } from '../entity/define.ts';

export const companiesEntity = defineEntity({
  name: 'companies',
  screen: { list: '/companies', detail: '/companies/:id', roles: ['Admin'], sidebar: { group: 'people', order: 30, icon: 'organization' } },
  label: '{name}',
  fields: {
    name: nameField(120, { unique: true }),
    address: { kind: 'text', max: 255, searchable: true, list: true },
    contact_person: { kind: 'text', max: 120, searchable: true, list: true },
    contact_phone: { kind: 'phone', max: 40 },
    contact_email: { kind: 'email', searchable: true, list: true },
    billing_email: { kind: 'email' },
    is_main_company: { kind: 'boolean', default: false, filter: true, list: true, sortable: true },
    main_company_id: { kind: 'reference', reference: { entity: 'companies' }, filter: true, list: true },
  },
});
