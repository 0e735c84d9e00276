import type { Dashboard, Statistics } from '../../../shared/schemas/dashboard.ts';
import { ROLE } from '../../../shared/roles.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { roleProcedure, router } from '../init.ts';

function expect<T>(data: unknown, valid: (d: Record<string, unknown>) => boolean): T {
  if (!data || typeof data !== 'object' || !valid(data as Record<string, unknown>)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return data as T;
}

/** §1 dashboard (the home page's roles) and the statistics charts (Admin). */
export const dashboardRouter = router({
  get: roleProcedure(...rolesOf('/')).query(async ({ ctx }) =>
    expect<Dashboard>(await ctx.session.call({ method: 'GET', path: 'dashboard/', lang: ctx.lang }), (d) => typeof d.counters === 'object' && typeof d.series === 'object'),
  ),
  statistics: roleProcedure(ROLE.Admin).query(async ({ ctx }) =>
    expect<Statistics>(
      await ctx.session.call({ method: 'GET', path: 'statistics/', lang: ctx.lang }),
      (d) => Array.isArray(d.servicesByStatus) && Array.isArray(d.servicesByWeek) && Array.isArray(d.usersByMonth),
    ),
  ),
});
