import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordAccountEvent } from '../lib/audit.ts';
import { requireAuth } from '../lib/auth.ts';
import {
  acceptSecondFactorCode,
  hasSecondFactor,
  newTotpSecret,
  policyRequires,
  policyRoles,
  replaceRecoveryCodes,
  seal,
  setPolicyRoles,
  totpFactorOf,
  totpStep,
} from '../lib/factors.ts';
import { bumpSessionVersion, revokeOtherSessions, revokeSession } from '../lib/sessions.ts';
import { findUser } from '../users.ts';
import { openChallenge, signIn, type IssuePair } from './account.ts';
import { freshProofInput, proveFresh, takeCodeAttempt } from './fresh-proof.ts';
import { parseBody } from './validation.ts';

/**
 * Second factors (issue 32, ADR 068): the second step of a sign-in, enrolling and removing an authenticator
 * app, recovery codes, the user's own sessions, and the Admin policy naming the roles that must have a factor.
 * Every factor change is an entry of the account's history and ends the user's other sessions.
 */

const codeInput = z.object({ code: z.string().trim().min(1).max(32) });
const challengeInput = codeInput.extend({ challenge: z.string().min(1).max(2000) });

/** A factor changed: its history entry, every other session of the user ends, and this one's tokens refresh (ADR 068). */
export async function factorChanged(tx: Db, config: UpstreamConfig, req: FastifyRequest, action: 'factor_added' | 'factor_removed' | 'recovery_codes_generated', kind: string) {
  const userId = req.user!.id;
  await revokeOtherSessions(tx, userId, req.user!.sessionId);
  await bumpSessionVersion(tx, userId);
  await recordAccountEvent(tx, config.auditKey, req, userId, action, { factor: [null, kind] });
}

export function registerFactorRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig, issuePair: IssuePair) {
  const authed = requireAuth(config);

  /** The second step of a sign-in: the challenge of the first step and a code of the authenticator app, or a recovery code. */
  app.post('/api/account/login/second-factor', async (req, reply) => {
    const input = parseBody(challengeInput, req.body);
    const challenge = openChallenge(config, input.challenge);
    if (!challenge) throw new ApiError(400, 'second_factor_expired');
    const attempt = await takeCodeAttempt(db, config, req, reply, challenge.userId);
    const method = await acceptSecondFactorCode(db, config.jwtSecret, challenge.userId, input.code);
    if (!method) {
      await db.transaction((tx) => recordAccountEvent(tx, config.auditKey, req, challenge.userId, 'second_factor_failed'));
      throw new ApiError(400, 'wrong_code');
    }
    await attempt.accepted();
    const user = await findUser(db, { id: challenge.userId });
    if (!user?.is_active) throw new ApiError(403, 'account_inactive');
    return ok(reply, await signIn(db, config, req, issuePair, challenge.userId, challenge.method, method));
  });

  /** The user's factors: the authenticator app, recovery codes left, passkeys; and whether the policy requires one. */
  app.get('/api/account/factors', { preHandler: authed }, async (req, reply) => {
    const userId = req.user!.id;
    const { rows: factors } = await db.query<{ id: number; kind: string; name: string | null; created_at: Date; last_used_at: Date | null }>(
      'select id, kind, name, created_at, last_used_at from user_factors where user_id = $1 and confirmed_at is not null order by id',
      [userId],
    );
    const { rows: codes } = await db.query<{ left: number }>('select count(*)::int as left from recovery_codes where user_id = $1 and used_at is null', [userId]);
    const totp = factors.find((f) => f.kind === 'totp');
    return ok(reply, {
      totp: totp ? { created_at: totp.created_at, last_used_at: totp.last_used_at } : null,
      passkeys: factors.filter((f) => f.kind === 'passkey').map((f) => ({ id: Number(f.id), name: f.name, created_at: f.created_at, last_used_at: f.last_used_at })),
      recovery_codes_left: Number(codes[0]?.left ?? 0),
      required: await policyRequires(db, req.user!.roles),
    });
  });

  registerTotpRoutes(app, db, config);
  registerOwnSessionRoutes(app, db, config);
}

