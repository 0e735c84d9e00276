import { z } from 'zod';
import { trialGroupsEntity } from '../../../shared/entities/trial-groups.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { trialInviteEmails, type TrialGroupInvite, type TrialGroupMember, type TrialGroupStatistics, type TrialInviteResult } from '../../../shared/schemas/trial-groups.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { createCrudProcedures } from '../crud-router.ts';
import { roleProcedure, router } from '../init.ts';

const procedure = roleProcedure(...rolesOf('/trial-groups/:id'));
const groupId = z.object({ id: z.number().int().positive() });

/** Trial groups: CRUD, members, invitations (through the account invitation, ADR 014) and statistics. */
export const trialGroupsRouter = router({
  ...createCrudProcedures(trialGroupsEntity),
  members: procedure.input(groupId).query(({ ctx, input }) => ctx.session.call<TrialGroupMember[]>({ method: 'GET', path: `trial-groups/${input.id}/users/`, lang: ctx.lang })),
  addMember: procedure
    .input(groupId.extend({ userId: z.number().int().positive() }))
    .mutation(({ ctx, input }) => ctx.session.call<TrialGroupMember[]>({ method: 'POST', path: `trial-groups/${input.id}/users/`, body: { user_id: input.userId }, lang: ctx.lang })),
  removeMember: procedure
    .input(groupId.extend({ userId: z.number().int().positive() }))
    .mutation(({ ctx, input }) => ctx.session.call<TrialGroupMember[]>({ method: 'DELETE', path: `trial-groups/${input.id}/users/${input.userId}/`, lang: ctx.lang })),
  invites: procedure.input(groupId).query(({ ctx, input }) => ctx.session.call<TrialGroupInvite[]>({ method: 'GET', path: `trial-groups/${input.id}/invites/`, lang: ctx.lang })),
  invite: procedure.input(groupId.extend({ emails: trialInviteEmails })).mutation(async ({ ctx, input }) => {
    const data = await ctx.session.call<{ results?: TrialInviteResult[] }>({ method: 'POST', path: `trial-groups/${input.id}/invites/`, body: { emails: input.emails }, lang: ctx.lang });
    if (!Array.isArray(data.results)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
    return data.results;
  }),
  /** Sends a fresh link to everyone invited who has not registered yet. */
  reinvite: procedure.input(groupId).mutation(({ ctx, input }) => ctx.session.call<{ reinvited: number }>({ method: 'POST', path: `trial-groups/${input.id}/reinvite/`, lang: ctx.lang })),
  statistics: procedure.input(groupId).query(({ ctx, input }) => ctx.session.call<TrialGroupStatistics>({ method: 'GET', path: `trial-groups/${input.id}/statistics/`, lang: ctx.lang })),
});
