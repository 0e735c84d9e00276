import { z } from 'zod';
import { rolesOf } from '../../../shared/route-table.ts';
import type { TrialGroupStatistics } from '../../../shared/schemas/trial-groups.ts';
import { roleProcedure } from '../init.ts';

/** Beside the derived trial-groups procedures (members, invitations: ADR 014, 032). */
export const extraProcedures = {
  /** Invited, registered, pending and member counts. */
  statistics: roleProcedure(...rolesOf('/trial-groups/:id'))
    .input(z.object({ id: z.number().int().positive() }))
    .query(({ ctx, input }) => ctx.session.call<TrialGroupStatistics>({ method: 'GET', path: `trial-groups/${input.id}/statistics/`, lang: ctx.lang })),
};
