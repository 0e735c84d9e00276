import type { EntityDef } from './define.ts';

/**
 * Who may read a record's change history (ADR 036): an Admin; on an entity whose definition names an owner
 * field, also the record's owner (a buddy their own services). Without a record: whether anyone but an
 * Admin could (the API checks the record's owner). Its own module, so the first load of a page without the
 * History tab does not carry it.
 */
export function mayReadHistory(def: EntityDef, roles: readonly string[], record?: Record<string, unknown>, userId?: number | null): boolean {
  if (roles.includes('Admin')) return true;
  const ownerField = def.access?.ownerField;
  if (!ownerField) return false;
  return record === undefined || (userId !== null && userId !== undefined && Number(record[ownerField]) === userId);
}
