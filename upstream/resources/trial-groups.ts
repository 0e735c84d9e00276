import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ERROR_TEXT } from '../../shared/errors.ts';
import { emailField } from '../../shared/schemas/credentials.ts';
import { trialInviteInput, type TrialGroupInvite, type TrialGroupMember, type TrialGroupStatistics, type TrialInviteResult } from '../../shared/schemas/trial-groups.ts';
import { splitAddresses } from '../../shared/schemas/users.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import type { Invitations } from '../invitations.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import type { EntityHandlersFactory, EntityRouteHandler } from './entity-actions.ts';

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());

/** One address: a new person gets an account invitation; a pending one a fresh link; a registered one joins at once. */
async function inviteOne(db: Db, invitations: Invitations, groupId: number, about: string, email: string, log: FastifyBaseLogger): Promise<TrialInviteResult> {
  const parsed = emailField.safeParse(email);
  if (!parsed.success) return { email, success: false, error: { message: 'validation_error', cause: 'Provided value is not Email.' } };
  const address = parsed.data;
  const { rows } = await db.query<{ id: number; email: string; invitation_status: string; is_active: boolean }>(
    'select id, email, invitation_status, is_active from users where lower(email) = lower($1)',
    [address],
  );
  const user = rows[0];
  if (!user) {
    try {
      await invitations.invite({ email: address, roles: [] }, log, {
        about,
        alsoInTransaction: (tx, userId) =>
          tx.query('insert into trial_group_invites (trial_group_id, user_id, email) values ($1, $2, $3)', [groupId, userId, address]).then(() => undefined),
      });
    } catch (error) {
      if (error instanceof ApiError) return { email: address, success: false, error: { message: error.code, cause: error.message } };
      throw error;
    }
    return { email: address, success: true, status: 'invited' };
  }
  const userId = Number(user.id);
  // As account/resend-invite: a canceled invitation re-opens, but never for a deactivated account.
  const unaccepted = user.invitation_status === 'pending' || user.invitation_status === 'canceled';
  if (unaccepted && !user.is_active) return { email: address, success: false, error: { message: 'account_inactive', cause: ERROR_TEXT.account_inactive } };
  if (unaccepted) {
    await db.transaction(async (tx) => {
      await tx.query(
        `insert into trial_group_invites (trial_group_id, user_id, email) values ($1, $2, $3)
         on conflict (trial_group_id, user_id) do update set invited_at = now(), sent_count = trial_group_invites.sent_count + 1`,
        [groupId, userId, user.email],
      );
      await invitations.resendInvite(tx, userId, user.email, log, about);
    });
    return { email: address, success: true, status: 'invited' };
  }
  // Already has an account: nothing to accept, so the invitation is registered and the person joins.
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into trial_group_invites (trial_group_id, user_id, email, status, registered_at) values ($1, $2, $3, 'registered', now())
       on conflict (trial_group_id, user_id) do nothing`,
      [groupId, userId, user.email],
    );
    await tx.query('insert into trial_group_users (trial_group_id, user_id) values ($1, $2) on conflict do nothing', [groupId, userId]);
  });
  return { email: address, success: true, status: 'registered' };
}

/** The group's name (what its invitations are about), or 404 when there is no such group. */
async function groupName(db: Db, id: number): Promise<string> {
  const { rows } = await db.query<{ name: string }>('select name from trial_groups where id = $1', [id]);
  if (!rows[0]) throw new ApiError(404, 'not_found');
  return rows[0].name;
}

async function members(db: Db, id: number): Promise<TrialGroupMember[]> {
  // As the driver reads them: a bigint id may come as text, a timestamp as a Date.
  const { rows } = await db.query<Omit<TrialGroupMember, 'user_id' | 'added_at'> & { user_id: unknown; added_at: unknown }>(
    `select u.id as user_id, u.email, u.first_name, u.last_name, u.invitation_status, m.added_at
       from trial_group_users m join users u on u.id = m.user_id
      where m.trial_group_id = $1 order by m.added_at, u.id limit 1000`,
    [id],
  );
  return rows.map((r) => ({ ...r, user_id: Number(r.user_id), added_at: iso(r.added_at)! }));
}

async function invites(db: Db, id: number): Promise<TrialGroupInvite[]> {
  const { rows } = await db.query<
    Omit<TrialGroupInvite, 'id' | 'user_id' | 'sent_count' | 'invited_at' | 'registered_at'> & Record<'id' | 'user_id' | 'sent_count' | 'invited_at' | 'registered_at', unknown>
  >(
    `select id, user_id, email, status, invited_at, registered_at, sent_count from trial_group_invites
      where trial_group_id = $1 order by invited_at desc, id desc limit 1000`,
    [id],
  );
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    user_id: Number(r.user_id),
    sent_count: Number(r.sent_count),
    invited_at: iso(r.invited_at)!,
    registered_at: iso(r.registered_at),
  }));
}

/** A user's id, in a body or a path, parsed as a record's `:id` is. */
const userIdField = idParam.shape.id;

/** The members sub-resource: list, add, remove. */
function memberHandlers(db: Db) {
  const list: EntityRouteHandler = async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    await groupName(db, id);
    return ok(reply, await members(db, id));
  };

  /** Adds an existing user to the group (no invitation needed). */
  const add: EntityRouteHandler = async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { user_id } = parseBody(z.object({ user_id: userIdField }), req.body);
    await groupName(db, id);
    try {
      await db.transaction((tx) => tx.query('insert into trial_group_users (trial_group_id, user_id) values ($1, $2) on conflict do nothing', [id, user_id]));
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new ApiError(400, 'validation_error', undefined, { user_id: 'validation.option' });
      throw error;
    }
    return ok(reply, await members(db, id));
  };

  const remove: EntityRouteHandler = async (req, reply) => {
    const { id, key: userId } = parseBody(idParam.extend({ key: userIdField }), req.params);
    await groupName(db, id);
    const { rows } = await db.transaction((tx) => tx.query('delete from trial_group_users where trial_group_id = $1 and user_id = $2 returning user_id', [id, userId]));
    if (!rows[0]) throw new ApiError(404, 'not_found');
    return ok(reply, await members(db, id));
  };

  return { list, add, remove };
}

function listInvites(db: Db): EntityRouteHandler {
  return async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    await groupName(db, id);
    return ok(reply, await invites(db, id));
  };
}

/** The group's actions: invite addresses, and send a fresh link to the invited who have not registered. */
function inviteActions(db: Db, invitations: Invitations) {
  /** `{emails: "a@x.se, b@y.se"}` → one result per address, as account/bulk-invite answers. */
  const invite: EntityRouteHandler = async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { emails } = parseBody(trialInviteInput, req.body);
    const about = await groupName(db, id);
    const results: TrialInviteResult[] = [];
    for (const email of splitAddresses(emails)) results.push(await inviteOne(db, invitations, id, about, email, req.log));
    return ok(reply, { results });
  };

  /** A fresh link to everyone invited who has not registered yet; earlier links stop working. */
  const reinvite: EntityRouteHandler = async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const about = await groupName(db, id);
    const { rows } = await db.query<{ user_id: number; email: string }>(
      `select i.user_id, u.email from trial_group_invites i join users u on u.id = i.user_id
        where i.trial_group_id = $1 and i.status = 'invited' and u.invitation_status = 'pending' order by i.id`,
      [id],
    );
    for (const row of rows) {
      await db.transaction(async (tx) => {
        await tx.query('update trial_group_invites set invited_at = now(), sent_count = sent_count + 1 where trial_group_id = $1 and user_id = $2', [id, row.user_id]);
        await invitations.resendInvite(tx, Number(row.user_id), row.email, req.log, about);
      });
    }
    return ok(reply, { reinvited: rows.length });
  };

  return { invite, reinvite };
}

/** GET trial-groups/<id>/statistics/: invited, registered, pending and member counts. */
async function statistics(db: Db, req: FastifyRequest, reply: FastifyReply) {
  const { id } = parseBody(idParam, req.params);
  await groupName(db, id);
  const { rows } = await db.query<Record<string, number>>(
    `select (select count(*)::int from trial_group_invites where trial_group_id = $1) as invited,
            (select count(*)::int from trial_group_invites where trial_group_id = $1 and status = 'registered') as registered,
            (select count(*)::int from trial_group_users where trial_group_id = $1) as members`,
    [id],
  );
  const r = rows[0]!;
  const stats: TrialGroupStatistics = {
    invited: Number(r.invited),
    registered: Number(r.registered),
    pending: Number(r.invited) - Number(r.registered),
    members: Number(r.members),
  };
  return ok(reply, stats);
}

/**
 * Trial groups (ADR 014): the generic resource plus members, invitations and statistics.
 * Invitations reuse the account invitation (pending user, 7-day link, outbox mail); the trigger of
 * migration 025 turns an invitation `registered` when its person accepts.
 */
export const handlers: EntityHandlersFactory = ({ db, invitations }) => ({
  actions: inviteActions(db, invitations),
  subResources: { users: memberHandlers(db), invites: { list: listInvites(db) } },
  routes(app: FastifyInstance, { read }) {
    app.get('/api/trial-groups/:id/statistics/', { preHandler: read }, (req, reply) => statistics(db, req, reply));
  },
});
