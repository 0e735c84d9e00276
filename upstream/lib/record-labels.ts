import { labelFields, labelSql, type EntityDef, type FieldDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { referenceLabelSql, sqlOf } from '../resources/entity-sql-parts.ts';
import { entityNamed as entityByName } from './entity-catalogue.ts';
import type { Lang } from './lang.ts';

/** The table a reference field points into. */
export function referenceTable(field: FieldDef): string {
  const target = entityByName(field.reference!.entity);
  if (!target) throw new Error(`a reference to ${field.reference!.entity}, which is no entity`);
  return target.table;
}
// A reference's label over the referenced row `r`: the referenced entity's label template (or the
// reference's shorter one) in the request's language, or an SQL expression of its own (a person's name).
export function labelExpression(field: FieldDef, lang: Lang): string {
  const reference = field.reference!;
  const template = reference.label ?? entityByName(reference.entity)?.label;
  if (!template) throw new Error(`the reference to ${reference.entity} needs a label`);
  return reference.sqlLabel ? referenceLabelSql(reference.entity) : labelSql(template, 'r', lang);
}

/** The labels of some records a reference field may point at, in a language (the change history's before and after). */
export async function referenceLabels(db: Db, field: FieldDef, ids: readonly number[], lang: Lang): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; label: string | null }>(
    `select r.id, ${labelExpression(field, lang)} as label from ${referenceTable(field)} r where r.id = any($1::bigint[])`,
    [[...ids]],
  );
  return new Map(rows.map((row) => [Number(row.id), row.label ?? String(row.id)]));
}

/**
 * The names of some records of one entity, as a reference to them reads (its SQL label where the server writes one,
 * `referenceLabel` in entity-sql-parts.ts: a user by their full name; else its label template), in a language: the Activity page names a record so rather than by its id (issue 33). An entity
 * whose label the SQL cannot read (a template over another record's label) gets none: the screens say `#id`.
 */
export async function recordLabels(db: Db, def: EntityDef, ids: readonly number[], lang: Lang): Promise<Map<number, string>> {
  const field: FieldDef = { kind: 'reference', reference: { entity: def.name, ...(sqlOf(def.name).referenceLabel ? { sqlLabel: true } : {}) } };
  try {
    labelExpression(field, lang);
  } catch {
    return new Map();
  }
  return referenceLabels(db, field, ids, lang);
}

/** A reference's label as a template of its entity's fields, or undefined when the label is SQL of its own (a person's name). */
export function labelTemplateOf(field: FieldDef): { target: EntityDef; template: string } | undefined {
  const reference = field.reference!;
  const target = entityByName(reference.entity);
  const template = reference.label ?? target?.label;
  return target && !reference.sqlLabel && template ? { target, template } : undefined;
}

/** The columns of the referenced row a reference's label reads: its template's fields, or the `r.<column>`s of its own SQL. */
export function labelColumns(field: FieldDef, lang: Lang): string[] {
  const label = labelTemplateOf(field);
  if (label) return labelFields(label.template);
  return [...new Set([...labelExpression(field, lang).matchAll(/\br\.([a-z_][a-z0-9_]*)/g)].map((m) => m[1]!))];
}
