import { SERVICE_CHECK_STATUSES } from '../../../shared/entities/service-items.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { roleProcedure } from '../init.ts';

/** Beside the derived service-items procedures. */
export const extraProcedures = {
  /** The three check statuses of a service detail, with ids and colours (§3). */
  checkStatuses: roleProcedure(...rolesOf('/services')).query(() => SERVICE_CHECK_STATUSES),
};
