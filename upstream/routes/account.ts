import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { profileUpdateInput } from '../../shared/schemas/auth.ts';
import { confirmEmailInput, emailField, forgotPasswordInput, loginInput, newPasswordInput } from '../../shared/schemas/credentials.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { INVALID_CREDENTIALS } from '../../shared/errors.ts';
import { createAccountToken, DAY } from '../invitations.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { signAccessToken } from '../lib/jwt.ts';
import { canonicalJson, recordAccountEvent, type Changes } from '../lib/audit.ts';
import { createSession, revokeSession, revokeUserSessions } from '../lib/sessions.ts';
import { hasSecondFactor, policyRequires, seal, unseal, type SecondFactorMethod } from '../lib/factors.ts';
import { addressKey, backoff, fixedWindow, forgive, giveBack, recordsFailedSignIn, refuseWithRetry, takeAttempt, type Counter } from '../lib/throttle.ts';
import { hashToken, openPayload, randomToken, sealPayload } from '../lib/tokens.ts';
import { sendMail } from '../mail.ts';
import { findUser } from '../users.ts';
import { parseBody } from './validation.ts';

export interface TokenPair {
  token: string;
  refresh_token: string;
}

/** A new token pair, written through `using` (a transaction the caller opened) or the database. */
export type IssuePair = (userId: number, sessionId?: string, using?: Db) => Promise<TokenPair>;

/** One answer to every failed sign-in, so it never tells which addresses have accounts (ADR 018). */
const invalidCredentials = () => new ApiError(INVALID_CREDENTIALS.status, INVALID_CREDENTIALS.code, INVALID_CREDENTIALS.text);

/** Throttle keys: the client address, and the address with the account as typed (never the user row). */
const loginPairKey = (address: string, account: string) => `${address}|${account}`;

/** The throttle counters of sign-in and forgotten passwords, with the configured limits (ADR 018, 028). */
function throttleCounters(config: UpstreamConfig) {
  const throttle = config.loginThrottle;
  const limits = config.forgotPasswordLimits;
  return {
    login: (address: string, account: string): Counter[] => [
      { scope: 'login-ip', key: address, policy: backoff(throttle.ipFreeFailures, throttle.maxDelaySeconds, throttle.forgetAfterSeconds) },
      { scope: 'login', key: loginPairKey(address, account), policy: backoff(throttle.freeFailures, throttle.maxDelaySeconds, throttle.forgetAfterSeconds) },
    ],
    forgot: (address: string, account: string): Counter[] => [
      { scope: 'forgot-ip', key: address, policy: fixedWindow(limits.perIpPerHour, 3600) },
      { scope: 'forgot', key: loginPairKey(address, account), policy: fixedWindow(limits.perClientAndEmailPerHour, 3600) },
    ],
    forgotMail: (account: string): Counter[] => [{ scope: 'forgot-mail', key: account, policy: fixedWindow(limits.mailsPerEmailPerHour, 3600) }],
  };
}
type Counters = ReturnType<typeof throttleCounters>;

/** Access and refresh tokens for a user: the pair a sign-in, a refresh and a Google sign-in hand out. */
function tokenIssuer(db: Db, config: UpstreamConfig): IssuePair {
  /** Roles and session version read together, so a token never pairs new roles with an old version. */
  async function grantOf(userId: number, using: Db): Promise<{ roles: string[]; version: number }> {
    const { rows } = await using.query<{ roles: string[] | null; session_version: number }>(
      `select u.session_version,
              coalesce((select array_agg(r.name order by r.name) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id), '{}') as roles
         from users u where u.id = $1`,
      [userId],
    );
    return { roles: rows[0]?.roles ?? [], version: Number(rows[0]?.session_version ?? 0) };
  }

  /** A new pair; without `sessionId` a new sign-in session (ADR 017). */
  async function issuePair(userId: number, sessionId?: string, using: Db = db): Promise<TokenPair> {
    const sid = sessionId ?? (await createSession(using, userId));
    const grant = await grantOf(userId, using);
    // The policy's roles without a second factor: the token reaches only the account's routes, to enrol (ADR 068).
    const enrol = (await policyRequires(using, grant.roles)) && !(await hasSecondFactor(using, userId));
    const token = await signAccessToken(config.jwtSecret, userId, grant.roles, config.accessTokenTtlSeconds, {
      sid,
      sv: grant.version,
      ...(enrol ? { enrol: true as const } : {}),
    });
    const refresh = randomToken();
    await using.query(`insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values ($1, $2, $3, now() + make_interval(secs => $4))`, [
      userId,
      sid,
      hashToken(refresh),
      config.refreshTokenTtlSeconds,
    ]);
    return { token, refresh_token: refresh };
  }

  return issuePair;
}

