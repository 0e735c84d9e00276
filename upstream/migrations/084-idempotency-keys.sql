-- Idempotent writes (ADR 042): a write sent with an `Idempotency-Key` header is remembered with its answer,
-- per user, so the same request sent again (a phone replaying what it queued offline, a retry after a lost
-- answer) gets the stored answer instead of being done twice. A key is claimed before the write (status
-- null while it runs) and filled in with the answer after it; a 5xx answer gives the key back.
create table idempotency_keys (
  user_id bigint not null,
  key text not null,
  -- method, route and a hash of the body: the same key with another request is refused, not replayed.
  fingerprint text not null,
  status integer,
  content_type text,
  body text,
  created_at timestamptz not null default now(),
  primary key (user_id, key)
);
create index idempotency_keys_created_at on idempotency_keys (created_at);
