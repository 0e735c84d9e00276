import { servicesEntity } from '../../../shared/entities/services.ts';
import type { EntityRecord } from '../../../shared/entity/define.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { dispatchBoardInput, dispatchMoveInput, type DispatchBoard } from '../../../shared/schemas/dispatch.ts';
import { writeProcedureRoles } from '../../../shared/entity/access-roles.ts';
import { SERVICE_STATUS } from '../../../shared/entities/services.ts';
import { roleProcedure, router } from '../init.ts';

const boardRoles = rolesOf('/dispatch');
// Moving a service is editing it: the roles of the board that may update services.
const moveRoles = boardRoles.filter((role) => writeProcedureRoles(servicesEntity, 'update').includes(role));

/** The dispatch board (ADR 022): one day in one read, and a move that is an ordinary service update. */
export const dispatchRouter = router({
  board: roleProcedure(...boardRoles)
    .input(dispatchBoardInput)
    .query(({ ctx, input }) => ctx.session.call<DispatchBoard>({ method: 'GET', path: 'dispatch/', query: { date: input.date }, lang: ctx.lang })),
  move: roleProcedure(...moveRoles)
    .input(dispatchMoveInput)
    .mutation(({ ctx, input }) =>
      ctx.session.call<EntityRecord>({
        method: 'PATCH',
        path: `services/${input.id}/`,
        body: {
          version: input.version,
          buddy_id: input.buddy_id,
          service_slot_id: input.service_slot_id,
          ...(input.book ? { status: SERVICE_STATUS.Booked } : {}),
          ...(input.service_time !== undefined ? { service_time: input.service_time } : {}),
        },
        lang: ctx.lang,
      }),
    ),
});
