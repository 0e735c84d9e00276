import { ENTITIES } from '../entities/registry.ts';
import { rolesOf } from '../route-table.ts';
import type { Role } from '../roles.ts';
import { readThroughRoles, writeRoles, type EntityDef, type WriteAction } from './define.ts';

export { readThroughRoles };

/**
 * Who may do what with an entity, derived from its §2 route and its access rules (ADR 009). The back
 * office guards its procedures with these; the upstream guards its REST resource with the same sets.
 */

/** Roles of the entity's route that may also perform a write; never empty. */
export function writeProcedureRoles(def: EntityDef, action: WriteAction): readonly Role[] {
  const allowed = writeRoles(def, action) as readonly string[];
  const roles = rolesOf(def.route).filter((role) => allowed.includes(role));
  if (roles.length === 0) throw new Error(`${def.name}: no role of ${def.route} may ${action}`);
  return roles;
}

/**
 * Who may read an entity's choice list: its own route's roles, plus whoever may fill in or filter by a
 * field referencing it elsewhere (a buddy filling in a work slot chooses a service slot).
 */
export function optionRoles(def: EntityDef): readonly Role[] {
  const roles = new Set<Role>([...rolesOf(def.route), ...(def.access?.alsoReadBy ?? [])]);
  for (const other of ENTITIES as readonly EntityDef[]) {
    for (const field of Object.values(other.fields)) {
      if (field.reference?.entity !== def.name) continue;
      const filling = field.readOnly || other.readOnly ? [] : [...writeProcedureRoles(other, 'create'), ...writeProcedureRoles(other, 'update')];
      const filtering = field.filter && !field.filterHidden ? rolesOf(other.route) : [];
      for (const role of [...filling, ...filtering]) roles.add(role);
    }
  }
  return [...roles];
}

/**
 * The token scopes the upstream lets read an entity (list, record, calendar, export): everyone the back
 * office lets read it or choose it. BuddyShop is not a scope of its own (a holder of Buddy and Shop): it
 * reads as Shop, which every BuddyShop holds.
 */
export function upstreamReadScopes(def: EntityDef): string[] {
  const scopes = new Set<string>();
  for (const role of optionRoles(def)) scopes.add(role === 'BuddyShop' ? 'Shop' : role);
  return [...scopes].sort();
}

/**
 * Who may read one record and its sub-resources in the back office: the roles of the record's page (else the
 * list's), plus the roles that read some records through records they own (`access.readThrough`, ADR 044) —
 * the API answers them only for the records they reach.
 */
export function recordReadRoles(def: EntityDef): readonly Role[] {
  return [...new Set<Role>([...rolesOf(def.detailRoute ?? def.route), ...readThroughRoles(def)])];
}
