import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';
import { writableFields } from '../../shared/entity/define.ts';
import { DEFAULT_OPERATION_RANGE } from '../../shared/geo.ts';

function sampleValue(name: string, field: FieldDef, seed: string, index: number): unknown {
  switch (field.kind) {
    case 'text':
      return `${name}-${seed}`.slice(0, field.max ?? 255);
    case 'email':
      return `${name.replace(/_/g, '')}.${seed}@example.com`.toLowerCase();
    case 'phone':
      return '+46 70 123 45 67';
    case 'url':
    case 'image':
      return null;
    case 'reference':
      // The seeded record 1 of the target (seed.ts): a required reference needs an existing record.
      return field.required ? 1 : null;
    case 'integer':
      return Math.max(field.min ?? 1, 1);
    case 'decimal':
    case 'money':
      return 10.5;
    case 'boolean':
      return true;
    case 'date':
      return `2026-0${Math.min(index + 1, 9)}-01`;
    case 'time':
      return `${String(8 + index * 2).padStart(2, '0')}:00`;
    case 'datetime':
      return new Date(Date.UTC(2026, 0, 1 + index)).toISOString();
    case 'enum':
      return field.options?.[0] ?? null;
  }
}

/** A date `days` from today (UTC), as the demo data counts them. */
export function daysFromToday(days: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days)).toISOString().slice(0, 10);
}

/**
 * Values a field's kind alone cannot produce: formats checked across fields, and references that must
 * point at seeded rows. Ids are the demo data's: user 2 is buddy@example.com (a Buddy), user 4 a customer,
 * bicycle 1 and service slot 1 (Morning) exist. The demo buddy works every morning from 30 days ago to 60
 * ahead and has nothing booked 30 days out; the sample point is the operation centre (ADR 010, 011).
 */
const OVERRIDES: Record<string, () => Record<string, unknown>> = {
  bicycles: () => ({ year: '2024' }),
  'buddy-work-slots': () => ({ buddy_id: 2, service_slot_id: 1, service_date: '2099-01-04' }),
  'not-working-slots': () => ({ user_id: 2, service_slot_id: 1, service_date: '2099-01-05' }),
  services: () => ({
    buddy_id: 2,
    bicycle_id: 1,
    service_slot_id: 1,
    service_date: daysFromToday(30),
    status: 2,
    origin_type: 'subscriber_',
    // A booked service has no rating yet (only finished ones do).
    rating: null,
    latitude: DEFAULT_OPERATION_RANGE.centre.lat,
    longitude: DEFAULT_OPERATION_RANGE.centre.lng,
  }),
  'expert-requests': () => ({ user_id: 4 }),
  // A slot lies within its event; the seeded event 1 runs from two days ago for a week.
  'event-slots': () => ({ date: daysFromToday(0) }),
};

/** A valid create input for any entity, derived from its definition (dates and times ascending). */
export function sampleInput(def: EntityDef, seed: string): Record<string, unknown> {
  let dateIndex = 0;
  const values = Object.fromEntries(
    writableFields(def).map(([name, field]) => [
      name,
      sampleValue(name, field, seed, field.kind === 'date' || field.kind === 'time' || field.kind === 'datetime' ? dateIndex++ : 0),
    ]),
  );
  return { ...values, ...OVERRIDES[def.name]?.() };
}

/** A text field to search by and to change in an update. */
export function firstTextField(def: EntityDef): string {
  const entry = Object.entries(def.fields).find(([, f]) => f.kind === 'text' && f.searchable);
  if (!entry) throw new Error(`${def.name} has no searchable text field`);
  return entry[0];
}
