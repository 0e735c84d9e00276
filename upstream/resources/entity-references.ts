import type { FieldDef, EntityRecord } from '../../shared/entity/define.ts';
import { writableFields } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';
import { entityNamed as entityByName } from '../lib/entity-catalogue.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import type { Resource } from './entity-resource-types.ts';
import { sqlOf } from './entity-sql-parts.ts';

// The reference checks of a write (ADR 041, 020): a role's holders, an active record, an uploaded image.

/**
 * The references and images of a write: a reference that names a role (a service's buddy) takes only active
 * users holding it, a reference to an entity with an `activeField` only active records (ADR 041), an image
 * field only files our upload endpoint stored (ADR 020); a value kept from before is left alone, so a buddy
 * who lost the role or a service type made inactive does not block edits of the records that have them.
 */
export async function checkReferences(r: Resource, tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
  await checkReferenceValues(r, tx, input, current);
  for (const [key, field] of writableFields(r.def)) {
    if (field.kind === 'image' && field.uploadKind) await checkUploadedImage(tx, r.config, input[key], { field: key, kind: field.uploadKind, current: current?.[key] ?? null });
  }
}

/** The reference values among `input` (`checkReferences`): a role's holders, an active record. */
export async function checkReferenceValues(r: Resource, tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
  for (const [key, field] of Object.entries(r.def.fields)) {
    if (field.kind !== 'reference' || field.lookup) continue;
    const value = input[key];
    if (value === null || value === undefined || (current && Number(current[key]) === Number(value))) continue;
    const reference = field.reference!;
    const refused = reference.role ? !(await holdsRole(tx, reference, Number(value))) : !(await isActive(tx, reference, Number(value)));
    if (refused) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.option' });
  }
}

/** Does the referenced record hold the reference's role (its entity's `roleHolders`)? */
async function holdsRole(tx: Db, reference: NonNullable<FieldDef['reference']>, id: number): Promise<boolean> {
  const target = entityByName(reference.entity);
  const roleHolders = sqlOf(reference.entity).roleHolders;
  if (!target || !roleHolders) throw new Error(`a reference naming a role needs the roleHolders SQL of ${reference.entity} (entity-sql-parts.ts)`);
  const { rows } = await tx.query(`select 1 from ${target.table} r where r.id = $1 and ${roleHolders}`, [id, reference.role]);
  return rows.length > 0;
}

/**
 * Is the referenced record offered (its entity's `activeField` holds)? True for an entity without one, and for
 * a record that is not there (the foreign key answers for that).
 */
async function isActive(tx: Db, reference: NonNullable<FieldDef['reference']>, id: number): Promise<boolean> {
  const target = entityByName(reference.entity);
  if (!target?.activeField) return true;
  const { rows } = await tx.query<{ active: boolean }>(`select r.${target.activeField} as active from ${target.table} r where r.id = $1`, [id]);
  return rows[0]?.active !== false;
}
