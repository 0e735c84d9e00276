import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { profileUpdateInput } from '../../shared/schemas/auth.ts';
import { idField, languageField } from '../../shared/schemas/common.ts';
import { confirmEmailInput, emailField, forgotPasswordInput, loginInput, newPasswordInput } from '../../shared/schemas/credentials.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { INVALID_CREDENTIALS } from '../../shared/errors.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import { signAccessToken } from '../lib/jwt.ts';
import { createSession, revokeSession, revokeUserSessions } from '../lib/sessions.ts';
import { addressKey, backoff, fixedWindow, forgive, giveBack, takeAttempt, type Counter } from '../lib/throttle.ts';
import { hashToken, openPayload, randomToken, sealPayload } from '../lib/tokens.ts';
import { sendMail } from '../mail.ts';
import { findUser, revokeAccountLinks, setUserRoles } from '../users.ts';
import { parseBody } from './validation.ts';

export interface TokenPair {
  token: string;
  refresh_token: string;
}

const inviteInput = z.object({
  email: emailField,
  first_name: z.string().trim().max(80).nullish(),
  last_name: z.string().trim().max(80).nullish(),
  roles: z.array(z.string().max(50)).max(10).optional(),
  user_type: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(5)], { error: 'validation.option' }).optional(),
  language: languageField.optional(),
});
type InviteInput = z.infer<typeof inviteInput>;

const DAY = 24 * 3600 * 1000;

/** One answer to every failed sign-in, so it never tells which addresses have accounts (ADR 018). */
const invalidCredentials = () => new ApiError(INVALID_CREDENTIALS.status, INVALID_CREDENTIALS.code, INVALID_CREDENTIALS.text);

function refuseWithRetry(reply: { header(name: string, value: string): unknown }, seconds: number, code: 'too_many_attempts' | 'too_many_requests'): never {
  reply.header('retry-after', String(seconds));
  throw new ApiError(429, code);
}

/** Throttle keys: the client address, and the address with the account as typed (never the user row). */
const loginPairKey = (address: string, account: string) => `${address}|${account}`;

/** The account invitation machinery other features reuse (trial-group invitations, ADR 014). */
export type Invitations = Pick<ReturnType<typeof registerAccountRoutes>, 'invite' | 'resendInvite'>;

