-- Retention of the change history (ADR 038): pruning entries older than AUDIT_RETENTION_DAYS leaves a
-- checkpoint naming the last entry removed and its hash, itself an HMAC keyed with AUDIT_KEY. The verifier
-- starts from the newest checkpoint, so the chain still verifies after pruning, and a checkpoint that was
-- forged, edited or removed shows as a broken chain.
create table audit_checkpoints (
  id bigserial primary key,
  at timestamptz not null,
  -- The last entry removed, and its hash: the next entry's prev_hash.
  up_to_id bigint not null,
  up_to_hash text not null,
  -- Entries removed by this pruning.
  removed bigint not null,
  hash text not null
);