export type SignInMethod = 'password' | 'google' | 'passkey';

/**
 * A sign-in's token pair and its history entry, in one transaction: a session never starts unrecorded. The
 * session remembers the address and browser it was opened from (the sessions page).
 */
export function signIn(
  db: Db,
  config: UpstreamConfig,
  req: FastifyRequest,
  issuePair: IssuePair,
  userId: number,
  method: SignInMethod,
  secondFactor?: SecondFactorMethod | 'passkey',
): Promise<TokenPair> {
  return db.transaction(async (tx) => {
    const ua = req.headers['user-agent'];
    const sid = await createSession(tx, userId, { ip: req.ip, userAgent: typeof ua === 'string' ? ua : undefined });
    const pair = await issuePair(userId, sid, tx);
    await recordAccountEvent(tx, config.auditKey, req, userId, 'sign_in', { method: [null, method], ...(secondFactor ? { second_factor: [null, secondFactor] } : {}) });
    return pair;
  });
}

/** How long the second step of a sign-in may wait for its code. */
const CHALLENGE_SECONDS = 300;
const CHALLENGE_PURPOSE = 'second-factor-challenge';

export interface SecondFactorChallenge {
  second_factor_required: true;
  /** Opaque, sealed: the user and first factor it continues, until when. */
  challenge: string;
  methods: string[];
}

/**
 * The end of a first factor: the token pair, or — the user has a second factor — a challenge the second step
 * (`POST account/login/second-factor`) continues with a code (ADR 068).
 */
export async function completeFirstFactor(
  db: Db,
  config: UpstreamConfig,
  req: FastifyRequest,
  issuePair: IssuePair,
  userId: number,
  method: SignInMethod,
): Promise<TokenPair | SecondFactorChallenge> {
  if (method === 'passkey' || !(await hasSecondFactor(db, userId))) return signIn(db, config, req, issuePair, userId, method);
  const { rows } = await db.query<{ kind: string }>('select distinct kind from user_factors where user_id = $1 and confirmed_at is not null', [userId]);
  const methods = rows.map((r) => r.kind).includes('totp') ? ['totp', 'recovery'] : ['recovery'];
  if (rows.some((r) => r.kind === 'passkey')) methods.push('passkey');
  const challenge = seal(config.jwtSecret, CHALLENGE_PURPOSE, JSON.stringify({ u: userId, m: method, e: Date.now() + CHALLENGE_SECONDS * 1000 }));
  return { second_factor_required: true, challenge, methods };
}

/** The user and first factor of a challenge still valid; null otherwise. */
export function openChallenge(config: UpstreamConfig, challenge: string): { userId: number; method: SignInMethod } | null {
  const opened = unseal(config.jwtSecret, CHALLENGE_PURPOSE, challenge);
  if (!opened) return null;
  const value = JSON.parse(opened) as { u: number; m: SignInMethod; e: number };
  return value.e > Date.now() ? { userId: value.u, method: value.m } : null;
}

/**
 * Marks a one-time token used and returns its user. Unknown, used or expired, or its account deactivated
 * or its invitation canceled (an invite link also needs the invitation still pending): token_does_not_exist.
 */
