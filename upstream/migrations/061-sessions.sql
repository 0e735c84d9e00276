-- One row per sign-in (a refresh-token family): access tokens name it (`sid`), and every authenticated
-- request checks it is not revoked, its user is active and the user's session version (`sv`) is the one
-- the token was issued under (ADR 017). `created_at` bounds the session's absolute lifetime.
create table sessions (
  id text primary key,
  user_id bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index sessions_user_idx on sessions (user_id);
create index sessions_created_idx on sessions (created_at);

-- Role changes and deactivation bump it: tokens issued before carry an older `sv` and are refused.
alter table users add column session_version integer not null default 1;

-- Families issued before this migration become sessions, so nobody is signed out by the upgrade.
insert into sessions (id, user_id, created_at, revoked_at)
select family_id, min(user_id), min(created_at), case when bool_and(revoked_at is not null) then max(revoked_at) end
  from refresh_tokens group by family_id;

alter table refresh_tokens add constraint refresh_tokens_session_fkey foreign key (family_id) references sessions (id) on delete cascade;
