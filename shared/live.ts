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