async function consumeToken(db: Db, token: string, kind: 'invite' | 'reset'): Promise<{ userId: number; email: string }> {
  const { rows } = await db.query<{ user_id: number; email: string }>(
    `update account_tokens t set used_at = now()
       from users u
      where t.token_hash = $1 and t.kind = $2 and t.used_at is null and t.expires_at > now()
        and u.id = t.user_id and u.is_active and u.invitation_status <> 'canceled'
        and ($2 <> 'invite' or u.invitation_status = 'pending')
      returning t.user_id, u.email`,
    [hashToken(token), kind],
  );
  if (!rows[0]) throw new ApiError(400, 'token_does_not_exist');
  return { userId: Number(rows[0].user_id), email: rows[0].email };
}

/**
 * The account routes (§7): sign-in and tokens, passwords, the address, the signed-in user's own profile.
 * Invitations are actions of the users entity (upstream/resources/users.ts).
 */
export function registerAccountRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const issuePair = tokenIssuer(db, config);
  const counters = throttleCounters(config);
  registerSignIn(app, db, config, issuePair, counters);
  registerRefresh(app, db, config, issuePair);
  registerPasswords(app, db, config, counters);
  registerEmailChange(app, db, config);
  registerOwnAccount(app, db, config);
  return { issuePair };
}

function registerSignIn(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair, counters: Counters) {
  let dummyHash: Promise<string> | null = null;
  /**
   * Throttled per client address and per address+account with exponential backoff, never by locking the
   * account: a stranger's failures slow only the stranger (ADR 018). Every failure — unknown address,
   * wrong password, invited user without a password — gets the same answer after the same hashing work.
   */
  app.post('/api/account/login', async (req, reply) => {
    const input = parseBody(loginInput, req.body);
    const address = addressKey(req.ip);
    const account = input.email.toLowerCase();
    const verdict = await takeAttempt(db, counters.login(address, account));
    if (!verdict.allowed) {
      req.log.warn({ address }, 'sign-in throttled');
      refuseWithRetry(reply, verdict.retryAfterSeconds, 'too_many_attempts');
    }
    const { rows } = await db.query<{ id: number; password_hash: string | null; is_active: boolean }>(
      'select id, password_hash, is_active from users where lower(email) = lower($1)',
      [input.email],
    );
    const user = rows[0];
    dummyHash ??= hashPassword('not-a-real-password', config.scryptCost);
    const matches = (await verifyPassword(input.password, user?.password_hash ?? (await dummyHash))) && Boolean(user?.password_hash);
    if (!user || !matches) {
      req.log.warn({ address, known: Boolean(user) }, 'failed login');
      // Recorded under the account tried (none when no account has that address), with the address typed and
      // how many failures so far; a flood writes a few entries, not one each (ADR 058).
      const [addressFailures = 1, pairFailures = 1] = verdict.allowed ? verdict.counts : [];
      if (recordsFailedSignIn(pairFailures, addressFailures))
        await db.transaction((tx) =>
          recordAccountEvent(tx, config.auditKey, req, user ? Number(user.id) : null, 'sign_in_failed', {
            email: [null, account],
            failures: [null, pairFailures],
            address_failures: [null, addressFailures],
          }),
        );
      throw invalidCredentials();
    }
    // The right password: this pair starts over, and the address gets its attempt back.
    await forgive(db, 'login', loginPairKey(address, account));
    await giveBack(db, 'login-ip', address);
    if (!user.is_active) throw new ApiError(403, 'account_inactive');
    return ok(reply, await completeFirstFactor(db, config, req, issuePair, Number(user.id), 'password'));
  });

  /** Ends the session of this refresh token: its access tokens stop working at once too (ADR 017). */
  app.post('/api/account/logout', async (req, reply) => {
    const { refresh_token } = parseBody(z.object({ refresh_token: z.string().min(1).max(512) }), req.body);
    const { rows } = await db.query<{ family_id: string }>('select family_id from refresh_tokens where token_hash = $1', [hashToken(refresh_token)]);
    const familyId = rows[0]?.family_id;
    if (familyId)
      await db.transaction(async (tx) => {
        const { rows: ended } = await tx.query<{ user_id: number }>('select user_id from sessions where id = $1 and revoked_at is null', [familyId]);
        await revokeSession(tx, familyId);
        if (ended[0]) await recordAccountEvent(tx, config.auditKey, req, Number(ended[0].user_id), 'sign_out');
      });
    return ok(reply, { logged_out: true });
  });
}

