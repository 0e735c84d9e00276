import type { EntityDef } from '../../../shared/entity/define.ts';
import { mayReadHistory } from '../../../shared/entity/history-access.ts';
import { entityByName } from '../../../shared/entities/registry.ts';
import { hasAnyRole } from '../../../shared/roles.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { auditListParams, type AuditPage } from '../../../shared/schemas/audit.ts';
import { authedProcedure, requireRoles, router } from '../init.ts';

const activityRoles = rolesOf('/activity');

/**
 * The change history (ADR 036). The Activity page's roles read everything; anyone else asks for one record
 * of an entity with an owner field, and the API answers only if the record is theirs.
 */
export const auditRouter = router({
  list: authedProcedure.input(auditListParams).query(async ({ ctx, input }) => {
    await requireRoles(ctx, (roles) => {
      if (hasAnyRole(roles, activityRoles)) return true;
      const def = input.entity ? (entityByName(input.entity) as EntityDef | undefined) : undefined;
      return Boolean(def && input.record_id !== undefined && mayReadHistory(def, roles));
    });
    return ctx.session.call<AuditPage>({ method: 'GET', path: 'audit/', query: { ...input }, lang: ctx.lang });
  }),
});
