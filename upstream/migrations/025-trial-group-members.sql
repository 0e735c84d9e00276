-- Trial groups (ADR 014): members, and invitations that ride on the account invitation of 002.

create table trial_group_users (
  trial_group_id bigint not null references trial_groups (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  added_at timestamptz not null default now(),
  primary key (trial_group_id, user_id)
);
create index trial_group_users_user_idx on trial_group_users (user_id);

create table trial_group_invites (
  id bigserial primary key,
  trial_group_id bigint not null references trial_groups (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  email text not null,
  status text not null default 'invited' check (status in ('invited', 'registered')),
  invited_at timestamptz not null default now(),
  registered_at timestamptz,
  sent_count integer not null default 1,
  check ((status = 'registered') = (registered_at is not null))
);
-- One invitation per person and group: inviting again re-sends it.
create unique index trial_group_invites_group_user_key on trial_group_invites (trial_group_id, user_id);
create index trial_group_invites_user_idx on trial_group_invites (user_id) where status = 'invited';

-- Whichever way an invited person's account becomes accepted (the accept-invitation link today),
-- their trial-group invitations turn `registered` and they join those groups, in the same transaction.
create function trial_group_invites_register() returns trigger language plpgsql as $$
begin
  update trial_group_invites set status = 'registered', registered_at = now()
   where user_id = new.id and status = 'invited';
  insert into trial_group_users (trial_group_id, user_id)
    select trial_group_id, new.id from trial_group_invites where user_id = new.id
    on conflict do nothing;
  return new;
end
$$;

create trigger users_trial_group_registration
  after update of invitation_status on users
  for each row when (new.invitation_status = 'accepted' and old.invitation_status is distinct from 'accepted')
  execute function trial_group_invites_register();
