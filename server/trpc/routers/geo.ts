import { rolesOf } from '../../../shared/route-table.ts';
import { geocodeReverseInput, geocodeSearchInput } from '../../../shared/schemas/services.ts';
import { AppError } from '../../app-error.ts';
import { roleProcedure, router } from '../init.ts';
import type { Context } from '../context.ts';

// Whoever fills in a service's place may look addresses up.
const procedure = roleProcedure(...rolesOf('/services'));

function geocoderOf(ctx: Context) {
  if (!ctx.geocoder) throw new AppError('PRECONDITION_FAILED', 'geocoder_not_configured', 'No address search is configured; pick the place on the map.');
  return ctx.geocoder;
}

/** Address search and reverse lookup through the configured Nominatim-compatible service (ADR 011). */
export const geoRouter = router({
  search: procedure.input(geocodeSearchInput).query(({ ctx, input }) => geocoderOf(ctx).search(input.query, ctx.lang)),
  reverse: procedure.input(geocodeReverseInput).query(({ ctx, input }) => geocoderOf(ctx).reverse(input, ctx.lang)),
});
