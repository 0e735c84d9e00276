import { BUILT_IN_ROLES } from '../../shared/roles.ts';
import { ApiError } from '../lib/api-error.ts';
import type { EntityHandlersFactory } from './entity-resource.ts';

/**
 * The roles catalogue: the generic resource, except that the roles the access rules name keep their name
 * and cannot be deleted (a renamed Admin would sign every Admin in with no roles), and any change to a role
 * outdates the tokens of those holding it, as a role removal does (ADR 017, 028).
 */
export const handlers: EntityHandlersFactory = () => {
  const builtIn = () => new ApiError(409, 'built_in_role', undefined, { name: 'validation.builtInRole' });
  return {
    hooks: {
      async beforeWrite(input, { tx, current }) {
        if (!current) return;
        if (BUILT_IN_ROLES.includes(String(current.name)) && input.name !== current.name) throw builtIn();
        await tx.query('update users set session_version = session_version + 1 where id in (select user_id from user_roles where role_id = $1)', [current.id]);
      },
      async beforeDelete(current) {
        if (BUILT_IN_ROLES.includes(String(current.name))) throw builtIn();
      },
    },
  };
};
