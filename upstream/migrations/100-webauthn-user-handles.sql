-- The WebAuthn user handle of each user with passkeys (issue 32, ADR 075). It was derived from the user's id and
-- the API's JWT secret, so rotating UPSTREAM_JWT_SECRET changed it and every passkey's returned handle stopped
-- matching. It is now a random value, made once per user when they first register a passkey, and kept here: no
-- secret it depends on, nothing about the user in it. A user whose passkeys predate this table gets the handle their
-- authenticator returns at their next verified passkey sign-in (or the old derivation, at their next registration).
-- A table of its own rather than a column of `users`: a handle is no field of the person, and a column there would
-- appear in the users' change history.
create table webauthn_user_handles (
  user_id bigint primary key references users (id) on delete cascade,
  handle bytea not null unique
);
