-- Pruning the change history through a function the API may call, not by deleting (ADR 067). Where the API
-- runs as a role that does not own the tables (PostgreSQL with API_DATABASE_URL, `npm run migrate`), that role
-- has no delete (nor update, truncate) on audit_log or audit_checkpoints: it removes entries only through
-- this function, which runs as the tables' owner. It removes only the entries behind the newest checkpoint
-- (which the API writes first, signed with AUDIT_KEY, in the same transaction), and only when they still
-- form the chain that checkpoint names: ids without gaps, each entry's prev_hash the hash before it, and the
-- last one's hash the checkpoint's. The hashes themselves are keyed (AUDIT_KEY), which the database never
-- holds: the API verifies them before it writes the checkpoint (ADR 059); this is the part the database can
-- check. Answers how many entries it removed. The triggers of migration 093 still apply.
create function audit_prune_to_checkpoint() returns bigint
language plpgsql security definer set search_path = pg_catalog, public, pg_temp as $$
declare
  cp record;
  first_id bigint;
  n bigint;
  broken bigint;
begin
  select up_to_id, up_to_hash into cp from audit_checkpoints order by up_to_id desc, id desc limit 1;
  if cp is null then
    return 0;
  end if;
  select min(id), count(*) into first_id, n from audit_log where id <= cp.up_to_id;
  if n = 0 then
    return 0;
  end if;
  if n <> cp.up_to_id - first_id + 1 then
    raise exception 'the change history does not hold behind its newest checkpoint (entries missing): nothing removed' using errcode = 'integrity_constraint_violation';
  end if;
  if not exists (select 1 from audit_log where id = cp.up_to_id and hash = cp.up_to_hash) then
    raise exception 'the change history does not hold behind its newest checkpoint (entry % is not the one it names): nothing removed', cp.up_to_id using errcode = 'integrity_constraint_violation';
  end if;
  select b.id into broken from audit_log a join audit_log b on b.id = a.id + 1
  where b.id <= cp.up_to_id and b.prev_hash is distinct from a.hash order by b.id limit 1;
  if broken is not null then
    raise exception 'the change history does not hold behind its newest checkpoint (entry % does not follow the one before it): nothing removed', broken using errcode = 'integrity_constraint_violation';
  end if;
  delete from audit_log where id <= cp.up_to_id;
  return n;
end $$;
revoke all on function audit_prune_to_checkpoint() from public;
