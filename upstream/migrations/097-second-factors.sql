-- Second factors for staff (issue 32, ADR 068).
--
-- * `user_factors`: a user's authenticator apps (TOTP) and passkeys. A TOTP secret is stored sealed
--   (AES-GCM under a key derived from the API's secret): it must be read back to check a code, so it cannot
--   be hashed. `confirmed_at` is null while an enrolment waits for its first code; `last_step` is the time
--   step of the last code accepted, so a code is never accepted twice.
-- * `recovery_codes`: one-time codes, stored as SHA-256 hashes (they are random, 50 bits each); `used_at`
--   marks the one used, in the statement that accepts it.
-- * `sessions` learn where they were opened (address, browser) and when they were last used (the sessions
--   page). Columns without a default: no table rewrite.
create table user_factors (
  id bigserial primary key,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null check (kind in ('totp', 'passkey')),
  name text,
  secret text,
  last_step bigint,
  credential_id text,
  public_key text,
  sign_count bigint not null default 0,
  transports text[],
  created_at timestamptz not null default now(),
  confirmed_at timestamptz,
  last_used_at timestamptz
);
create index user_factors_user_idx on user_factors (user_id);
create unique index user_factors_one_totp on user_factors (user_id) where kind = 'totp';
create unique index user_factors_credential on user_factors (credential_id) where credential_id is not null;

create table recovery_codes (
  id bigserial primary key,
  user_id bigint not null references users (id) on delete cascade,
  code_hash text not null,
  created_at timestamptz not null default now(),
  used_at timestamptz
);
create index recovery_codes_user_idx on recovery_codes (user_id, code_hash);

alter table sessions add column user_agent text, add column ip text, add column last_seen_at timestamptz;
