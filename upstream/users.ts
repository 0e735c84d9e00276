import type { Db } from './db.ts';

/** What the API shows of a user: never hashes, tokens or lockout counters. */
export interface PublicUser {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  country: string | null;
  language: string | null;
  is_active: boolean;
  profile_image: string | null;
  user_type: number;
  biography: string | null;
  social_security_number: string | null;
  roles: string[];
  account_status: string;
  invitation_status: string;
  invited_at: string | null;
  member_since: string | null;
  state: string | null;
  area: string | null;
  city: string | null;
  post_code: string | null;
  operational_range_id: number | null;
  /** An address the user asked to change to, until they confirm it. */
  pending_email: string | null;
  version: number;
  updated_at: string;
}

export const PUBLIC_USER_SQL = `
  select u.id, u.email, u.first_name, u.last_name, u.phone_number, u.country, u.language, u.is_active,
         u.profile_image, u.user_type, u.biography, u.social_security_number, u.account_status,
         u.invitation_status, u.invited_at, u.member_since, u.state, u.area, u.city, u.post_code,
         u.operational_range_id, u.pending_email, u.version, u.updated_at,
         coalesce((select array_agg(r.name order by r.name) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id), '{}') as roles
    from users u`;

/** The users list and the buddies choice list: no private details (social security number, address, biography). Its row is `t`, as the engine's search reads it. */
export const LIST_USER_SQL = `
  select t.id, t.email, t.first_name, t.last_name, t.phone_number, t.country, t.language, t.is_active,
         t.profile_image, t.user_type, t.account_status, t.invitation_status, t.invited_at, t.member_since,
         t.version, t.updated_at,
         coalesce((select array_agg(r.name order by r.name) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = t.id), '{}') as roles
    from users t`;

export type ListedUser = Omit<PublicUser, 'biography' | 'social_security_number' | 'state' | 'area' | 'city' | 'post_code' | 'operational_range_id' | 'pending_email'>;

export function toListedUser(row: Record<string, unknown>): ListedUser {
  return {
    ...(row as ListedUser),
    id: Number(row.id),
    roles: (row.roles as string[] | null) ?? [],
    invited_at: iso(row.invited_at),
    member_since: iso(row.member_since),
    updated_at: iso(row.updated_at)!,
  };
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'string' ? new Date(v).toISOString() : null);

export function toPublicUser(row: Record<string, unknown>): PublicUser {
  return {
    ...(row as unknown as PublicUser),
    id: Number(row.id),
    operational_range_id: row.operational_range_id === null ? null : Number(row.operational_range_id),
    roles: (row.roles as string[] | null) ?? [],
    invited_at: iso(row.invited_at),
    member_since: iso(row.member_since),
    updated_at: iso(row.updated_at)!,
  };
}

export async function findUser(db: Db, where: { id?: number; email?: string }): Promise<PublicUser | null> {
  const { rows } =
    where.id !== undefined
      ? await db.query(`${PUBLIC_USER_SQL} where u.id = $1`, [where.id])
      : await db.query(`${PUBLIC_USER_SQL} where lower(u.email) = lower($1)`, [where.email]);
  return rows[0] ? toPublicUser(rows[0]) : null;
}

export async function setUserRoles(db: Db, userId: number, roles: readonly string[]) {
  await db.query('delete from user_roles where user_id = $1', [userId]);
  if (roles.length === 0) return;
  await db.query('insert into user_roles (user_id, role_id) select $1, id from roles where name = any($2::text[]) on conflict do nothing', [userId, roles]);
}

/** Every unused invitation, reset and confirmation link of a user stops working. */
export async function revokeAccountLinks(db: Db, userId: number): Promise<void> {
  await db.query('update account_tokens set used_at = now() where user_id = $1 and used_at is null', [userId]);
}

/**
 * Serialises every change that could leave no Admin (role removal, deactivation): run it first inside the
 * transaction, so two Admins removing each other at once cannot both pass the check.
 */
export async function lockAdminSet(tx: Db): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtext('admin-set'))");
}

/**
 * Whether this user is the only active Admin — one who can sign in: active, holding Admin, and not a
 * pending or canceled invitation. Taking their Admin role or deactivating them would lock everyone out.
 */
export async function isLastActiveAdmin(tx: Db, userId: number): Promise<boolean> {
  const { rows } = await tx.query<{ target: boolean; others: number }>(
    `with admins as (
       select u.id from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id
        where r.name = 'Admin' and u.is_active and u.invitation_status not in ('pending', 'canceled'))
     select exists (select 1 from admins where id = $1) as target, (select count(*)::int from admins where id <> $1) as others`,
    [userId],
  );
  return Boolean(rows[0]?.target) && Number(rows[0]?.others ?? 0) === 0;
}
