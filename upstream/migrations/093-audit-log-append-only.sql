-- The change history cannot be rewritten by the API's own role (ADR 059). Before this, anyone with the
-- API's database access could back-date an entry so that the hourly pruning removed it and the entries
-- before it behind a checkpoint signed with the real key, or delete the newest entries (nothing after them
-- pointed back) and let the next write take their ids again.
--
-- * `audit_head`: one row, the newest entry's id and hash. Kept by the insert trigger below, so a writer
--   reads it (locked: `select … for update` is the chain's lock, taken and read in one statement) instead of
--   the table's max(id): ids follow the head, never max(id)+1, so ids removed from the tail are not reused,
--   and the verifier reads a head beyond the last entry as the entries after it removed.
-- * Entries are never updated or truncated; they are deleted only up to a checkpoint already written
--   (pruning writes its checkpoint first, then deletes): removing entries leaves a checkpoint that, without
--   AUDIT_KEY, does not verify. Checkpoints are never updated or deleted. The head only moves forward.
-- A table owner or superuser can still drop these triggers: the chain's hashes and the head kept outside
-- the database (AUDIT_HEAD_FILE) show what they did then.
create table audit_head (
  one boolean primary key default true check (one),
  last_id bigint not null,
  last_hash text
);
insert into audit_head (last_id, last_hash)
select coalesce(max(id), 0), (select hash from audit_log order by id desc limit 1) from audit_log;

create function audit_log_append() returns trigger language plpgsql as $$
begin
  update audit_head set last_id = new.id, last_hash = new.hash where last_id = new.id - 1;
  if not found then
    raise exception 'the change history is append-only: entry % does not follow the newest entry', new.id using errcode = 'integrity_constraint_violation';
  end if;
  return null;
end $$;
create trigger audit_log_append after insert on audit_log for each row execute function audit_log_append();

create function audit_refuse() returns trigger language plpgsql as $$
begin
  raise exception 'the change history is append-only: % on % is refused', tg_op, tg_table_name using errcode = 'insufficient_privilege';
end $$;
create trigger audit_log_no_update before update or truncate on audit_log for each statement execute function audit_refuse();
create trigger audit_checkpoints_no_change before update or delete or truncate on audit_checkpoints for each statement execute function audit_refuse();
create trigger audit_head_no_removal before delete or truncate on audit_head for each statement execute function audit_refuse();

create function audit_log_prune_only() returns trigger language plpgsql as $$
begin
  if exists (select 1 from removed where removed.id > coalesce((select max(up_to_id) from audit_checkpoints), 0)) then
    raise exception 'the change history is append-only: entries are removed only behind a checkpoint' using errcode = 'insufficient_privilege';
  end if;
  return null;
end $$;
create trigger audit_log_prune_only after delete on audit_log referencing old table as removed for each statement execute function audit_log_prune_only();

create function audit_head_forward() returns trigger language plpgsql as $$
begin
  if new.last_id <= old.last_id then
    raise exception 'the change history is append-only: its head moves forward only' using errcode = 'insufficient_privilege';
  end if;
  return new;
end $$;
create trigger audit_head_forward before update on audit_head for each row execute function audit_head_forward();