export function registerAccountRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const admin = requireAuth(config, ['Admin']);
  const authed = requireAuth(config);
  let dummyHash: Promise<string> | null = null;
  const throttle = config.loginThrottle;
  const loginCounters = (address: string, account: string): Counter[] => [
    { scope: 'login-ip', key: address, policy: backoff(throttle.ipFreeFailures, throttle.maxDelaySeconds, throttle.forgetAfterSeconds) },
    { scope: 'login', key: loginPairKey(address, account), policy: backoff(throttle.freeFailures, throttle.maxDelaySeconds, throttle.forgetAfterSeconds) },
  ];
  const forgotCounters = (address: string, account: string): Counter[] => [
    { scope: 'forgot-ip', key: address, policy: fixedWindow(config.forgotPasswordLimits.perIpPerHour, 3600) },
    { scope: 'forgot', key: loginPairKey(address, account), policy: fixedWindow(config.forgotPasswordLimits.perClientAndEmailPerHour, 3600) },
  ];
  const forgotMailCounters = (account: string): Counter[] => [{ scope: 'forgot-mail', key: account, policy: fixedWindow(config.forgotPasswordLimits.mailsPerEmailPerHour, 3600) }];

  /** Roles and session version read together, so a token never pairs new roles with an old version. */
  async function grantOf(userId: number): Promise<{ roles: string[]; version: number }> {
    const { rows } = await db.query<{ roles: string[] | null; session_version: number }>(
      `select u.session_version,
              coalesce((select array_agg(r.name order by r.name) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id), '{}') as roles
         from users u where u.id = $1`,
      [userId],
    );
    return { roles: rows[0]?.roles ?? [], version: Number(rows[0]?.session_version ?? 0) };
  }

  /** A new pair; without `sessionId` a new sign-in session (ADR 017). */
  async function issuePair(userId: number, sessionId?: string): Promise<TokenPair> {
    const sid = sessionId ?? (await createSession(db, userId));
    const grant = await grantOf(userId);
    const token = await signAccessToken(config.jwtSecret, userId, grant.roles, config.accessTokenTtlSeconds, { sid, sv: grant.version });
    const refresh = randomToken();
    await db.query(`insert into refresh_tokens (user_id, family_id, token_hash, expires_at) values ($1, $2, $3, now() + make_interval(secs => $4))`, [
      userId,
      sid,
      hashToken(refresh),
      config.refreshTokenTtlSeconds,
    ]);
    return { token, refresh_token: refresh };
  }

  async function createAccountToken(userId: number, kind: 'invite' | 'reset' | 'confirm', ttlMs: number, conn: Db = db): Promise<string> {
    const token = randomToken();
    await conn.query('insert into account_tokens (user_id, kind, token_hash, expires_at) values ($1, $2, $3, $4)', [userId, kind, hashToken(token), new Date(Date.now() + ttlMs)]);
    return token;
  }

  /**
   * Marks a one-time token used and returns its user. Unknown, used or expired, or its account deactivated
   * or its invitation canceled (an invite link also needs the invitation still pending): token_does_not_exist.
   */
  async function consumeToken(token: string, kind: 'invite' | 'reset'): Promise<{ userId: number; email: string }> {
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
   * A pending user with roles, a 7-day link and its mail, in one transaction. `alsoInTransaction`
   * adds what another feature records with it (a trial-group invitation, ADR 014).
   */
  async function invite(input: InviteInput, log: FastifyInstance['log'], options: { about?: string; alsoInTransaction?: (tx: Db, userId: number) => Promise<void> } = {}) {
    const roles = [...new Set(input.roles ?? [])];
    if (roles.length > 0) {
      const { rows: known } = await db.query<{ name: string }>('select name from roles where name = any($1::text[])', [roles]);
      const unknown = roles.filter((role) => !known.some((k) => k.name === role));
      if (unknown.length > 0) throw new ApiError(400, 'validation_error', `Unknown role: ${unknown.join(', ')}`, { roles: `Unknown role: ${unknown.join(', ')}` });
    }
    // One transaction: a user never exists without the link that lets them in.
    const userId = await db
      .transaction(async (tx) => {
        const { rows } = await tx.query<{ id: number }>(
          `insert into users (email, first_name, last_name, user_type, language, account_status, invitation_status, invited_at)
           values ($1, $2, $3, $4, $5, 'pending', 'pending', now()) returning id`,
          [input.email, input.first_name || null, input.last_name || null, input.user_type ?? 1, input.language ?? 'en'],
        );
        const id = Number(rows[0]!.id);
        await setUserRoles(tx, id, roles);
        await mailInvite(tx, id, input.email, log, options.about);
        await options.alsoInTransaction?.(tx, id);
        return id;
      })
      .catch((error: unknown) => {
        // The unique index on lower(email) is the real duplicate check; it also settles two concurrent invites.
        if ((error as { code?: string }).code === '23505') throw new ApiError(400, 'user_exists');
        throw error;
      });
    return (await findUser(db, { id: userId }))!;
  }

  /** `about` names what the person is invited to besides the account (a trial group). */
  async function mailInvite(conn: Db, userId: number, email: string, log: FastifyInstance['log'], about?: string) {
    const token = await createAccountToken(userId, 'invite', 7 * DAY, conn);
    const link = `${config.appUrl}/accept-invitation/${token}`;
    const subject = about ? `You are invited to Bike Buddy: ${about}` : 'You are invited to Bike Buddy';
    await sendMail(conn, { to: email, kind: 'invite', subject, body: `Choose a password to activate your account: ${link}`, link }, { log, logLinks: config.logMailLinks });
  }

  /**
   * A new invitation link for a pending user, or a canceled invitation of an active account re-opened;
   * the previous links stop working (only the latest mail works).
   */
  async function resendInvite(tx: Db, userId: number, email: string, log: FastifyInstance['log'], about?: string) {
    await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'invite' and used_at is null", [userId]);
    await tx.query("update users set invited_at = now(), invitation_status = 'pending', updated_at = now(), version = version + 1 where id = $1", [userId]);
    await mailInvite(tx, userId, email, log, about);
  }

  /**
   * Throttled per client address and per address+account with exponential backoff, never by locking the
   * account: a stranger's failures slow only the stranger (ADR 018). Every failure — unknown address,
   * wrong password, invited user without a password — gets the same answer after the same hashing work.
   */
  app.post('/api/account/login', async (req, reply) => {
    const input = parseBody(loginInput, req.body);
    const address = addressKey(req.ip);
    const account = input.email.toLowerCase();
    const verdict = await takeAttempt(db, loginCounters(address, account));
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
      throw invalidCredentials();
    }
    // The right password: this pair starts over, and the address gets its attempt back.
    await forgive(db, 'login', loginPairKey(address, account));
    await giveBack(db, 'login-ip', address);
    if (!user.is_active) throw new ApiError(403, 'account_inactive');
    return ok(reply, await issuePair(Number(user.id)));
  });

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

  /** Ends the session of this refresh token: its access tokens stop working at once too (ADR 017). */
  app.post('/api/account/logout', async (req, reply) => {
    const { refresh_token } = parseBody(z.object({ refresh_token: z.string().min(1).max(512) }), req.body);
    const { rows } = await db.query<{ family_id: string }>('select family_id from refresh_tokens where token_hash = $1', [hashToken(refresh_token)]);
    if (rows[0]) await revokeSession(db, rows[0].family_id);
    return ok(reply, { logged_out: true });
  });

  app.post('/api/account/invite', { preHandler: admin }, async (req, reply) => ok(reply, await invite(parseBody(inviteInput, req.body), req.log)));

  app.post('/api/account/bulk-invite', { preHandler: admin }, async (req, reply) => {
    const { invites } = parseBody(z.object({ invites: z.array(z.record(z.string(), z.unknown())).min(1).max(500) }), req.body);
    const results = [];
    for (const raw of invites) {
      const email = typeof raw.email === 'string' ? raw.email.trim() : '';
      const parsed = inviteInput.safeParse(raw);
      if (!parsed.success) {
        const badEmail = parsed.error.issues.some((issue) => issue.path[0] === 'email');
        results.push({
          email,
          success: false,
          error: badEmail
            ? { message: 'validation_error', cause: 'Provided value is not Email.', fields: { email: 'validation.email' } }
            : { message: 'validation_error', cause: 'Some fields are not valid.', fields: fieldErrorsOf(parsed.error) },
        });
        continue;
      }
      try {
        const user = await invite(parsed.data, req.log);
        results.push({ email, success: true, user_id: user.id });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        results.push({ email, success: false, error: { message: error.code, cause: error.message } });
      }
    }
    return ok(reply, { results });
  });

  /** Pending: a fresh link. Canceled: re-opened with a fresh link, but only while the account is active. */
  app.post('/api/account/resend-invite', { preHandler: admin }, async (req, reply) => {
    const { user_id } = parseBody(z.object({ user_id: idField() }), req.body);
    const user = await findUser(db, { id: user_id });
    if (!user) throw new ApiError(404, 'not_found');
    if (user.invitation_status !== 'pending' && user.invitation_status !== 'canceled')
      throw new ApiError(400, 'validation_error', 'This user has already accepted the invitation.');
    if (!user.is_active) throw new ApiError(409, 'account_inactive');
    await db.transaction((tx) => resendInvite(tx, user_id, user.email, req.log));
    return ok(reply, await findUser(db, { id: user_id }));
  });

  /** Not in the spec's table: the invitation's links stop working and accepting it is refused (ADR 018). */
  app.post('/api/account/cancel-invite', { preHandler: admin }, async (req, reply) => {
    const { user_id } = parseBody(
      z.object({
        user_id: z.coerce
          .number()
          .int()
          .positive()
          .max(2 ** 53),
      }),
      req.body,
    );
    const canceled = await db.transaction(async (tx) => {
      const { rows } = await tx.query(
        "update users set invitation_status = 'canceled', updated_at = now(), version = version + 1 where id = $1 and invitation_status = 'pending' returning id",
        [user_id],
      );
      if (!rows[0]) return false;
      await revokeAccountLinks(tx, user_id);
      await revokeUserSessions(tx, user_id);
      return true;
    });
    if (!canceled) {
      if (!(await findUser(db, { id: user_id }))) throw new ApiError(404, 'not_found');
      throw new ApiError(409, 'invitation_not_pending');
    }
    return ok(reply, await findUser(db, { id: user_id }));
  });

  /**
   * Limited per client address + address as typed and per client address in a rolling hour; the limit answers
   * 429 whether or not the address has an account, so it reveals nothing either. Never per account alone with
   * a 429: a stranger must not make the owner's own request wait (ADR 028). Per account a higher cap silently
   * stops the mails instead, so strangers at many addresses cannot flood a mailbox.
   * Only the newest link works: a new request, or a completed reset, ends the earlier ones.
   */
  app.post('/api/account/forgot-password', async (req, reply) => {
    const { email } = parseBody(forgotPasswordInput, req.body);
    const verdict = await takeAttempt(db, forgotCounters(addressKey(req.ip), email.toLowerCase()));
    if (!verdict.allowed) refuseWithRetry(reply, verdict.retryAfterSeconds, 'too_many_requests');
    const mailable = (await takeAttempt(db, forgotMailCounters(email.toLowerCase()))).allowed;
    const user = mailable ? await findUser(db, { email }) : null;
    // Same answer either way. A deactivated account or a canceled invitation gets no link: it could not use it.
    if (user && user.is_active && user.invitation_status !== 'canceled') {
      await db.transaction(async (tx) => {
        await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'reset' and used_at is null", [user.id]);
        const token = await createAccountToken(user.id, 'reset', 3600 * 1000, tx);
        const link = `${config.appUrl}/reset-password/${token}`;
        await sendMail(
          tx,
          { to: user.email, kind: 'reset', subject: 'Reset your Bike Buddy password', body: `Choose a new password: ${link}`, link },
          { log: req.log, logLinks: config.logMailLinks },
        );
      });
    }
    return ok(reply, { sent: true });
  });

  /** Every other reset link of the user stops working, and every session ends (ADR 017, 018). */
  app.post('/api/account/reset-password', async (req, reply) => {
    const input = parseBody(newPasswordInput, req.body);
    const { userId, email } = await consumeToken(input.token, 'reset');
    await db.query('update users set password_hash = $2, updated_at = now() where id = $1', [userId, await hashPassword(input.password, config.scryptCost)]);
    await db.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'reset' and used_at is null", [userId]);
    await revokeUserSessions(db, userId);
    // Whoever proved the mailbox from this address may sign in from it again at once.
    await forgive(db, 'login', loginPairKey(addressKey(req.ip), email.toLowerCase()));
    return ok(reply, { reset: true });
  });

  app.post('/api/account/accept-invite', async (req, reply) => {
    const input = parseBody(newPasswordInput, req.body);
    const { userId, email } = await consumeToken(input.token, 'invite');
    await db.query(
      `update users set password_hash = $2, invitation_status = 'accepted', account_status = 'active',
              member_since = coalesce(member_since, now()), email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now(), version = version + 1
        where id = $1 and is_active`,
      [userId, await hashPassword(input.password, config.scryptCost)],
    );
    return ok(reply, { email });
  });

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
      const token = await createAccountToken(req.user!.id, 'confirm', DAY, tx);
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
    try {
      await db.query(
        `update users set email = case when lower(pending_email) = lower($2) then pending_email else email end,
                          pending_email = null, email_confirmed_at = now(), updated_at = now(), version = version + 1
          where id = $1`,
        [rows[0].user_id, input.email],
      );
    } catch (error) {
      // Someone else took the address between the request and the confirmation.
      if ((error as { code?: string }).code === '23505') throw new ApiError(400, 'user_exists');
      throw error;
    }
    return ok(reply, { confirmed: true });
  });

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
      await db.query(`update users set ${sets}, updated_at = now(), version = version + 1 where id = $1`, [req.user!.id, ...keys.map((k) => input[k] ?? null)]);
    }
    return ok(reply, await findUser(db, { id: req.user!.id }));
  });

  return { issuePair, createAccountToken, invite, resendInvite };
}
