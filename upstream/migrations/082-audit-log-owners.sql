-- Live updates (ADR 037): who owns the changed record (the entity's `access.ownerField`, before and after
-- when it changed), so the back office can pass an event to its owners only, also when it replays missed
-- entries after a reconnect. Routing information, not history: it is not in the hash (ADR 035) and is
-- null for entities without an owner field.
alter table audit_log add column owners bigint[];
