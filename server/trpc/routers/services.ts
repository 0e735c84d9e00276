import { z } from 'zod';
import { servicesEntity } from '../../../shared/entities/services.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { serviceDetailInput, type ServiceDetailImage, type ServiceDetailRow } from '../../../shared/schemas/services.ts';
import { calendarProcedure, createCrudProcedures, transitionProcedure } from '../crud-router.ts';
import { writeProcedureRoles } from '../../../shared/entity/access-roles.ts';
import { roleProcedure, router } from '../init.ts';

const reader = roleProcedure(...rolesOf('/services/:id'));
// Whoever may move a service along (Admin, its Buddy) records its details; the API checks the buddy.
const writer = roleProcedure(...writeProcedureRoles(servicesEntity, 'transition'));
const ids = z.object({ id: z.number().int().positive(), itemId: z.number().int().positive() });

/** Services: the generic procedures plus the service details checklist (§3) with images. */
export const servicesRouter = router({
  ...createCrudProcedures(servicesEntity),
  transition: transitionProcedure(servicesEntity),
  calendar: calendarProcedure(servicesEntity),
  details: reader
    .input(z.object({ id: z.number().int().positive() }))
    .query(({ ctx, input }) => ctx.session.call<ServiceDetailRow[]>({ method: 'GET', path: `services/${input.id}/details/`, lang: ctx.lang })),
  saveDetail: writer
    .input(ids.extend({ data: serviceDetailInput }))
    .mutation(({ ctx, input }) => ctx.session.call<ServiceDetailRow>({ method: 'PUT', path: `services/${input.id}/details/${input.itemId}/`, body: input.data, lang: ctx.lang })),
  addDetailImage: writer
    .input(ids.extend({ url: z.url({ protocol: /^https?$/ }).max(2048) }))
    .mutation(({ ctx, input }) => ctx.session.call<ServiceDetailImage>({ method: 'POST', path: `services/${input.id}/details/${input.itemId}/images/`, body: { url: input.url }, lang: ctx.lang })),
  removeDetailImage: writer
    .input(ids.extend({ imageId: z.number().int().positive() }))
    .mutation(({ ctx, input }) => ctx.session.call<{ id: number }>({ method: 'DELETE', path: `services/${input.id}/details/${input.itemId}/images/${input.imageId}/`, lang: ctx.lang })),
});
