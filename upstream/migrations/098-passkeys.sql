-- Passkeys (issue 32, ADR 075). The credentials live in `user_factors` (migration 097 gave it the passkey
-- columns: credential id, public key, signature counter, transports); this adds only what makes a WebAuthn
-- challenge single-use.
--
-- A challenge is not stored when it is handed out: it is sealed by the API (AES-GCM: purpose, user, expiry
-- five minutes on), so asking for one — which anyone may do on the sign-in page — writes nothing. A challenge
-- that passed a verification is recorded here, by hash, until it expires; a second use of it finds its row and
-- is refused. Rows past their expiry are swept by the statement that records a new one.
create table webauthn_challenges_used (
  challenge_hash text primary key,
  expires_at timestamptz not null
);
create index webauthn_challenges_used_expiry_idx on webauthn_challenges_used (expires_at);
