/**
 * Error codes the upstream puts in `error.message`, with the English text it puts in
 * `error.cause` (spec §8). The back-office translates codes it knows; the cause is the fallback.
 */
export const ERROR_TEXT = {
  wrong_password: 'Wrong Password',
  user_does_not_exist: 'User does not exist',
  token_does_not_exist: 'Provided token does not exist',
  user_exists: 'User already exists',
  max_bicycles_added: 'User reached maximum number of bicycles',
  passwords_do_not_match: 'Passwords do not match.',
  validation_error: 'Some fields are not valid.',
  unauthorized: 'Authentication credentials were not provided or are invalid.',
  token_expired: 'Access token has expired.',
  invalid_refresh_token: 'Refresh token is invalid or expired.',
  forbidden: 'You do not have permission to perform this action.',
  account_inactive: 'This account is deactivated.',
  not_found: 'Not found.',
  conflict: 'The record was changed by someone else.',
  too_many_attempts: 'Too many failed sign-in attempts. Try again later.',
  too_many_requests: 'Too many requests. Try again later.',
  session_ended: 'The session has ended. Please sign in again.',
  last_admin: 'The last active Admin cannot lose the Admin role or be deactivated.',
  erase_self: 'You cannot erase your own account.',
  already_erased: 'This person has already been erased.',
  built_in_role: 'The built-in roles (Admin, Buddy, Shop, BuddyShop) cannot be renamed or deleted.',
  invitation_not_pending: 'This invitation is no longer pending.',
  invalid_upload: 'Only JPEG and PNG images are accepted.',
  upload_too_large: 'The file is too large.',
  invalid_signature: 'The upload address is invalid or has expired.',
  upload_quota: 'Too many uploads in the last hour. Try again later.',
  upload_quota_bytes: 'You have uploaded as much as is allowed for today. Try again tomorrow.',
  invalid_google_token: 'The Google sign-in could not be verified.',
  internal_error: 'Something went wrong, please contact our support.',
  database_unavailable: 'The database is unavailable for a moment. Please try again shortly.',
  invalid_transition: 'This status change is not allowed.',
  action_not_allowed: 'The record does not allow this action now.',
  buddy_not_scheduled: 'The bike buddy does not work in this slot on this day.',
  buddy_not_working: 'The bike buddy is not working in this slot on this day.',
  slot_full: 'This slot is fully booked for the bike buddy on this day.',
  day_full: 'The bike buddy has reached their maximum number of services for this day.',
  has_bookings: 'Services are booked in this slot. Move or cancel them first.',
  finish_before_date: 'A service cannot be finished before its date.',
  final_service_fixed: 'A finished or canceled service keeps its bike buddy, date and slot.',
  service_not_booked: 'Details can only be recorded while the service is booked.',
  invalid_address: 'Please enter a valid address.',
  idempotency_in_progress: 'A request with this Idempotency-Key is still being processed.',
  idempotency_key_reused: 'This Idempotency-Key was used for another request.',
  wrong_code: 'The code is not valid.',
  second_factor_expired: 'The sign-in took too long. Please sign in again.',
  second_factor_enrolment_required: 'Set up a second factor before using the app.',
  second_factor_required: 'Your role requires a second factor: it cannot be removed.',
  factor_exists: 'This second factor is already set up.',
  factor_not_started: 'Start setting up the authenticator app first.',
  passkey_invalid: 'The passkey could not be verified.',
  fresh_proof_required: 'Confirm it is you: give your password, a code or a passkey with this change.',
  fresh_proof_invalid: 'The password is not right.',
} as const;

export type ErrorCode = keyof typeof ERROR_TEXT;

/**
 * Codes whose text must not reveal which part of the credentials was wrong (spec §8). The reference API
 * answers `wrong_password` for both; the back office turns either into that one code (ADR 018).
 */
export const CREDENTIAL_ERROR_CODES: readonly string[] = ['wrong_password', 'user_does_not_exist'];
/** The one answer to a failed sign-in, whatever was wrong: unknown address, wrong password, no password yet. */
export const INVALID_CREDENTIALS = { status: 400, code: 'wrong_password', text: 'Invalid credentials.' } as const;
