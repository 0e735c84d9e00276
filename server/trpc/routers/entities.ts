import { z } from 'zod';
import { bicycleTypesEntity } from '../../../shared/entities/bicycle-types.ts';
import { bicyclesEntity } from '../../../shared/entities/bicycles.ts';
import { companiesEntity } from '../../../shared/entities/companies.ts';
import { competenciesEntity } from '../../../shared/entities/competencies.ts';
import { languagesEntity } from '../../../shared/entities/languages.ts';
import { operationalRangesEntity } from '../../../shared/entities/operational-ranges.ts';
import { productsEntity } from '../../../shared/entities/products.ts';
import { promoCodesEntity } from '../../../shared/entities/promo-codes.ts';
import { rolesEntity } from '../../../shared/entities/roles.ts';
import { SERVICE_CHECK_STATUSES, serviceItemsEntity } from '../../../shared/entities/service-items.ts';
import { serviceSlotsEntity } from '../../../shared/entities/service-slots.ts';
import { buddyWorkSlotsEntity } from '../../../shared/entities/buddy-work-slots.ts';
import { notWorkingSlotsEntity } from '../../../shared/entities/not-working-slots.ts';
import { expertRequestsEntity } from '../../../shared/entities/expert-requests.ts';
import { servicesRouter } from './services.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { eventsEntity } from '../../../shared/entities/events.ts';
import { eventSlotsEntity } from '../../../shared/entities/event-slots.ts';
import { eventBookingsEntity } from '../../../shared/entities/event-bookings.ts';
import { calendarProcedure, createCrudProcedures, createCrudRouter, createReadProcedures, transitionProcedure } from '../crud-router.ts';
import { subscriptionPlansRouter, subscriptionsRouter } from './subscriptions.ts';
import { trialGroupsRouter } from './trial-groups.ts';
import { serviceTypesEntity } from '../../../shared/entities/service-types.ts';
import { assetsEntity } from '../../../shared/entities/assets.ts';
import { roleProcedure, router } from '../init.ts';
import type { EntityRecord, Paged } from '../../../shared/entity/define.ts';
import { bicycleHistoryInput, type BicycleHistoryRow } from '../../../shared/schemas/services.ts';

export interface BicycleImage {
  id: number;
  kind: 'image' | 'defect';
  url: string;
}

const bicycleProcedure = roleProcedure(...rolesOf('/bicycles/:id'));
const bicycleId = z.object({ id: z.number().int().positive() });

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
  serviceTypes: createCrudRouter(serviceTypesEntity),
  products: createCrudRouter(productsEntity),
  companies: createCrudRouter(companiesEntity),
  bicycles: router({
    ...createCrudProcedures(bicyclesEntity),
    activate: bicycleProcedure.input(bicycleId).mutation(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'POST', path: `bicycles/${input.id}/activate/`, lang: ctx.lang })),
    deactivate: bicycleProcedure.input(bicycleId).mutation(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'POST', path: `bicycles/${input.id}/deactivate/`, lang: ctx.lang })),
    /** The bicycle's services, newest first, paged, with the checklist summed up and the rating (ADR 023). */
    history: bicycleProcedure
      .input(bicycleHistoryInput)
      .query(({ ctx, input }) =>
        ctx.session.call<Paged<BicycleHistoryRow>>({ method: 'GET', path: `bicycles/${input.id}/services/`, query: { page: input.page, page_size: input.page_size }, lang: ctx.lang }),
      ),
    images: bicycleProcedure.input(bicycleId).query(({ ctx, input }) => ctx.session.call<BicycleImage[]>({ method: 'GET', path: `bicycles/${input.id}/images/`, lang: ctx.lang })),
    addImage: bicycleProcedure
      .input(bicycleId.extend({ url: z.url({ protocol: /^https?$/ }).max(2048), kind: z.enum(['image', 'defect']) }))
      .mutation(({ ctx, input }) => ctx.session.call<BicycleImage>({ method: 'POST', path: `bicycles/${input.id}/images/`, body: { url: input.url, kind: input.kind }, lang: ctx.lang })),
    removeImage: bicycleProcedure
      .input(bicycleId.extend({ imageId: z.number().int().positive() }))
      .mutation(({ ctx, input }) => ctx.session.call<{ id: number }>({ method: 'DELETE', path: `bicycles/${input.id}/images/${input.imageId}/`, lang: ctx.lang })),
  }),
  promoCodes: router({
    ...createCrudProcedures(promoCodesEntity),
    users: roleProcedure(...rolesOf('/promo-codes/:id'))
      .input(z.object({ id: z.number().int().positive() }))
      .query(({ ctx, input }) => ctx.session.call<PromoCodeUse[]>({ method: 'GET', path: `promo-codes/${input.id}/users/`, lang: ctx.lang })),
  }),
  buddyWorkSlots: router({ ...createCrudProcedures(buddyWorkSlotsEntity), calendar: calendarProcedure(buddyWorkSlotsEntity) }),
  notWorkingSlots: router({ ...createCrudProcedures(notWorkingSlotsEntity), calendar: calendarProcedure(notWorkingSlotsEntity) }),
  services: servicesRouter,
  expertRequests: router({ ...createCrudProcedures(expertRequestsEntity), transition: transitionProcedure(expertRequestsEntity) }),
  subscriptionPlans: subscriptionPlansRouter,
  subscriptions: subscriptionsRouter,
  events: createCrudRouter(eventsEntity),
  eventSlots: createCrudRouter(eventSlotsEntity),
  eventBookings: router(createReadProcedures(eventBookingsEntity)),
  trialGroups: trialGroupsRouter,
  assets: createCrudRouter(assetsEntity),
};