/** Enrolling, confirming and removing an authenticator app, and new recovery codes. */
function registerTotpRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);

  /** Starts enrolling an authenticator app: a new secret, shown once; nothing changes until a code confirms it. */
  app.post('/api/account/factors/totp', { preHandler: authed }, async (req, reply) => {
    const userId = req.user!.id;
    const existing = await totpFactorOf(db, config.jwtSecret, userId);
    if (existing?.confirmed) throw new ApiError(409, 'factor_exists');
    const user = await findUser(db, { id: userId });
    const fresh = newTotpSecret();
    await db.query(
      `insert into user_factors (user_id, kind, secret) values ($1, 'totp', $2)
       on conflict (user_id) where kind = 'totp' do update set secret = excluded.secret, last_step = null, created_at = now()
       where user_factors.confirmed_at is null`,
      [userId, seal(config.jwtSecret, 'totp-secret', fresh.secret)],
    );
    return ok(reply, { secret: fresh.secret, uri: fresh.uri(user?.email ?? String(userId)) });
  });

  /** Confirms the authenticator app with its first code: the factor counts from now, with new recovery codes (shown once). */
  app.post('/api/account/factors/totp/confirm', { preHandler: authed }, async (req, reply) => {
    const { code } = parseBody(codeInput, req.body);
    const userId = req.user!.id;
    const attempt = await takeCodeAttempt(db, config, req, reply, userId);
    const factor = await totpFactorOf(db, config.jwtSecret, userId);
    if (!factor || factor.confirmed) throw new ApiError(409, factor ? 'factor_exists' : 'factor_not_started');
    const step = totpStep(factor.secret, code, null);
    if (step === null) throw new ApiError(400, 'wrong_code');
    await attempt.accepted();
    const codes = await db.transaction(async (tx) => {
      const { rows } = await tx.query('update user_factors set confirmed_at = now(), last_step = $2 where id = $1 and confirmed_at is null returning id', [factor.id, step]);
      if (rows.length === 0) throw new ApiError(409, 'factor_exists');
      await factorChanged(tx, config, req, 'factor_added', 'totp');
      return replaceRecoveryCodes(tx, userId);
    });
    return ok(reply, { recovery_codes: codes });
  });

  /**
   * Removes the authenticator app, with fresh proof that it is the owner in the same request (ADR 075: a current
   * code or a recovery code, the password, or a passkey's answer); not the last factor the policy requires.
   */
  app.post('/api/account/factors/totp/remove', { preHandler: authed }, async (req, reply) => {
    const proof = parseBody(freshProofInput, req.body ?? {});
    const userId = req.user!.id;
    await proveFresh(db, config, req, reply, proof);
    await db.transaction(async (tx) => {
      await tx.query("delete from user_factors where user_id = $1 and kind = 'totp'", [userId]);
      if ((await policyRequires(tx, req.user!.roles)) && !(await hasSecondFactor(tx, userId))) throw new ApiError(409, 'second_factor_required');
      if (!(await hasSecondFactor(tx, userId))) await tx.query('delete from recovery_codes where user_id = $1', [userId]);
      await factorChanged(tx, config, req, 'factor_removed', 'totp');
    });
    return ok(reply, { removed: true });
  });

  /** New recovery codes (shown once); the old ones stop working. */
  app.post('/api/account/factors/recovery-codes', { preHandler: authed }, async (req, reply) => {
    const userId = req.user!.id;
    if (!(await hasSecondFactor(db, userId))) throw new ApiError(409, 'factor_not_started');
    const codes = await db.transaction(async (tx) => {
      await factorChanged(tx, config, req, 'recovery_codes_generated', 'recovery');
      return replaceRecoveryCodes(tx, userId);
    });
    return ok(reply, { recovery_codes: codes });
  });
}

/** The user's own sessions (listed, ended), and the Admin's second-factor policy. */
function registerOwnSessionRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const authed = requireAuth(config);

  /** The user's open sessions: where each was opened, when last used, and which is this one. */
  app.get('/api/account/sessions', { preHandler: authed }, async (req, reply) => {
    const { rows } = await db.query<{ id: string; created_at: Date; last_seen_at: Date | null; ip: string | null; user_agent: string | null }>(
      `select id, created_at, last_seen_at, ip, user_agent from sessions
        where user_id = $1 and revoked_at is null and created_at > now() - make_interval(secs => $2)
        order by coalesce(last_seen_at, created_at) desc limit 100`,
      [req.user!.id, config.sessionMaxAgeSeconds],
    );
    return ok(
      reply,
      rows.map((row) => ({ ...row, current: row.id === req.user!.sessionId })),
    );
  });

  /** Ends one of the user's own sessions (this one too: that is a sign-out). */
  app.post('/api/account/sessions/:id/end', { preHandler: authed }, async (req, reply) => {
    const { id } = z.object({ id: z.string().min(1).max(64) }).parse(req.params);
    await db.transaction(async (tx) => {
      const { rows } = await tx.query('select 1 from sessions where id = $1 and user_id = $2 and revoked_at is null', [id, req.user!.id]);
      if (rows.length === 0) throw new ApiError(404, 'not_found');
      await revokeSession(tx, id);
      await recordAccountEvent(tx, config.auditKey, req, req.user!.id, 'session_ended', id === req.user!.sessionId ? {} : { session: [null, 'other'] });
    });
    return ok(reply, { ended: true });
  });

  /** The Admin policy: roles that must have a second factor (default Admin). Outside account/: a sign-in sent to enrol cannot change it. */
  const admin = requireAuth(config, ['Admin']);
  app.get('/api/second-factor-policy', { preHandler: admin }, async (_req, reply) => ok(reply, { roles: await policyRoles(db) }));
  app.put('/api/second-factor-policy', { preHandler: admin }, async (req, reply) => {
    const { roles } = parseBody(z.object({ roles: z.array(z.string().min(1).max(64)).max(50) }), req.body);
    const before = await policyRoles(db);
    await db.transaction(async (tx) => {
      await setPolicyRoles(tx, roles);
      await recordAccountEvent(tx, config.auditKey, req, req.user!.id, 'second_factor_policy', { roles: [before, [...new Set(roles)].sort()] });
    });
    return ok(reply, { roles: await policyRoles(db) });
  });
}
