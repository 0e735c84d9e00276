import { BUILT_IN_ROLES, WHITELISTED_ROLES } from '../../shared/roles.ts';
import { ApiError } from '../lib/api-error.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';

/**
 * The roles catalogue: the generic resource, except that the roles the access rules name keep their name
 * and cannot be deleted (a renamed Admin would sign every Admin in with no roles), and any change to a role
 * outdates the tokens of those holding it, as a role removal does (ADR 017, 028).
 */
/** A name a built-in role has, in any case and spacing (ADR 058): no new role takes it, none is renamed to it. */
export const isReservedRoleName = (name: unknown) =>
  BUILT_IN_ROLES.some(
    (role) =>
      role.toLowerCase() ===
      String(name ?? '')
        .trim()
        .toLowerCase(),
  );

/** The roles the API issues (Admin, Buddy, Shop): they keep their name and row. BuddyShop is derived: only its name is reserved. */
const isLocked = (name: unknown) => (WHITELISTED_ROLES as readonly string[]).includes(String(name));

export const handlers: EntityHandlersFactory = () => {
  const builtIn = () => new ApiError(409, 'built_in_role', undefined, { name: 'validation.builtInRole' });
  const reserved = () => new ApiError(409, 'built_in_role', undefined, { name: 'validation.reservedRole' });
  return {
    hooks: {
      async beforeWrite(input, { tx, current }) {
        const renamed = input.name !== undefined && input.name !== current?.name;
        if (current && isLocked(current.name) && renamed) throw builtIn();
        // A new role, or a rename, may not take a built-in name (a `buddyshop` row would be locked for ever).
        if ((!current || renamed) && isReservedRoleName(input.name)) throw reserved();
        if (!current) return;
        await tx.query('update users set session_version = session_version + 1 where id in (select user_id from user_roles where role_id = $1)', [current.id]);
      },
      async beforeDelete(current) {
        if (isLocked(current.name)) throw builtIn();
      },
    },
  };
};
