import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';
import { writableFields } from '../../shared/entity/define.ts';

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
    case 'reference':
      return null;
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

/** Values a field's kind alone cannot produce (cross-field checks with a format). */
const OVERRIDES: Record<string, Record<string, unknown>> = { bicycles: { year: '2024' } };

/** A valid create input for any entity, derived from its definition (dates and times ascending). */
export function sampleInput(def: EntityDef, seed: string): Record<string, unknown> {
  let dateIndex = 0;
  const values = Object.fromEntries(
    writableFields(def).map(([name, field]) => [name, sampleValue(name, field, seed, field.kind === 'date' || field.kind === 'time' || field.kind === 'datetime' ? dateIndex++ : 0)]),
  );
  return { ...values, ...OVERRIDES[def.name] };
}

/** A text field to search by and to change in an update. */
export function firstTextField(def: EntityDef): string {
  const entry = Object.entries(def.fields).find(([, f]) => f.kind === 'text' && f.searchable);
  if (!entry) throw new Error(`${def.name} has no searchable text field`);
  return entry[0];
}