function registerRefresh(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair) {
  app.post('/api/account/refresh-token', async (req, reply) => {
    const { refresh_token } = parseBody(z.object({ refresh_token: z.string().min(1).max(512) }), req.body);
    const hash = hashToken(refresh_token);
    const find = async () =>
      (
        await db.query<{ id: number; user_id: number; family_id: string; expires_at: Date; rotated_at: Date | null; revoked_at: Date | null; grace_payload: string | null }>(
          'select id, user_id, family_id, expires_at, rotated_at, revoked_at, grace_payload from refresh_tokens where token_hash = $1',
          [hash],
        )
      ).rows[0];
    const revokeFamily = (familyId: string) => revokeSession(db, familyId);
    const fromGrace = (row: NonNullable<Awaited<ReturnType<typeof find>>>) => {
      const withinGrace = row.rotated_at && Date.now() - new Date(row.rotated_at).getTime() <= config.refreshGraceSeconds * 1000;
      const payload = withinGrace && row.grace_payload ? openPayload(config.jwtSecret, row.grace_payload) : null;
      return payload ? (JSON.parse(payload) as TokenPair) : null;
    };

    const row = await find();
    if (!row) throw new ApiError(401, 'invalid_refresh_token');
    // A deactivated account, a revoked session or one past its absolute lifetime gets no new access
    // tokens, whatever refresh token it still holds.
    const { rows: sessions } = await db.query<{ revoked: boolean; is_active: boolean; age_seconds: number }>(
      `select s.revoked_at is not null as revoked, u.is_active, extract(epoch from now() - s.created_at)::float8 as age_seconds
         from sessions s join users u on u.id = s.user_id where s.id = $1`,
      [row.family_id],
    );
    const session = sessions[0];
    if (!session || session.revoked || !session.is_active || row.revoked_at || Number(session.age_seconds) >= config.sessionMaxAgeSeconds) {
      if (session && !session.revoked && Number(session.age_seconds) >= config.sessionMaxAgeSeconds)
        req.log.info({ userId: Number(row.user_id) }, 'session reached its absolute lifetime');
      await revokeFamily(row.family_id);
      throw new ApiError(401, 'invalid_refresh_token');
    }
    if (row.rotated_at) {
      const again = fromGrace(row);
      if (again) return ok(reply, again);
      // Reuse after the grace window: treat as theft and end every session of this family.
      req.log.warn({ userId: row.user_id }, 'refresh token reuse detected');
      await revokeFamily(row.family_id);
      throw new ApiError(401, 'invalid_refresh_token');
    }
    if (new Date(row.expires_at).getTime() <= Date.now()) throw new ApiError(401, 'invalid_refresh_token');

    const pair = await issuePair(Number(row.user_id), row.family_id);
    await db.query('update sessions set last_seen_at = now() where id = $1', [row.family_id]);
    const { rows: won } = await db.query(
      'update refresh_tokens set rotated_at = now(), grace_payload = $2 where id = $1 and rotated_at is null and revoked_at is null returning id',
      [row.id, sealPayload(config.jwtSecret, JSON.stringify(pair))],
    );
    if (won.length === 0) {
      // A concurrent refresh of the same token won: drop ours and hand out theirs.
      await db.query('delete from refresh_tokens where token_hash = $1', [hashToken(pair.refresh_token)]);
      const latest = await find();
      const theirs = latest && fromGrace(latest);
      if (!theirs) throw new ApiError(401, 'invalid_refresh_token');
      return ok(reply, theirs);
    }
    return ok(reply, pair);
  });
}

