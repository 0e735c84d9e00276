-- An e-mail change waits for the new address to be confirmed (account/change-email → account/confirm-email).
alter table users add column pending_email text;
