import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordAccountEvent } from '../lib/audit.ts';
import { requireAuth } from '../lib/auth.ts';
import { hasSecondFactor, policyRequires, replaceRecoveryCodes } from '../lib/factors.ts';
import {
  authenticationResponse,
  checkAssertion,
  clientChallenge,
  credentialBase,
  newChallenge,
  openChallenge,
  passkeyByCredential,
  passkeysOf,
  PASSKEY_CHALLENGE_SECONDS,
  relyingParty,
  RP_NAME,
  spendChallenge,
  userHandleOf,
  verdict,
  webauthn,
} from '../lib/passkeys.ts';
import { findUser } from '../users.ts';
import { signIn, type IssuePair } from './account.ts';
import { factorChanged } from './factors.ts';
import { freshProofInput, proveFresh } from './fresh-proof.ts';
import { addressKey, backoff, forgive, giveBack, refuseWithRetry, takeAttempt, type Counter } from '../lib/throttle.ts';
import { parseBody } from './validation.ts';

/**
 * Passkeys (issue 32, ADR 075): registering one on the security page (a factor change like the others: in the
 * history, the user's other sessions end), removing it, and signing in with it — a sign-in on its own, with
 * user verification required, so it is also the second factor the Admin policy asks for.
 */

const b64url = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[A-Za-z0-9_-]+$/);
const registrationResponse = z.object({
  ...credentialBase,
  response: z.looseObject({
    clientDataJSON: b64url,
    attestationObject: z
      .string()
      .min(1)
      .max(16384)
      .regex(/^[A-Za-z0-9_-]+$/),
    transports: z.array(z.string().max(32)).max(10).optional(),
  }),
});
const registerInput = z.object({ name: z.string().trim().min(1).max(64), response: registrationResponse });
const signInInput = z.object({ response: authenticationResponse });

/** The passkey routes (ADR 075): registering and removing one (signed in), and signing in with one. */
export function registerPasskeyRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair) {
  registerPasskeyEnrolment(app, db, config);
  registerPasskeyRemoval(app, db, config);
  registerPasskeySignIn(app, db, config, issuePair);
}

function registerPasskeyEnrolment(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);

  /** Options for registering a passkey: a discoverable credential with user verification, not one the user has already. */
  app.post('/api/account/factors/passkey/options', { preHandler: authed }, async (req, reply) => {
    const userId = req.user!.id;
    const user = await findUser(db, { id: userId });
    if (!user) throw new ApiError(404, 'not_found');
    const rp = relyingParty(config);
    const options = await (
      await webauthn()
    ).generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.rpId,
      userName: user.email,
      userDisplayName: [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email,
      userID: await userHandleOf(db, config, userId),
      challenge: newChallenge(config, 'register', userId),
      timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: (await passkeysOf(db, userId)).map((p) => ({ id: p.credential_id, transports: p.transports ?? undefined })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    return ok(reply, options);
  });

  /** Registers the passkey the browser made for those options; a first factor also gets recovery codes (shown once). */
  app.post('/api/account/factors/passkey', { preHandler: authed }, async (req, reply) => {
    const input = parseBody(registerInput, req.body);
    const userId = req.user!.id;
    const rp = relyingParty(config);
    const challenge = clientChallenge(input.response.response.clientDataJSON);
    const verified = await verdict(req, 'registration', (lib) =>
      lib.verifyRegistrationResponse({
        response: input.response as RegistrationResponseJSON,
        expectedChallenge: (c) => openChallenge(config, 'register', c, userId) !== undefined,
        expectedOrigin: rp.origins,
        expectedRPID: rp.rpId,
        requireUserVerification: true,
      }),
    );
    const credential = verified.registrationInfo?.credential;
    if (!credential) throw new ApiError(400, 'passkey_invalid');
    const codes = await db.transaction(async (tx) => {
      if (!(await spendChallenge(tx, challenge))) throw new ApiError(400, 'passkey_invalid');
      const first = !(await hasSecondFactor(tx, userId));
      const { rows } = await tx.query(
        `insert into user_factors (user_id, kind, name, credential_id, public_key, sign_count, transports, confirmed_at)
         values ($1, 'passkey', $2, $3, $4, $5, $6, now())
         on conflict (credential_id) where credential_id is not null do nothing returning id`,
        [userId, input.name, credential.id, Buffer.from(credential.publicKey).toString('base64url'), credential.counter, credential.transports ?? null],
      );
      if (rows.length === 0) throw new ApiError(409, 'factor_exists');
      await factorChanged(tx, config, req, 'factor_added', 'passkey');
      return first ? replaceRecoveryCodes(tx, userId) : null;
    });
    return ok(reply, { added: true, recovery_codes: codes });
  });
}

function registerPasskeyRemoval(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);

  /**
   * Options for confirming it is the user with one of their passkeys (ADR 075): a challenge bound to this user,
   * answered by one of their passkeys only, sent with a factor change (removing a factor) as its fresh proof.
   */
  app.post('/api/account/factors/passkey/confirm-options', { preHandler: authed }, async (req, reply) => {
    const userId = req.user!.id;
    const passkeys = await passkeysOf(db, userId);
    if (passkeys.length === 0) throw new ApiError(409, 'factor_not_started');
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: relyingParty(config).rpId,
      challenge: newChallenge(config, 'confirm', userId),
      timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
      userVerification: 'required',
      allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports ?? undefined })),
    });
    return ok(reply, options);
  });

  /**
   * Removes one of the user's passkeys, with fresh proof that it is them in the same request (ADR 075: the password,
   * a code, or a passkey's answer to a confirm challenge); not the last factor the policy requires.
   */
  app.post('/api/account/factors/passkey/:id/remove', { preHandler: authed }, async (req, reply) => {
    const { id } = z.object({ id: z.coerce.number().int().positive() }).parse(req.params);
    const proof = parseBody(freshProofInput, req.body ?? {});
    const userId = req.user!.id;
    const { rows: own } = await db.query("select 1 from user_factors where id = $1 and user_id = $2 and kind = 'passkey'", [id, userId]);
    if (own.length === 0) throw new ApiError(404, 'not_found');
    await proveFresh(db, config, req, reply, proof);
    await db.transaction(async (tx) => {
      const { rows } = await tx.query("delete from user_factors where id = $1 and user_id = $2 and kind = 'passkey' returning id", [id, userId]);
      if (rows.length === 0) throw new ApiError(404, 'not_found');
      const left = await hasSecondFactor(tx, userId);
      if (!left && (await policyRequires(tx, req.user!.roles))) throw new ApiError(409, 'second_factor_required');
      if (!left) await tx.query('delete from recovery_codes where user_id = $1', [userId]);
      await factorChanged(tx, config, req, 'factor_removed', 'passkey');
    });
    return ok(reply, { removed: true });
  });
}

