/** Role names as the upstream puts them in the access token's `scope` claim. */
export const ROLE = {
  Admin: 'Admin',
  Buddy: 'Buddy',
  Shop: 'Shop',
  /** Derived, never issued by the upstream: a user holding both Buddy and Shop. */
  BuddyShop: 'BuddyShop',
} as const;

export type Role = (typeof ROLE)[keyof typeof ROLE];

/**
 * The roles the app's access rules name (the route table, the API's guards): renaming or deleting one in the
 * roles catalogue would lock its holders out, so the API refuses both (409 `built_in_role`, ADR 028).
 */
export const BUILT_IN_ROLES: readonly string[] = Object.values(ROLE);

/** Only these scope entries are kept (spec §6); anything else in the token is ignored. */
export const WHITELISTED_ROLES: readonly Role[] = [ROLE.Admin, ROLE.Buddy, ROLE.Shop];

export function rolesFromScope(scope: unknown): Role[] {
  const raw = Array.isArray(scope) ? scope : typeof scope === 'string' ? scope.split(/[\s,]+/) : [];
  const kept = WHITELISTED_ROLES.filter((role) => raw.includes(role));
  if (kept.includes(ROLE.Buddy) && kept.includes(ROLE.Shop)) kept.push(ROLE.BuddyShop);
  return kept;
}

/** An entry with no required roles is open to every signed-in user with a whitelisted role. */
export function hasAnyRole(userRoles: readonly Role[], required: readonly Role[] | undefined): boolean {
  if (!required || required.length === 0) return userRoles.length > 0;
  return required.some((role) => userRoles.includes(role));
}

export function isExpired(exp: number | undefined, nowMs: number = Date.now()): boolean {
  return typeof exp !== 'number' || exp * 1000 <= nowMs;
}
