import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';
import { recordAccountEvent } from '../lib/audit.ts';
import { acceptSecondFactorCode } from '../lib/factors.ts';
import { authenticationResponse, checkAssertion, passkeyByCredential } from '../lib/passkeys.ts';
import { verifyPassword } from '../lib/password.ts';
import { addressKey, backoff, forgive, refuseWithRetry, takeAttempt, type Counter } from '../lib/throttle.ts';

/**
 * Fresh proof (issue 32, ADR 075): removing a second factor needs more than the signed-in session — a stolen session
 * must not be able to take a factor away. The request that removes it carries one proof that it is the account's
 * owner, now: the password, a code of the authenticator app or a recovery code, or a passkey's answer to a confirm
 * challenge of this user (five minutes at most: the challenge's life, and used once). Every attempt counts as a wrong
 * code does, per client address and account and per account (ADR 068), before its outcome.
 */

/** One proof; none is `fresh_proof_required`. */
export const freshProofInput = z.object({
  password: z.string().min(1).max(1024).optional(),
  code: z.string().trim().min(1).max(32).optional(),
  passkey: authenticationResponse.optional(),
});
export type FreshProof = z.infer<typeof freshProofInput>;

/**
 * Wrong codes are counted per client address + account (backoff after the sign-in's free failures) and per
 * account (backoff after twice as many). Per account alone is no lockout a stranger can cause here: only who
 * holds the password (or a signed-in session) reaches a code check, and six digits must not be guessable from
 * many addresses (ADR 068).
 */
function codeCounters(config: UpstreamConfig, address: string, userId: number): Counter[] {
  const t = config.loginThrottle;
  return [
    { scope: 'second-factor', key: `${address}|${userId}`, policy: backoff(t.freeFailures, t.maxDelaySeconds, t.forgetAfterSeconds) },
    { scope: 'second-factor-user', key: String(userId), policy: backoff(t.freeFailures * 2, t.maxDelaySeconds, t.forgetAfterSeconds) },
  ];
}

/** Counts an attempt at a code (or another proof) of this account; past the allowance, 429 with `Retry-After`. `accepted` forgives them. */
export async function takeCodeAttempt(db: Db, config: UpstreamConfig, req: FastifyRequest, reply: FastifyReply, userId: number) {
  const address = addressKey(req.ip);
  const verdict = await takeAttempt(db, codeCounters(config, address, userId));
  if (!verdict.allowed) {
    req.log.warn({ address }, 'second factor throttled');
    refuseWithRetry(reply, verdict.retryAfterSeconds);
  }
  return {
    async accepted() {
      await forgive(db, 'second-factor', `${address}|${userId}`);
      await forgive(db, 'second-factor-user', String(userId));
    },
  };
}

/**
 * Checks the request's fresh proof for the signed-in user, or refuses: `fresh_proof_required` (none given),
 * `fresh_proof_invalid` (a wrong password), `wrong_code`, `passkey_invalid` (a wrong answer, another user's passkey,
 * or a challenge that is not this user's confirm challenge). A code or a passkey's challenge is spent by the check.
 */
export async function proveFresh(db: Db, config: UpstreamConfig, req: FastifyRequest, reply: FastifyReply, proof: FreshProof): Promise<void> {
  const userId = req.user!.id;
  if (proof.password === undefined && proof.code === undefined && proof.passkey === undefined) throw new ApiError(400, 'fresh_proof_required');
  const attempt = await takeCodeAttempt(db, config, req, reply, userId);
  if (proof.passkey) {
    const answer = proof.passkey;
    const passkey = await passkeyByCredential(db, answer.id);
    if (!passkey || passkey.userId !== userId) throw new ApiError(400, 'passkey_invalid');
    await checkAssertion(db, config, req, answer, passkey, 'confirm', () =>
      db.transaction((tx) => recordAccountEvent(tx, config.auditKey, req, userId, 'second_factor_failed', { method: [null, 'passkey'] })),
    );
  } else if (proof.code !== undefined) {
    if (!(await acceptSecondFactorCode(db, config.jwtSecret, userId, proof.code))) throw new ApiError(400, 'wrong_code');
  } else {
    const { rows } = await db.query<{ password_hash: string | null }>('select password_hash from users where id = $1', [userId]);
    const hash = rows[0]?.password_hash;
    if (!hash || !(await verifyPassword(proof.password!, hash))) throw new ApiError(400, 'fresh_proof_invalid', undefined, { password: 'errors.fresh_proof_invalid' });
  }
  await attempt.accepted();
}
