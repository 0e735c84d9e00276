-- Dashboard counters kept current by the database (ADR 025, amending ADR 016). Every statement that
-- changes a row a counter reads appends signed deltas to dashboard_tally_deltas, from the rows it
-- changed (statement triggers with transition tables: one grouped insert per statement, whatever its
-- size). dashboard_compact() folds the deltas into dashboard_tallies. A figure is the sum of its rows
-- in both (the view dashboard_tally_rows), so it is exact whether or not compaction has run.
--
-- A tally row is (metric, scope, day, n): scope 0 is the whole marketplace, otherwise a buddy's user id;
-- day is null for a plain count, else the UTC day the counted rows fall on, so figures that depend on
-- "today" (scheduled services, new users, the last 30 days, the weeks and months of the statistics)
-- sum a range of days at read time. Metric names start with their source and a dot; the definitions
-- are ADR 016's, written once below in dashboard_keys(), one overload per source table.

create table dashboard_tallies (
  metric text not null,
  scope bigint not null default 0,
  day date,
  n bigint not null,
  constraint dashboard_tallies_key unique nulls not distinct (scope, metric, day)
);

-- Written by every writer, read by every dashboard request, emptied by each compaction: no index (a
-- write stays one heap insert, and compaction keeps the table small), vacuumed early.
create table dashboard_tally_deltas (
  metric text not null,
  scope bigint not null default 0,
  day date,
  n bigint not null
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 2000);

create view dashboard_tally_rows as
  select metric, scope, day, n from dashboard_tallies
  union all
  select metric, scope, day, n from dashboard_tally_deltas;

-- "Subscribers" counts distinct users: each user's active or trialing subscriptions, so a delta is
-- written only when a user's count leaves or reaches zero. Rows at zero are kept (harmless, no churn).
create table dashboard_subscriber_users (
  user_id bigint primary key,
  subscriptions integer not null
);

