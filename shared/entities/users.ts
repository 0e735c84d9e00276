import { descriptionField } from '../entity/fields.ts';
import { defineEntity, type ItemOf } from '../entity/define.ts';
import { LANGUAGES } from '../languages.ts';
import { ROLE } from '../roles.ts';

export const USER_TYPES = [1, 2, 4, 5] as const;
export const ACCOUNT_STATUSES = ['active', 'inactive', 'pending'] as const;
export const INVITATION_STATUSES = ['none', 'pending', 'accepted', 'canceled'] as const;
/** Countries of an address (§3), as `shared/schemas/common.ts` names them. */
const COUNTRIES = ['gb', 'se'] as const;

/** The address an erased person's row keeps (ADR 076): unique, and no mail can reach it. */
export const erasedEmail = (id: number) => `erased+${id}@invalid`;
/** Whether a user's row is an erased person's tombstone. */
export const isErased = (r: Record<string, unknown>) => typeof r.email === 'string' && /^erased\+\d+@invalid$/.test(r.email);

/** Resend: a pending invitation, or a canceled one of an active account (which re-opens it). */
const canResend = (r: Record<string, unknown>) => r.invitation_status === 'pending' || (r.invitation_status === 'canceled' && r.is_active === true);

/**
 * §3 Users: the marketplace's accounts (admins, buddies, shops, customers). Created by invitation (an
 * action), never deleted (deactivated); e-mail, password and roles have flows of their own. Their reads and
 * their update are served by `upstream/resources/users.ts` itself (the table holds credentials, the list
 * filters by role through a join: ADR 034); everything else comes from this definition.
 */