function registerPasswords(app: FastifyInstance, db: Db, config: UpstreamConfig, counters: Counters) {
  /**
   * Limited per client address + address as typed and per client address in a rolling hour; the limit answers
   * 429 whether or not the address has an account, so it reveals nothing either. Never per account alone with
   * a 429: a stranger must not make the owner's own request wait (ADR 028). Per account a higher cap silently
   * stops the mails instead, so strangers at many addresses cannot flood a mailbox.
   * Only the newest link works: a new request, or a completed reset, ends the earlier ones.
   */
  app.post('/api/account/forgot-password', async (req, reply) => {
    const { email } = parseBody(forgotPasswordInput, req.body);
    const verdict = await takeAttempt(db, counters.forgot(addressKey(req.ip), email.toLowerCase()));
    if (!verdict.allowed) refuseWithRetry(reply, verdict.retryAfterSeconds, 'too_many_requests');
    const mailable = (await takeAttempt(db, counters.forgotMail(email.toLowerCase()))).allowed;
    const user = mailable ? await findUser(db, { email }) : null;
    // Same answer either way. A deactivated account or a canceled invitation gets no link: it could not use it.
    if (user && user.is_active && user.invitation_status !== 'canceled') {
      await db.transaction(async (tx) => {
        await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'reset' and used_at is null", [user.id]);
        const token = await createAccountToken(tx, user.id, 'reset', 3600 * 1000);
        const link = `${config.appUrl}/reset-password/${token}`;
        await sendMail(
          tx,
          { to: user.email, kind: 'reset', subject: 'Reset your Bike Buddy password', body: `Choose a new password: ${link}`, link },
          { log: req.log, logLinks: config.logMailLinks },
        );
        await recordAccountEvent(tx, config.auditKey, req, Number(user.id), 'password_reset_requested');
      });
    }
    return ok(reply, { sent: true });
  });

  /** Every other reset link of the user stops working, and every session ends (ADR 017, 018). */
  app.post('/api/account/reset-password', async (req, reply) => {
    const input = parseBody(newPasswordInput, req.body);
    // The token first: a wrong one costs no hashing.
    const { userId, email } = await consumeToken(db, input.token, 'reset');
    const passwordHash = await hashPassword(input.password, config.scryptCost);
    // The password, the other links and sessions, and the history's entry: all or nothing.
    await db.transaction(async (tx) => {
      await tx.query('update users set password_hash = $2, updated_at = now() where id = $1', [userId, passwordHash]);
      await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'reset' and used_at is null", [userId]);
      await revokeUserSessions(tx, userId);
      await recordAccountEvent(tx, config.auditKey, req, userId, 'password_reset');
    });
    // Whoever proved the mailbox from this address may sign in from it again at once.
    await forgive(db, 'login', loginPairKey(addressKey(req.ip), email.toLowerCase()));
    return ok(reply, { reset: true });
  });

  app.post('/api/account/accept-invite', async (req, reply) => {
    const input = parseBody(newPasswordInput, req.body);
    const { userId, email } = await consumeToken(db, input.token, 'invite');
    const passwordHash = await hashPassword(input.password, config.scryptCost);
    await db.transaction(async (tx) => {
      await tx.query(
        `update users set password_hash = $2, invitation_status = 'accepted', account_status = 'active',
                member_since = coalesce(member_since, now()), email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now(), version = version + 1
          where id = $1 and is_active`,
        [userId, passwordHash],
      );
      await recordAccountEvent(tx, config.auditKey, req, userId, 'invitation_accepted', { invitation_status: ['pending', 'accepted'] });
    });
    return ok(reply, { email });
  });
}