-- "Total buddies" depends on two tables (the user's state and their roles): the set of users counted
-- is kept, so each change re-decides the users it touched from the current rows, in any order.
create table dashboard_active_buddies (
  user_id bigint primary key
);

-- Which tallies a row counts in: ADR 016's definitions, one overload per source table.

create function dashboard_keys(r users) returns table (metric text, scope bigint, day date) language sql stable as $$
  select k.metric, 0::bigint, k.day from (values
    ('users.total', null::date, true),
    ('users.active', null, r.is_active and r.account_status = 'active'),
    ('users.invited', null, r.invitation_status = 'pending'),
    ('users.direct_active', null, r.is_active and r.account_status = 'active' and r.user_type = 4),
    -- Members by the UTC day they joined (new users in the last 30 days, the series), and by month (the
    -- statistics' members per month and the total before: a few dozen rows, not a row per day since launch).
    ('users.members', (r.member_since at time zone 'UTC')::date, r.member_since is not null),
    ('users.members_by_month', date_trunc('month', r.member_since at time zone 'UTC')::date, r.member_since is not null)
  ) as k(metric, day, counted)
  where k.counted
$$;

create function dashboard_keys(r services) returns table (metric text, scope bigint, day date) language sql stable as $$
  select k.metric, k.scope, k.day from (values
    ('services.status.' || r.status, 0::bigint, null::date, true),
    ('services.one_off_finished', 0, null, r.status = 4 and r.origin_type = 'one_off'),
    -- By service date: the weeks of the statistics (all, and finished) and scheduled services (booked).
    ('services.by_date', 0, r.service_date, true),
    ('services.finished_by_date', 0, r.service_date, r.status = 4),
    ('services.booked_by_date', 0, r.service_date, r.status = 2),
    -- By the UTC day they were finished: the last-30-day series.
    ('services.finished_by_day', 0, (r.finished_at at time zone 'UTC')::date, r.finished_at is not null),
    -- A buddy's own figures.
    ('services.status.4', r.buddy_id, null, r.status = 4),
    ('services.booked_by_date', r.buddy_id, r.service_date, r.status = 2),
    ('services.finished_by_day', r.buddy_id, (r.finished_at at time zone 'UTC')::date, r.finished_at is not null)
  ) as k(metric, scope, day, counted)
  where k.counted
$$;

create function dashboard_keys(r subscriptions) returns table (metric text, scope bigint, day date) language sql stable as $$
  select k.metric, 0::bigint, k.day from (values
    ('subscriptions.active_b2b2c', null::date, r.status = 'active' and r.company_id is not null),
    ('subscriptions.active_single_bike', null, r.status = 'active' and r.company_id is null and r.bicycles = 1),
    ('subscriptions.active_multiple_bike', null, r.status = 'active' and r.company_id is null and r.bicycles > 1),
    ('subscriptions.created', (r.created_at at time zone 'UTC')::date, true)
  ) as k(metric, day, counted)
  where k.counted
$$;

create function dashboard_keys(r promo_code_uses) returns table (metric text, scope bigint, day date) language sql stable as $$
  select 'promo_code_uses.total', 0::bigint, null::date
$$;

create function dashboard_keys(r trial_groups) returns table (metric text, scope bigint, day date) language sql stable as $$
  -- Not ended: no end date, or ending today or later (summed from today at read time).
  select case when r.end_date is null then 'trial_groups.open' else 'trial_groups.by_end_date' end, 0::bigint, r.end_date
$$;

-- The counting trigger of each source table, from one template: dashboard_count_users(),
-- dashboard_count_services(), … each a statement trigger for insert, update and delete. (A transition
-- table's row is an anonymous record, hence one function per table with the cast that picks the
-- overload; plpgsql caches each plan.) An update writes only the net change: editing a service's notes
-- writes nothing.
do $do$
declare
  source text;
begin
  foreach source in array array['users', 'services', 'subscriptions', 'promo_code_uses', 'trial_groups'] loop
    execute format($f$
      create function dashboard_count_%1$s() returns trigger language plpgsql as $body$
      begin
        if tg_op = 'INSERT' then
          insert into dashboard_tally_deltas (metric, scope, day, n)
          select k.metric, k.scope, k.day, count(*) from new_rows r cross join lateral dashboard_keys(r::%1$I) k group by 1, 2, 3;
        elsif tg_op = 'DELETE' then
          insert into dashboard_tally_deltas (metric, scope, day, n)
          select k.metric, k.scope, k.day, -count(*) from old_rows r cross join lateral dashboard_keys(r::%1$I) k group by 1, 2, 3;
        else
          insert into dashboard_tally_deltas (metric, scope, day, n)
          select c.metric, c.scope, c.day, sum(c.n) from (
            select k.metric, k.scope, k.day, -1 as n from old_rows r cross join lateral dashboard_keys(r::%1$I) k
            union all
            select k.metric, k.scope, k.day, 1 from new_rows r cross join lateral dashboard_keys(r::%1$I) k
          ) c
          group by 1, 2, 3 having sum(c.n) <> 0;
        end if;
        return null;
      end
      $body$;
      create trigger dashboard_count_insert after insert on %1$I referencing new table as new_rows for each statement execute function dashboard_count_%1$s();
      create trigger dashboard_count_update after update on %1$I referencing old table as old_rows new table as new_rows for each statement execute function dashboard_count_%1$s();
      create trigger dashboard_count_delete after delete on %1$I referencing old table as old_rows for each statement execute function dashboard_count_%1$s();
    $f$, source);
  end loop;
end
$do$;

-- Subscribers: apply per-user changes of active/trialing subscriptions; a user entering or leaving the
-- set is ±1. The upsert's row lock orders concurrent changes of one user's subscriptions.
create function dashboard_count_subscribers(user_ids bigint[], changes bigint[]) returns void language sql as $$
  with changed as (
    select c.user_id, c.change from unnest(user_ids, changes) as c(user_id, change) where c.change <> 0 order by c.user_id),
  counted as (
    insert into dashboard_subscriber_users as s (user_id, subscriptions)
    select user_id, change from changed
    on conflict (user_id) do update set subscriptions = s.subscriptions + excluded.subscriptions
    returning s.user_id, s.subscriptions)
  insert into dashboard_tally_deltas (metric, n)
  select 'subscriptions.subscribers', sum((c.subscriptions > 0)::int - (c.subscriptions - x.change > 0)::int)
    from counted c join changed x using (user_id)
  having sum((c.subscriptions > 0)::int - (c.subscriptions - x.change > 0)::int) <> 0
$$;

create function dashboard_subscriptions_changed() returns trigger language plpgsql as $$
declare
  ids bigint[];
  changes bigint[];
begin
  if tg_op = 'INSERT' then
    select array_agg(user_id), array_agg(n) into ids, changes
      from (select user_id, count(*) as n from new_rows where status in ('active', 'trialing') group by user_id) c;
  elsif tg_op = 'DELETE' then
    select array_agg(user_id), array_agg(n) into ids, changes
      from (select user_id, -count(*) as n from old_rows where status in ('active', 'trialing') group by user_id) c;
  else
    select array_agg(user_id), array_agg(n) into ids, changes
      from (select user_id, sum(n) as n from (
              select user_id, -1 as n from old_rows where status in ('active', 'trialing')
              union all
              select user_id, 1 from new_rows where status in ('active', 'trialing')) x
            group by user_id having sum(n) <> 0) c;
  end if;
  if ids is not null then
    perform dashboard_count_subscribers(ids, changes);
  end if;
  return null;
end
$$;

-- Total buddies: re-decide the given users from the current rows. Their users rows are locked first, so
-- a concurrent change of the same user's state or roles waits and then sees this one (and the reverse):
-- the last to commit decides from both.
create function dashboard_refresh_buddies(user_ids bigint[]) returns void language plpgsql as $$
begin
  if coalesce(cardinality(user_ids), 0) = 0 then
    return;
  end if;
  perform 1 from users where id = any(user_ids) order by id for no key update;
  with wanted as (
    select u.id from users u
     where u.id = any(user_ids) and u.is_active and u.account_status = 'active'
       and exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and r.name = 'Buddy')),
  added as (
    insert into dashboard_active_buddies (user_id) select id from wanted order by id on conflict do nothing returning 1),
  removed as (
    delete from dashboard_active_buddies b where b.user_id = any(user_ids) and b.user_id not in (select id from wanted) returning 1)
  insert into dashboard_tally_deltas (metric, n)
  select 'buddies.active', a.n - d.n from (select count(*) as n from added) a, (select count(*) as n from removed) d where a.n <> d.n;
end
$$;

-- A deleted user's roles go with them (on delete cascade), and that delete re-decides them: only a
-- change of state needs a trigger on users.
create function dashboard_user_state_changed() returns trigger language plpgsql as $$
begin
  perform dashboard_refresh_buddies(array(
    select n.id from old_rows o join new_rows n on n.id = o.id
     where (o.is_active and o.account_status = 'active') is distinct from (n.is_active and n.account_status = 'active')));
  return null;
end
$$;

-- The roles granted or taken are locked (shared) before their name is read, in the next statement: a
-- concurrent rename to or from Buddy waits for this transaction, or this for the rename and then reads
-- the new name, so one of the two sees the other.
create function dashboard_user_roles_changed() returns trigger language plpgsql as $$
declare
  changed bigint[];
  buddy_roles bigint[];
begin
  if tg_op = 'INSERT' then
    changed := array(select role_id from new_rows);
  elsif tg_op = 'DELETE' then
    changed := array(select role_id from old_rows);
  else
    changed := array(select role_id from old_rows union select role_id from new_rows);
  end if;
  perform 1 from roles where id = any(changed) order by id for share;
  buddy_roles := array(select id from roles where id = any(changed) and name = 'Buddy');
  if tg_op = 'INSERT' then
    perform dashboard_refresh_buddies(array(select distinct user_id from new_rows where role_id = any(buddy_roles)));
  elsif tg_op = 'DELETE' then
    perform dashboard_refresh_buddies(array(select distinct user_id from old_rows where role_id = any(buddy_roles)));
  else
    perform dashboard_refresh_buddies(array(
      select user_id from old_rows where role_id = any(buddy_roles) union select user_id from new_rows where role_id = any(buddy_roles)));
  end if;
  return null;
end
$$;

create function dashboard_role_renamed() returns trigger language plpgsql as $$
begin
  perform dashboard_refresh_buddies(array(
    select ur.user_id from user_roles ur
     where ur.role_id in (select n.id from old_rows o join new_rows n on n.id = o.id where (o.name = 'Buddy') is distinct from (n.name = 'Buddy'))));
  return null;
end
$$;

-- Recounts one source's tallies from its rows: the backfill below, after a TRUNCATE (which fires no row
-- changes), and by hand after a load that bypassed triggers (`select dashboard_rebuild()`). Without
-- memoize: the planner would cache dashboard_keys() per row, and every row is different (2M services:
-- 2× slower).
create function dashboard_rebuild(source text) returns void language plpgsql set enable_memoize = off as $$
begin
  -- Writers to the counted tables wait until the caller commits: a row written between the recount and
  -- the deletes below would otherwise count twice or not at all. So does compaction (it would fold deltas
  -- into rows this deletes, or add a row this does not see).
  if source = 'buddies' then
    lock table users, user_roles, roles in share mode;
  else
    execute format('lock table %I in share mode', source);
  end if;
  perform pg_advisory_xact_lock(hashtext('dashboard_compact'));
  delete from dashboard_tallies where split_part(metric, '.', 1) = source;
  delete from dashboard_tally_deltas where split_part(metric, '.', 1) = source;
  if source = 'users' then
    insert into dashboard_tallies (metric, scope, day, n)
    select k.metric, k.scope, k.day, count(*) from users r cross join lateral dashboard_keys(r) k group by 1, 2, 3;
  elsif source = 'services' then
    insert into dashboard_tallies (metric, scope, day, n)
    select k.metric, k.scope, k.day, count(*) from services r cross join lateral dashboard_keys(r) k group by 1, 2, 3;
  elsif source = 'subscriptions' then
    insert into dashboard_tallies (metric, scope, day, n)
    select k.metric, k.scope, k.day, count(*) from subscriptions r cross join lateral dashboard_keys(r) k group by 1, 2, 3;
    delete from dashboard_subscriber_users;
    insert into dashboard_subscriber_users (user_id, subscriptions)
    select user_id, count(*) from subscriptions where status in ('active', 'trialing') group by user_id;
    insert into dashboard_tallies (metric, n) select 'subscriptions.subscribers', count(*) from dashboard_subscriber_users;
  elsif source = 'promo_code_uses' then
    insert into dashboard_tallies (metric, scope, day, n)
    select k.metric, k.scope, k.day, count(*) from promo_code_uses r cross join lateral dashboard_keys(r) k group by 1, 2, 3;
  elsif source = 'trial_groups' then
    insert into dashboard_tallies (metric, scope, day, n)
    select k.metric, k.scope, k.day, count(*) from trial_groups r cross join lateral dashboard_keys(r) k group by 1, 2, 3;
  elsif source = 'buddies' then
    delete from dashboard_active_buddies;
    insert into dashboard_active_buddies (user_id)
    select u.id from users u
     where u.is_active and u.account_status = 'active'
       and exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and r.name = 'Buddy');
    insert into dashboard_tallies (metric, n) select 'buddies.active', count(*) from dashboard_active_buddies;
  else
    raise exception 'dashboard_rebuild: unknown source %', source;
  end if;
