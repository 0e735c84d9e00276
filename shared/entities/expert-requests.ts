import { defineEntity, type StatusFlow } from '../entity/define.ts';
import { BUDDY_REFERENCE, USER_REFERENCE } from './people.ts';

export const EXPERT_REQUEST_STATUS = { Requested: 1, Confirmed: 2, Completed: 3, Canceled: 4 } as const;

/** Requested → Confirmed → Completed, cancelled from either open state; Completed and Canceled are final. */
export const EXPERT_REQUEST_FLOW: StatusFlow = {
  colors: { 1: 'attention', 2: 'accent', 3: 'success', 4: 'danger' },
  initial: [1, 2],
  transitions: [
    { from: 1, to: 2 },
    { from: 1, to: 4 },
    { from: 2, to: 3 },
    { from: 2, to: 4 },
  ],
  stamps: { 4: 'canceled_at' },
};

/** /expert ("Bike Expert", Admin): a customer asks for an expert's visit on a date; staff can cancel it (§2, §4). */
export const expertRequestsEntity = defineEntity({
  name: 'expert-requests',
  screen: { list: '/expert', roles: ['Admin'], sidebar: { group: 'daily', order: 80, icon: 'mortar-board' }, pages: { list: 'client/pages/expert-page.tsx' } },
  defaultSort: '-requested_date',
  label: '#{id} {user_id_label}',
  fields: {
    requested_date: { kind: 'date', required: true, sortable: true, list: true, filter: 'range' },
    status: { kind: 'enum', required: true, options: [1, 2, 3, 4], default: 1, status: EXPERT_REQUEST_FLOW, list: true, filter: true, sortable: true },
    user_id: { kind: 'reference', required: true, reference: USER_REFERENCE, list: true, searchable: true, filter: true, filterHidden: true },
    bicycle_id: { kind: 'reference', reference: { entity: 'bicycles' }, list: true },
    expert_id: { kind: 'reference', reference: BUDDY_REFERENCE, list: true, filter: true },
    description: { kind: 'text', max: 2000, multiline: true, searchable: true },
    canceled_at: { kind: 'datetime', readOnly: true },
  },
});