function registerPasskeySignIn(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair) {
  /** Options for signing in with a passkey: any of this site's (discoverable), with user verification. Writes nothing. */
  app.post('/api/account/login/passkey/options', async (_req, reply) => {
    const rp = relyingParty(config);
    const options = await (
      await webauthn()
    ).generateAuthenticationOptions({
      rpID: rp.rpId,
      challenge: newChallenge(config, 'authenticate', null),
      timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
      userVerification: 'required',
    });
    return ok(reply, options);
  });

  /**
   * A sign-in with a passkey: its signature over a challenge of ours, used once, a counter that moved on, the user verified.
   * Throttled as a password sign-in is (ADR 018, 075): the client address's attempts (one allowance with its password
   * sign-ins) and the address with the passkey tried, each counted before the outcome and given back on success.
   */
  app.post('/api/account/login/passkey', async (req, reply) => {
    const input = parseBody(signInInput, req.body);
    const address = addressKey(req.ip);
    const counters = passkeyCounters(config, address, input.response.id);
    const attempt = await takeAttempt(db, counters);
    if (!attempt.allowed) {
      req.log.warn({ address }, 'passkey sign-in throttled');
      refuseWithRetry(reply, attempt.retryAfterSeconds);
    }
    const passkey = await passkeyByCredential(db, input.response.id);
    if (!passkey) throw new ApiError(400, 'passkey_invalid');
    await checkAssertion(db, config, req, input.response, passkey, 'authenticate', () => failed(db, config, req, passkey.userId));
    await forgive(db, counters[1]!.scope, counters[1]!.key);
    await giveBack(db, counters[0]!.scope, address);
    const user = await findUser(db, { id: passkey.userId });
    if (!user?.is_active) throw new ApiError(403, 'account_inactive');
    return ok(reply, await signIn(db, config, req, issuePair, passkey.userId, 'passkey', 'passkey'));
  });
}

/** The address's sign-in allowance (shared with password sign-ins) and the address with this passkey, as a password sign-in's pair. */
function passkeyCounters(config: UpstreamConfig, address: string, credentialId: string): [Counter, Counter] {
  const t = config.loginThrottle;
  return [
    { scope: 'login-ip', key: address, policy: backoff(t.ipFreeFailures, t.maxDelaySeconds, t.forgetAfterSeconds) },
    { scope: 'login-passkey', key: `${address}|${credentialId.slice(0, 200)}`, policy: backoff(t.freeFailures, t.maxDelaySeconds, t.forgetAfterSeconds) },
  ];
}

/** A passkey of this account whose answer did not verify: the account's history says so, as a wrong code does. */
function failed(db: Db, config: UpstreamConfig, req: FastifyRequest, userId: number) {
  return db.transaction((tx) => recordAccountEvent(tx, config.auditKey, req, userId, 'second_factor_failed', { method: [null, 'passkey'] }));
}
