import type { FieldDef } from '../entity/define.ts';

/**
 * A referenced user's label in SQL over the user row `r`: their full name, or their e-mail without one.
 * Written with `||` (immutable; `concat_ws` is not) so that migration 053 can index it for searches.
 */
export const USER_FULL_NAME_SQL = "coalesce(nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), ''), r.email)";

/** A reference to any user, labelled by name. */
export const USER_REFERENCE: NonNullable<FieldDef['reference']> = { entity: 'users', label: '{email}', labelSql: USER_FULL_NAME_SQL };

/** A reference to a buddy: choices and accepted values are active users holding the Buddy role (§3). */
export const BUDDY_REFERENCE: NonNullable<FieldDef['reference']> = { ...USER_REFERENCE, role: 'Buddy' };