function registerEmailChange(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);
  /**
   * Not in the spec's table: a signed-in user asks to change their address. Nothing changes until the
   * new address is confirmed through the mailed /confirm-email/<token>/<address> link.
   */
  app.post('/api/account/change-email', { preHandler: authed }, async (req, reply) => {
    const { email } = parseBody(z.object({ email: emailField }), req.body);
    const { rows: taken } = await db.query('select 1 from users where lower(email) = lower($1) or (lower(pending_email) = lower($1) and id <> $2)', [email, req.user!.id]);
    if (taken.length > 0) throw new ApiError(400, 'user_exists', undefined, { email: 'errors.user_exists' });
    await db.transaction(async (tx) => {
      // Only the latest request counts: earlier links stop working.
      await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'confirm' and used_at is null", [req.user!.id]);
      await tx.query('update users set pending_email = $2, updated_at = now() where id = $1', [req.user!.id, email]);
      await recordAccountEvent(tx, config.auditKey, req, req.user!.id, 'email_change_requested', { pending_email: [null, email] });
      const token = await createAccountToken(tx, req.user!.id, 'confirm', DAY);
      const link = `${config.appUrl}/confirm-email/${token}/${encodeURIComponent(email)}`;
      await sendMail(
        tx,
        { to: email, kind: 'confirm', subject: 'Confirm your new e-mail address', body: `Confirm this address for your Bike Buddy account: ${link}`, link },
        { log: req.log, logLinks: config.logMailLinks },
      );
    });
    return ok(reply, await findUser(db, { id: req.user!.id }));
  });

  app.post('/api/account/confirm-email', async (req, reply) => {
    const input = parseBody(confirmEmailInput, req.body);
    // Token and address are matched in one statement, so a wrong address does not burn a valid token.
    // The address is the account's own (confirming it) or the one it asked to change to.
    const { rows } = await db.query<{ user_id: number }>(
      `update account_tokens t set used_at = now()
         from users u
        where t.token_hash = $1 and t.kind = 'confirm' and t.used_at is null and t.expires_at > now()
          and u.id = t.user_id and (lower(u.email) = lower($2) or lower(u.pending_email) = lower($2))
        returning t.user_id`,
      [hashToken(input.token), input.email],
    );
    if (!rows[0]) throw new ApiError(400, 'token_does_not_exist');
    const userId = Number(rows[0].user_id);
    try {
      await db.transaction(async (tx) => {
        const { rows: was } = await tx.query<{ email: string }>('select email from users where id = $1 for update', [userId]);
        const { rows: now } = await tx.query<{ email: string }>(
          `update users set email = case when lower(pending_email) = lower($2) then pending_email else email end,
                            pending_email = null, email_confirmed_at = now(), updated_at = now(), version = version + 1
            where id = $1 returning email`,
          [userId, input.email],
        );
        await recordAccountEvent(
          tx,
          config.auditKey,
          req,
          userId,
          'email_confirmed',
          was[0]?.email === now[0]?.email ? {} : { email: [was[0]?.email ?? null, now[0]?.email ?? null] },
        );
      });
    } catch (error) {
      // Someone else took the address between the request and the confirmation.
      if ((error as { code?: string }).code === '23505') throw new ApiError(400, 'user_exists');
      throw error;
    }
    return ok(reply, { confirmed: true });
  });
}

/** The signed-in user's own profile (§7). */
function registerOwnAccount(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);
  app.get('/api/account/', { preHandler: authed }, async (req, reply) => {
    const user = await findUser(db, { id: req.user!.id });
    if (!user) throw new ApiError(401, 'unauthorized');
    return ok(reply, user);
  });

  app.put('/api/account/', { preHandler: authed }, async (req, reply) => {
    const input = parseBody(profileUpdateInput, req.body);
    if (input.profile_image) {
      const { rows: stored } = await db.query<{ profile_image: string | null }>('select profile_image from users where id = $1', [req.user!.id]);
      await checkUploadedImage(db, config, input.profile_image, {
        field: 'profile_image',
        kind: 'user_profile_picture',
        current: stored[0]?.profile_image,
        uploadedBy: [req.user!.id],
      });
    }
    const keys = Object.keys(input) as (keyof typeof input)[];
    if (keys.length > 0) {
      const sets = keys.map((key, i) => `${key} = $${i + 2}`).join(', ');
      await db.transaction(async (tx) => {
        const { rows: before } = await tx.query<Record<string, unknown>>(`select ${keys.join(', ')} from users where id = $1 for update`, [req.user!.id]);
        await tx.query(`update users set ${sets}, updated_at = now(), version = version + 1 where id = $1`, [req.user!.id, ...keys.map((k) => input[k] ?? null)]);
        const changes = Object.fromEntries(
          keys.filter((k) => canonicalJson(before[0]?.[k]) !== canonicalJson(input[k] ?? null)).map((k) => [k, [before[0]?.[k] ?? null, input[k] ?? null]]),
        );
        if (Object.keys(changes).length > 0) await recordAccountEvent(tx, config.auditKey, req, req.user!.id, 'profile_update', changes as Changes);
      });
    }
    return ok(reply, await findUser(db, { id: req.user!.id }));
  });
}
