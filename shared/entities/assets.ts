import { nameField } from '../entity/fields.ts';
import { defineEntity, type StatusFlow } from '../entity/define.ts';
import { BUDDY_REFERENCE } from './people.ts';

export const ASSET_TYPES = ['van', 'cargo_bike', 'tool_kit', 'workstand', 'diagnostic', 'other'] as const;

/** 1 Available, 2 In use, 3 In repair, 4 Retired. Retired is final: the record of what the business owned. */
export const ASSET_STATUS = { Available: 1, InUse: 2, InRepair: 3, Retired: 4 } as const;
const OPEN = [1, 2, 3] as const;

export const ASSET_STATUS_FLOW: StatusFlow = {
  colors: { 1: 'success', 2: 'accent', 3: 'attention', 4: 'secondary' },
  initial: [1, 2, 3],
  transitions: OPEN.flatMap((from) => [...OPEN, 4].filter((to) => to !== from).map((to) => ({ from, to }))),
};

/**
 * §1/§3 assets: what the business owns to do its work — vans, cargo bikes, tool kits, stands and
 * diagnostic kit (ADR 023). An asset in use is with a buddy; its serial or registration number is unique.
 */
export const assetsEntity = defineEntity({
  name: 'assets',
  screen: { list: '/assets', detail: '/assets/:id', roles: ['Admin'], sidebar: { group: 'catalogues', order: 165, icon: 'container' } },
  label: '{name}',
  fields: {
    name: nameField(120),
    asset_type: { kind: 'enum', required: true, options: ASSET_TYPES, filter: true, list: true },
    identifier: { kind: 'text', max: 60, unique: true, searchable: true, list: true },
    status: { kind: 'enum', required: true, options: [1, 2, 3, 4], default: 1, status: ASSET_STATUS_FLOW, filter: true, sortable: true, list: true },
    buddy_id: { kind: 'reference', reference: BUDDY_REFERENCE, filter: true, list: true },
    purchase_date: { kind: 'date', sortable: true },
    purchase_value: { kind: 'money', currency: 'sek', min: 0 },
    // Flagged once passed, unless the asset is retired (ADR 041).
    next_inspection: { kind: 'date', sortable: true, filter: 'range', list: true, due: { unless: (r) => Number(r.status) === ASSET_STATUS.Retired } },
    notes: { kind: 'text', max: 2000, multiline: true, searchable: true },
  },
  checks: [
    {
      test: (v) => v.status === undefined || v.status === null || Number(v.status) !== ASSET_STATUS.InUse || (v.buddy_id !== null && v.buddy_id !== undefined && v.buddy_id !== ''),
      message: 'validation.assetInUseNeedsBuddy',
      path: 'buddy_id',
    },
  ],
});
