import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { languageField } from '../shared/schemas/common.ts';
import { emailField } from '../shared/schemas/credentials.ts';
import type { UpstreamConfig } from './config.ts';
import type { Db } from './db.ts';
import { ApiError } from './lib/api-error.ts';
import { hashToken, randomToken } from './lib/tokens.ts';
import { sendMail } from './mail.ts';
import { findUser, setUserRoles } from './users.ts';

export const DAY = 24 * 3600 * 1000;

/** What an invitation takes: the address, the name, roles, type and language of the new account. */
export const inviteInput = z.object({
  email: emailField,
  first_name: z.string().trim().max(80).nullish(),
  last_name: z.string().trim().max(80).nullish(),
  roles: z.array(z.string().max(50)).max(10).nullish(),
  user_type: z.union([z.literal(1), z.literal(2), z.literal(4), z.literal(5)], { error: 'validation.option' }).nullish(),
  language: languageField.nullish(),
});
export type InviteInput = z.infer<typeof inviteInput>;

/** A one-time link's token (invitation, password reset, address confirmation); only its hash is stored. */
export async function createAccountToken(conn: Db, userId: number, kind: 'invite' | 'reset' | 'confirm', ttlMs: number): Promise<string> {
  const token = randomToken();
  await conn.query('insert into account_tokens (user_id, kind, token_hash, expires_at) values ($1, $2, $3, $4)', [userId, kind, hashToken(token), new Date(Date.now() + ttlMs)]);
  return token;
}

export interface InviteOptions {
  /** What the person is invited to besides the account (a trial group), named in the mail. */
  about?: string;
  /** What another feature records in the same transaction (a trial-group invitation, ADR 014). */
  alsoInTransaction?: (tx: Db, userId: number) => Promise<void>;
}

/** The account invitation machinery: the users' invite actions and the trial groups' invitations use it (ADR 014). */
export interface Invitations {
  invite(input: InviteInput, log: FastifyBaseLogger, options?: InviteOptions): Promise<NonNullable<Awaited<ReturnType<typeof findUser>>>>;
  resendInvite(tx: Db, userId: number, email: string, log: FastifyBaseLogger, about?: string): Promise<void>;
}

export function createInvitations(db: Db, config: UpstreamConfig): Invitations {
  async function mailInvite(conn: Db, userId: number, email: string, log: FastifyBaseLogger, about?: string) {
    const token = await createAccountToken(conn, userId, 'invite', 7 * DAY);
    const link = `${config.appUrl}/accept-invitation/${token}`;
    const subject = about ? `You are invited to Bike Buddy: ${about}` : 'You are invited to Bike Buddy';
    await sendMail(conn, { to: email, kind: 'invite', subject, body: `Choose a password to activate your account: ${link}`, link }, { log, logLinks: config.logMailLinks });
  }

  /** Refuses role names the catalogue does not have, as a field error. */
  async function checkRoles(roles: string[]) {
    if (roles.length === 0) return;
    const { rows: known } = await db.query<{ name: string }>('select name from roles where name = any($1::text[])', [roles]);
    const unknown = roles.filter((role) => !known.some((k) => k.name === role));
    if (unknown.length > 0) throw new ApiError(400, 'validation_error', `Unknown role: ${unknown.join(', ')}`, { roles: `Unknown role: ${unknown.join(', ')}` });
  }

  return {
    /** A pending user with roles, a 7-day link and its mail, in one transaction. */
    async invite(input, log, options = {}) {
      const roles = [...new Set(input.roles ?? [])];
      await checkRoles(roles);
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
    },

    /**
     * A new invitation link for a pending user, or a canceled invitation of an active account re-opened;
     * the previous links stop working (only the latest mail works).
     */
    async resendInvite(tx, userId, email, log, about) {
      await tx.query("update account_tokens set used_at = now() where user_id = $1 and kind = 'invite' and used_at is null", [userId]);
      await tx.query("update users set invited_at = now(), invitation_status = 'pending', updated_at = now(), version = version + 1 where id = $1", [userId]);
      await mailInvite(tx, userId, email, log, about);
    },
  };
}
