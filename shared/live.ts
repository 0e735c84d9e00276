/** The back office's stream of changes for the signed-in user (ADR 037); `/events` is the Events screen. */
export const LIVE_PATH = '/live';

/** A change as the browser is told of it: which record of which entity, how, and by whom. */
export interface LiveChange {
  id: number;
  entity: string;
  record_id: number | null;
  action: string;
  user_id: number | null;
}

/** The window event the shell dispatches for each change (`detail`: a LiveChange), for screens showing one record. */
export const LIVE_CHANGE_EVENT = 'live-change';

/** A change as the API announces it to the back office (ADR 037): the browser's, and the record's owners (`access.ownerField`, before and after; null without one). Never more: it stays far below NOTIFY's 8000 bytes. */
export interface LiveNotice extends LiveChange {
  owner: number[] | null;
}

/**
 * The entity whose records are the accounts: a change of the viewer's own record (signed out elsewhere, a
 * password reset, a role taken, deactivated) makes each of their streams ask the API at once whether its
 * session still stands (ADR 037), and the account events are entries of its history (ADR 038).
 */
export const ACCOUNT_ENTITY = 'users';

/**
 * The account events of the accounts' history (ADR 038): sign-ins, failed sign-ins (with the address typed, and
 * whether an account has it), sign-outs, resets, invitations, e-mail and profile changes. They are the account
 * owner's and the Admins' business: a live update of one reaches Admins only (ADR 058), whoever else reads the
 * accounts (a buddy filling a buddy reference). `recordAccountEvent` takes only these names.
 */
export const ACCOUNT_EVENTS = [
  'sign_in',
  'sign_in_failed',
  'sign_out',
  'password_reset_requested',
  'password_reset',
  'invitation_accepted',
  'email_change_requested',
  'email_confirmed',
  'profile_update',
  // Second factors (ADR 068)
  'second_factor_failed',
  'factor_added',
  'factor_removed',
  'recovery_codes_generated',
  'session_ended',
  'second_factor_policy',
] as const;
export type AccountEvent = (typeof ACCOUNT_EVENTS)[number];

const ACCOUNT_EVENT_SET: ReadonlySet<string> = new Set(ACCOUNT_EVENTS);

/** Whether a change is an account event (ADR 058): an entry of the accounts' history that is not a write of the record. */
export const isAccountEvent = (change: Pick<LiveChange, 'entity' | 'action'>): boolean => change.entity === ACCOUNT_ENTITY && ACCOUNT_EVENT_SET.has(change.action);

/**
 * The account events nobody is known to have done (ADR 065): anyone can type an address into the sign-in or the
 * forgot-password form, so a failed sign-in or a reset request is about the account tried — in its history —
 * but never by its owner. They are recorded with no author, and read without one (older entries too).
 */
export const AUTHORLESS_ACCOUNT_EVENTS: readonly AccountEvent[] = ['sign_in_failed', 'password_reset_requested'];

/** Whether an entry has no author whatever its stored `user_id` says (ADR 065). */
export const isAuthorless = (change: Pick<LiveChange, 'entity' | 'action'>): boolean =>
  change.entity === ACCOUNT_ENTITY && (AUTHORLESS_ACCOUNT_EVENTS as readonly string[]).includes(change.action);
