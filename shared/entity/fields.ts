import { defineEntity, type EntityScreen, type FieldDef } from './define.ts';

/**
 * Field shapes many definitions share, so that a catalogue reads as what it is: `name: nameField(80, { unique: true })`.
 * Plain objects with literal types, as if written out (the derived router types read them).
 */

/** A required, searchable and sortable text shown as a list column: a record's name or code. */
export function nameField<const M extends number, const E extends Partial<FieldDef> = Record<never, never>>(max: M, extra?: E) {
  return { kind: 'text', required: true, max, searchable: true, sortable: true, list: true, ...(extra as E) } as const;
}

/** An optional text of several lines: a description, notes. */
export function descriptionField<const M extends number, const E extends Partial<FieldDef> = Record<never, never>>(max: M, extra?: E) {
  return { kind: 'text', max, multiline: true, ...(extra as E) } as const;
}

/**
 * A catalogue of names (bicycle types, competencies, operational ranges): a unique name of up to 80
 * characters, with a description of up to 500 unless `description: false`, labelled and sorted by name.
 */
export function namedCatalogue<const N extends string>(name: N, screen: EntityScreen, { description = true }: { description?: boolean } = {}) {
  const named = { name: nameField(80, { unique: true }) };
  return defineEntity({ name, screen, label: '{name}', fields: description ? { ...named, description: descriptionField(500, { list: true }) } : named });
}
