-- Erasure of a person (issue 32, ADR 076). Each person's values in the change history are written as
-- ciphertext under a data key of their own (crypto-shredding): one random 256-bit key per person, stored
-- sealed (AES-GCM) under a key derived from AUDIT_KEY. Erasing the person deletes their row here, and every
-- personal value of theirs in the history (and in every backup holding the same entries) can no longer be
-- read, while each entry's hash still holds: no hashed byte changes.
create table person_keys (
  user_id bigint primary key,
  key_sealed text not null,
  created_at timestamptz not null default now()
);
