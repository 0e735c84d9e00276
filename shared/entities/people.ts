import type { FieldDef } from '../entity/define.ts';

/** A referenced user's label in SQL over the user row `r`: their full name, or their e-mail without one. */
export const USER_FULL_NAME_SQL = "coalesce(nullif(trim(concat_ws(' ', r.first_name, r.last_name)), ''), r.email)";

/** A reference to any user, labelled by name. */
export const USER_REFERENCE: NonNullable<FieldDef['reference']> = { entity: 'users', label: 'email', labelSql: USER_FULL_NAME_SQL };

/** A reference to a buddy: choices and accepted values are active users holding the Buddy role (§3). */
export const BUDDY_REFERENCE: NonNullable<FieldDef['reference']> = { ...USER_REFERENCE, role: 'Buddy' };
