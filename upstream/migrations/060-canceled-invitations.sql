-- An invitation can be canceled (by an Admin, or by deactivating the account): its links stop working and
-- accepting it is refused (ADR 018).
alter table users drop constraint users_invitation_status_check;
alter table users add constraint users_invitation_status_check check (invitation_status in ('none', 'pending', 'accepted', 'canceled'));
