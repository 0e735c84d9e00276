import { isOwnerScoped, mayWrite, type EntityDef } from '../../shared/entity/define.ts';
import { fullName, useSession } from '../session.ts';

/**
 * What the signed-in user may do with an entity (ADR 009), from the same rules the API enforces.
 * Screens only follow them (hide what would be refused); the API decides.
 */
export function useAccess(def: EntityDef) {
  const { roles, user } = useSession();
  const userId = user?.id !== undefined && user?.id !== null ? Number(user.id) : null;
  return {
    roles,
    canCreate: mayWrite(def, 'create', roles),
    canUpdate: mayWrite(def, 'update', roles),
    canDelete: mayWrite(def, 'delete', roles),
    canTransition: mayWrite(def, 'transition', roles),
    /** The user sees and writes only records they own; the owner field is theirs and fixed. */
    ownerScoped: isOwnerScoped(def, roles),
    ownerField: def.access?.ownerField,
    userId,
    userLabel: fullName(user),
  };
}
