-- The closed value sets of spec §3/§6/§9 as constraints, so no code path (or hand-written SQL) can store
-- a value the back office cannot display. NULL stays allowed where the column is nullable.

alter table users
  add constraint users_country_check check (country in ('gb', 'se')),
  add constraint users_language_check check (language in ('en', 'sv')),
  add constraint users_user_type_check check (user_type in (1, 2, 4, 5)),
  add constraint users_account_status_check check (account_status in ('active', 'inactive', 'pending')),
  add constraint users_invitation_status_check check (invitation_status in ('none', 'pending', 'accepted')),
  add constraint users_max_bicycles_check check (max_bicycles >= 0);

-- Expired and used one-time tokens and refresh tokens are swept by expiry.
create index account_tokens_expires_idx on account_tokens (expires_at);
create index refresh_tokens_expires_idx on refresh_tokens (expires_at);