export const usersEntity = defineEntity({
  name: 'users',
  updateOnly: true,
  defaultSort: '-id',
  label: '{email}',
  screen: {
    list: '/users',
    detail: '/users/:id',
    roles: [ROLE.Admin, ROLE.BuddyShop],
    detailRoles: [ROLE.Admin],
    sidebar: { group: 'people', icon: 'people', order: 140 },
    pages: { list: 'client/pages/users-page.tsx', detail: 'client/pages/user-page.tsx' },
  },
  access: { update: ['Admin'] },
  // A user is a person: their personal fields go into the history sealed under their own key (ADR 076).
  person: true,
  // The list's search reads the e-mail, the phone number and the full name; a few hundred names repeat over
  // the accounts, so the name is read through its terms (migration 089), a short text through bigrams (092).
  // Its SQL, the users' reference label and which users hold a role are the server's (entity-sql-parts.ts, ADR 072).
  searchExpressions: { full_name: { valuesRepeat: true, shortSearch: true } },
  fields: {
    email: { kind: 'email', required: true, readOnly: true, personal: true, searchable: true, shortSearch: true, sortable: true, list: true },
    first_name: { kind: 'text', max: 80, personal: true, sortable: true, list: true },
    last_name: { kind: 'text', max: 80, personal: true, sortable: true, list: true },
    phone_number: { kind: 'text', max: 40, personal: true, searchable: true, shortSearch: true, list: true },
    country: { kind: 'enum', options: COUNTRIES },
    language: { kind: 'enum', options: LANGUAGES },
    is_active: { kind: 'boolean', default: true },
    profile_image: { kind: 'image', uploadKind: 'user_profile_picture', personal: true },
    user_type: { kind: 'enum', required: true, options: USER_TYPES, default: 1, filter: true },
    biography: descriptionField(2000, { personal: true }),
    // Never written to the change history (ADR 035): a national id is not kept beyond the record itself.
    social_security_number: { kind: 'text', max: 20, secret: true },
    state: { kind: 'text', max: 80, personal: true },
    area: { kind: 'text', max: 80, personal: true },
    city: { kind: 'text', max: 80, personal: true },
    post_code: { kind: 'text', max: 20, personal: true },
    operational_range_id: { kind: 'reference', readOnly: true, reference: { entity: 'operational-ranges' } },
    account_status: { kind: 'enum', required: true, readOnly: true, options: ACCOUNT_STATUSES, filter: true, list: true },
    invitation_status: { kind: 'enum', required: true, readOnly: true, options: INVITATION_STATUSES, filter: true, list: true },
    invited_at: { kind: 'datetime', readOnly: true, sortable: true },
    member_since: { kind: 'datetime', readOnly: true, sortable: true, list: true },
  },
  actions: {
    /** A pending account with its roles, and the mail with its 7-day link (§7). */
    invite: {
      on: 'collection',
      roles: ['Admin'],
      input: {
        email: { kind: 'email', required: true, personal: true },
        first_name: { kind: 'text', max: 80, personal: true },
        last_name: { kind: 'text', max: 80, personal: true },
        user_type: { kind: 'enum', options: USER_TYPES },
        language: { kind: 'enum', options: LANGUAGES },
        roles: { kind: 'text', max: 50, many: 10 },
      },
    },
    /** One address or a comma-separated list (§5), each invited on its own: a result per address. */
    bulkInvite: {
      on: 'collection',
      roles: ['Admin'],
      result: 'none',
      input: { emails: { kind: 'text', required: true, max: 20_000, multiline: true }, roles: { kind: 'text', max: 50, many: 10 } },
    },
    /** A new link (the previous ones stop working); re-opens a canceled invitation of an active account. */
    resendInvite: { roles: ['Admin'], confirm: true, inList: true, enabledWhen: canResend, textContext: (r) => (r.invitation_status === 'canceled' ? 'reopen' : undefined) },
    /** The invitation's links stop working and it can no longer be accepted (ADR 018). */
    cancelInvite: { roles: ['Admin'], confirm: true, danger: true, inList: true, enabledWhen: (r) => r.invitation_status === 'pending' },
    /** The operational range is assigned and removed on its own, like roles (§2 user details). */
    setOperationalRange: {
      roles: ['Admin'],
      path: 'operational-range',
      button: false,
      input: { operational_range_id: { kind: 'reference', reference: { entity: 'operational-ranges' } } },
    },
    /**
     * Everything stored about the person (GDPR Art. 15, 20: ADR 076) as one file the browser saves: their rows in
     * every table that refers to them and their history with its personal values opened. Itself a history entry.
     */
    exportData: {
      roles: ['Admin'],
      path: 'export',
      result: 'file',
      input: { format: { kind: 'enum', required: true, options: ['json', 'csv'] } },
      variants: { json: { format: 'json' }, csv: { format: 'csv' } },
      enabledWhen: (r) => !isErased(r),
    },
    /**
     * GDPR Art. 17 (ADR 076): the person's row becomes a tombstone, everything else of theirs is deleted and
     * their key of the history is destroyed. Cannot be undone: the dialog asks for their e-mail typed.
     */
    erase: { roles: ['Admin'], confirm: true, danger: true, confirmTyped: 'email', result: 'record', enabledWhen: (r) => !isErased(r) },
  },
  /**
   * The account events' own fields (ADR 038, 065): how one signed in ("Signed in with password"), the address a
   * failed sign-in tried and how many failures it is, the new address of an e-mail change.
   */
  history: {
    fields: {
      method: { kind: 'enum', options: ['password', 'google', 'passkey'] },
      email: { kind: 'email', personal: true },
      failures: { kind: 'integer' },
      address_failures: { kind: 'integer' },
      pending_email: { kind: 'email', personal: true },
    },
    context: { sign_in: 'method' },
  },
  subResources: {
    /** A role change ends the user's tokens at once (ADR 017); the last active Admin keeps the Admin role (ADR 018). */
    roles: { key: 'name', item: { name: { kind: 'text', required: true } }, add: { role: { kind: 'text', required: true, max: 50 } }, remove: true, writeRoles: ['Admin'] },
    languages: {
      item: { name: { kind: 'text', required: true } },
      add: { language_id: { kind: 'reference', required: true, reference: { entity: 'languages' } } },
      remove: true,
      writeRoles: ['Admin'],
    },
    competencies: {
      item: { name: { kind: 'text', required: true } },
      add: { competence_id: { kind: 'reference', required: true, reference: { entity: 'competencies' } } },
      remove: true,
      writeRoles: ['Admin'],
    },
  },
});

/**
 * A user as the API answers it, derived from the definition (ADR 073): its declared fields (and the operational
 * range's label), its roles and an e-mail change waiting for confirmation. Never a credential: the API reads
 * declared columns only.
 */
export type UserRecord = Omit<ItemOf<typeof usersEntity.fields>, 'is_active'> & {
  id: number;
  version: number;
  updated_at: string;
  /** Never null: the column has its default. */
  is_active: boolean;
  roles: string[];
  pending_email?: string | null;
};

/** What the users list leaves out of a user: the private details (ADR 034). */
export type PrivateUserField = 'biography' | 'social_security_number' | 'state' | 'area' | 'city' | 'post_code' | 'operational_range_id' | 'operational_range_id_label';

/** A row of the users list: the list's columns only, never private details (the upstream projects them). */
export type UserListRow = Omit<UserRecord, PrivateUserField>;

/** A user's page: the user with their languages and competencies. */
export type UserDetail = UserRecord & { languages: { id: number; name: string }[]; competencies: { id: number; name: string }[] };
