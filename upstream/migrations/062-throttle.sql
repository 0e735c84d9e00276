-- Counters of sign-in failures and password-reset requests, per client address and per address+account
-- (ADR 018). In the database so every API instance sees the same counts; swept a day after last use.
create table throttle (
  scope text not null,
  key text not null,
  count integer not null default 0,
  first_at timestamptz not null default now(),
  last_at timestamptz not null default now(),
  primary key (scope, key)
);
create index throttle_last_idx on throttle (last_at);

-- The hard account lockout is gone: anyone could lock anyone out with five wrong passwords.
alter table users drop column failed_logins, drop column locked_until;
