-- The change history (ADR 035): one row per change of a record, written by the engine in the transaction
-- of the change itself, so neither exists without the other. Rows are chained: `hash` is an HMAC (keyed
-- with AUDIT_KEY) over `prev_hash` and the row's content, so an edited, removed or reordered row breaks the
-- chain at that row (upstream/lib/audit.ts, `npm run audit:verify`).
--
-- `id` is numbered by the writer (the last id + 1, under the chain's advisory lock) rather than by a
-- sequence: a sequence value is spent even when its transaction rolls back, and the verifier reads a gap
-- in the ids as a removed row.
create table audit_log (
  id bigint primary key,
  at timestamptz not null default now(),
  user_id bigint,
  -- The roles of the token the change was made with (comma-separated), as the access checks saw them.
  role text,
  -- The client address as the API saw it (X-Forwarded-For only with the back office's secret, ADR 028).
  address text,
  request_id text,
  entity text not null,
  record_id bigint,
  -- 'create', 'update', 'delete', 'transition' or a declared action's key.
  action text not null,
  -- {field: [before, after]} of the fields that changed; secret fields are never stored.
  changes jsonb not null default '{}',
  prev_hash text,
  hash text not null
);
-- A record's history, and a person's activity, newest last.
create index audit_log_record_idx on audit_log (entity, record_id, id);
create index audit_log_user_idx on audit_log (user_id, id);
