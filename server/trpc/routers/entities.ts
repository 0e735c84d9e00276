import { z } from 'zod';
import { bicycleTypesEntity } from '../../../shared/entities/bicycle-types.ts';
import { companiesEntity } from '../../../shared/entities/companies.ts';
import { competenciesEntity } from '../../../shared/entities/competencies.ts';
import { languagesEntity } from '../../../shared/entities/languages.ts';
import { operationalRangesEntity } from '../../../shared/entities/operational-ranges.ts';
import { productsEntity } from '../../../shared/entities/products.ts';
import { promoCodesEntity } from '../../../shared/entities/promo-codes.ts';
import { rolesEntity } from '../../../shared/entities/roles.ts';
import { SERVICE_CHECK_STATUSES, serviceItemsEntity } from '../../../shared/entities/service-items.ts';
import { serviceSlotsEntity } from '../../../shared/entities/service-slots.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { createCrudProcedures, createCrudRouter } from '../crud-router.ts';
import { roleProcedure, router } from '../init.ts';

export interface PromoCodeUse {
  user_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  used_at: string;
}

/** Router keys are the camelCased entity names (client/entity/entity-api.ts relies on it). */
export const entityRouters = {
  roles: createCrudRouter(rolesEntity),
  bicycleTypes: createCrudRouter(bicycleTypesEntity),
  languages: createCrudRouter(languagesEntity),
  competencies: createCrudRouter(competenciesEntity),
  operationalRanges: createCrudRouter(operationalRangesEntity),
  serviceSlots: createCrudRouter(serviceSlotsEntity),
  serviceItems: router({
    ...createCrudProcedures(serviceItemsEntity),
    /** The three check statuses of a service detail, with ids and colours (§3). */
    checkStatuses: roleProcedure(...rolesOf('/services')).query(() => SERVICE_CHECK_STATUSES),
  }),
  products: createCrudRouter(productsEntity),
  companies: createCrudRouter(companiesEntity),
  promoCodes: router({
    ...createCrudProcedures(promoCodesEntity),
    users: roleProcedure(...rolesOf('/promo-codes/:id'))
      .input(z.object({ id: z.number().int().positive() }))
      .query(({ ctx, input }) => ctx.session.call<PromoCodeUse[]>({ method: 'GET', path: `promo-codes/${input.id}/users/`, lang: ctx.lang })),
  }),
};
