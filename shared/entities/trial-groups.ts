import { nameField, descriptionField } from '../entity/fields.ts';
import { PERSON_ITEM } from './promo-codes.ts';
import { defineEntity } from '../entity/define.ts';

/** §3 Trial group: a business tries the service with invited users (ADR 014). */
export const trialGroupsEntity = defineEntity({
  name: 'trial-groups',
  screen: {
    list: '/trial-groups',
    detail: '/trial-groups/:id',
    roles: ['Admin'],
    sidebar: { group: 'people', order: 180, icon: 'beaker' },
    pages: { detail: 'client/pages/trial-group-page.tsx' },
  },
  defaultSort: '-start_date',
  label: '{name}',
  fields: {
    name: nameField(120, { unique: true }),
    description: descriptionField(2000),
    company_id: { kind: 'reference', reference: { entity: 'companies' }, filter: true, list: true },
    start_date: { kind: 'date', sortable: true, list: true },
    end_date: { kind: 'date', sortable: true, list: true },
  },
  checks: [
    {
      test: (v) => typeof v.start_date !== 'string' || typeof v.end_date !== 'string' || v.end_date >= v.start_date,
      message: 'validation.endBeforeStart',
      path: 'end_date',
    },
  ],
  actions: {
    /** Invites each address (one, or a comma-separated list) through the account invitation (ADR 014). */
    invite: { roles: ['Admin'], path: 'invites', input: { emails: { kind: 'text', required: true, max: 20_000, multiline: true } }, result: 'none' },
    /** Sends a fresh link to everyone invited who has not registered yet. */
    // The group's page runs it from its invitations section, with the count of who is still waiting.
    reinvite: { roles: ['Admin'], confirm: true, result: 'none', button: false },
  },
  subResources: {
    users: {
      key: 'user_id',
      item: {
        ...PERSON_ITEM,
        invitation_status: { kind: 'text', required: true },
        added_at: { kind: 'datetime', required: true },
      },
      add: { user_id: { kind: 'reference', required: true, reference: { entity: 'users', label: '{email}' } } },
      remove: true,
    },
    invites: {
      item: {
        user_id: { kind: 'reference', required: true, reference: { entity: 'users', label: '{email}' } },
        email: { kind: 'email', required: true },
        status: { kind: 'enum', required: true, options: ['invited', 'registered'] },
        invited_at: { kind: 'datetime', required: true },
        registered_at: { kind: 'datetime' },
        sent_count: { kind: 'integer', required: true },
      },
    },
  },
});

export const TRIAL_INVITE_STATUSES = ['invited', 'registered'] as const;
export type TrialInviteStatus = (typeof TRIAL_INVITE_STATUSES)[number];
