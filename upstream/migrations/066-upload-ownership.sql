-- Uploads (ADR 020). Who asked for each signed address (the per-user quota, and profile pictures only from
-- the person's own uploads or their admin's), and when the address was used: claimed in one statement, so
-- of two PUTs racing with the same URL exactly one writes.
alter table uploads add column created_by bigint references users (id) on delete set null;
alter table uploads add column used_at timestamptz;
update uploads set used_at = uploaded_at where uploaded_at is not null;
create index uploads_created_by_idx on uploads (created_by, created_at);
create index uploads_created_at_idx on uploads (created_at);

-- Issue 12 M6: a profile picture is a finished upload of ours or nothing. Values stored before that rule
-- (`javascript:`, `data:`, other sites) are removed, so no saved record holds what its form would refuse.
update users
   set profile_image = null, version = version + 1, updated_at = now()
 where profile_image is not null
   and not exists (
     select 1 from uploads u
      where u.kind = 'user_profile_picture' and u.uploaded_at is not null
        and u.key = substring(users.profile_image from '^https?://[^/?#@[:space:]]+/files/(user_profile_picture/[0-9a-f-]{36}\.(?:jpg|png))$'));
