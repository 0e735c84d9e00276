-- Accounts, sessions, mail and uploads of the reference marketplace API.

create table settings (
  key text primary key,
  value text not null
);

create table users (
  id bigserial primary key,
  email text not null,
  password_hash text,
  first_name text,
  last_name text,
  phone_number text,
  country text,
  language text,
  is_active boolean not null default true,
  profile_image text,
  user_type smallint not null default 1,
  biography text,
  social_security_number text,
  account_status text not null default 'active',
  invitation_status text not null default 'none',
  invited_at timestamptz,
  member_since timestamptz,
  email_confirmed_at timestamptz,
  state text,
  area text,
  city text,
  post_code text,
  operational_range_id bigint references operational_ranges (id) on delete set null,
  max_bicycles integer not null default 3,
  failed_logins integer not null default 0,
  locked_until timestamptz,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));
create index users_last_name_idx on users (last_name, id);
create index users_member_since_idx on users (member_since, id);

create table user_roles (
  user_id bigint not null references users (id) on delete cascade,
  role_id bigint not null references roles (id) on delete restrict,
  primary key (user_id, role_id)
);
create index user_roles_role_idx on user_roles (role_id, user_id);

create table account_tokens (
  id bigserial primary key,
  user_id bigint not null references users (id) on delete cascade,
  kind text not null check (kind in ('invite', 'reset', 'confirm')),
  token_hash text not null unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index account_tokens_user_idx on account_tokens (user_id, kind);

create table refresh_tokens (
  id bigserial primary key,
  user_id bigint not null references users (id) on delete cascade,
  family_id text not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  rotated_at timestamptz,
  revoked_at timestamptz,
  grace_payload text
);
create index refresh_tokens_family_idx on refresh_tokens (family_id);
create index refresh_tokens_user_idx on refresh_tokens (user_id);

create table outbox (
  id bigserial primary key,
  to_email text not null,
  kind text not null,
  subject text not null,
  body text not null,
  link text,
  created_at timestamptz not null default now()
);
create index outbox_to_idx on outbox (lower(to_email), id);

create table uploads (
  key text primary key,
  kind text not null,
  content_type text not null,
  size integer,
  created_at timestamptz not null default now(),
  uploaded_at timestamptz
);

create table promo_code_uses (
  promo_code_id bigint not null references promo_codes (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  used_at timestamptz not null default now(),
  primary key (promo_code_id, user_id)
);
