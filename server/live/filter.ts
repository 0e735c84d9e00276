import { ENTITIES } from '../../shared/entities/registry.ts';
import { optionRoles } from '../../shared/entity/access-roles.ts';
import { isOwnerScoped, type EntityDef } from '../../shared/entity/define.ts';
import { isAccountEvent, type LiveChange, type LiveNotice } from '../../shared/live.ts';
import { hasAnyRole, type Role } from '../../shared/roles.ts';

export type { LiveNotice };

/** What a browser is told: which record of which entity changed, how, and by whom. Never the owners. */
export type BrowserEvent = LiveChange;

export interface Viewer {
  userId: number;
  roles: readonly Role[];
}

const BY_NAME = new Map((ENTITIES as readonly EntityDef[]).map((def) => [def.name, { def, readers: optionRoles(def) }]));

/**
 * Whether a change may reach a viewer: an Admin hears of every change; anyone else only of an entity their
 * roles may read (its screens' or choice lists' roles, as the API's read scopes), and of an owner-scoped
 * entity (services: their buddy) only when they own the record before or after the change. Account events
 * (sign-ins, failed sign-ins, sign-outs, resets) reach Admins only, whoever else may read the accounts.
 */
export function mayReceive(viewer: Viewer, notice: LiveNotice): boolean {
  if (viewer.roles.includes('Admin')) return true;
  // Someone's sign-in, failed sign-in (and so whether an address has an account), sign-out, reset: Admins' only (ADR 058).
  if (isAccountEvent(notice)) return false;
  const entity = BY_NAME.get(notice.entity);
  if (!entity || !hasAnyRole(viewer.roles, entity.readers)) return false;
  if (!isOwnerScoped(entity.def, viewer.roles)) return true;
  return notice.owner?.includes(viewer.userId) ?? false;
}

export function browserEventOf(notice: LiveNotice): BrowserEvent {
  return { id: notice.id, entity: notice.entity, record_id: notice.record_id, action: notice.action, user_id: notice.user_id };
}