end
$$;

create function dashboard_rebuild() returns void language sql as $$
  select dashboard_rebuild(source) from unnest(array['users', 'services', 'subscriptions', 'promo_code_uses', 'trial_groups', 'buddies']) as source;
$$;

create function dashboard_rebuild_after_truncate() returns trigger language plpgsql as $$
declare
  source text;
begin
  foreach source in array tg_argv loop
    perform dashboard_rebuild(source);
  end loop;
  return null;
end
$$;

-- Folds the deltas into one row per key; returns how many delta rows it folded. One compaction at a time
-- (another returns 0 at once); writers never wait for it, and a reader sees the rows before or after.
create function dashboard_compact() returns bigint language plpgsql as $$
declare
  folded bigint;
  zero_scopes bigint[];
  zero_metrics text[];
  zero_days date[];
begin
  if not pg_try_advisory_xact_lock(hashtext('dashboard_compact')) then
    return 0;
  end if;
  with gone as (
    delete from dashboard_tally_deltas returning metric, scope, day, n),
  summed as (
    select metric, scope, day, sum(n) as n, count(*) as rows from gone group by 1, 2, 3),
  applied as (
    insert into dashboard_tallies as t (metric, scope, day, n)
    select metric, scope, day, n from summed where n <> 0
    on conflict (scope, metric, day) do update set n = t.n + excluded.n
    returning t.scope, t.metric, t.day, t.n)
  select (select coalesce(sum(rows), 0) from summed),
         array_agg(scope) filter (where n = 0), array_agg(metric) filter (where n = 0), array_agg(day) filter (where n = 0)
    into folded, zero_scopes, zero_metrics, zero_days
    from applied;
  -- A key back at zero (a day's booked services all done) is dropped rather than kept forever.
  delete from dashboard_tallies t
   using unnest(zero_scopes, zero_metrics, zero_days) as z(scope, metric, day)
   where t.scope = z.scope and t.metric = z.metric and t.day is not distinct from z.day and t.n = 0;
  return folded;
end
$$;


create trigger dashboard_subscribers_insert after insert on subscriptions referencing new table as new_rows for each statement execute function dashboard_subscriptions_changed();
create trigger dashboard_subscribers_update after update on subscriptions referencing old table as old_rows new table as new_rows for each statement execute function dashboard_subscriptions_changed();
create trigger dashboard_subscribers_delete after delete on subscriptions referencing old table as old_rows for each statement execute function dashboard_subscriptions_changed();

create trigger dashboard_buddies_update after update on users referencing old table as old_rows new table as new_rows for each statement execute function dashboard_user_state_changed();
create trigger dashboard_buddies_insert after insert on user_roles referencing new table as new_rows for each statement execute function dashboard_user_roles_changed();
create trigger dashboard_buddies_update after update on user_roles referencing old table as old_rows new table as new_rows for each statement execute function dashboard_user_roles_changed();
create trigger dashboard_buddies_delete after delete on user_roles referencing old table as old_rows for each statement execute function dashboard_user_roles_changed();
create trigger dashboard_buddies_rename after update on roles referencing old table as old_rows new table as new_rows for each statement execute function dashboard_role_renamed();

create trigger dashboard_rebuild_truncate after truncate on users for each statement execute function dashboard_rebuild_after_truncate('users', 'buddies');
create trigger dashboard_rebuild_truncate after truncate on user_roles for each statement execute function dashboard_rebuild_after_truncate('buddies');
create trigger dashboard_rebuild_truncate after truncate on roles for each statement execute function dashboard_rebuild_after_truncate('buddies');
create trigger dashboard_rebuild_truncate after truncate on services for each statement execute function dashboard_rebuild_after_truncate('services');
create trigger dashboard_rebuild_truncate after truncate on subscriptions for each statement execute function dashboard_rebuild_after_truncate('subscriptions');
create trigger dashboard_rebuild_truncate after truncate on promo_code_uses for each statement execute function dashboard_rebuild_after_truncate('promo_code_uses');
create trigger dashboard_rebuild_truncate after truncate on trial_groups for each statement execute function dashboard_rebuild_after_truncate('trial_groups');

-- Backfill from the rows already there. The triggers above hold a lock that keeps writers out of these
-- tables until this migration commits, so nothing is counted twice or missed.
select dashboard_rebuild();
-- Planner statistics now, not at autovacuum's next visit (PGlite has none).
analyze dashboard_tallies, dashboard_subscriber_users, dashboard_active_buddies;
