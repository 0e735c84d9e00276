import { z } from 'zod';
import { servicesEntity } from '../../../shared/entities/services.ts';
import { writeProcedureRoles } from '../../../shared/entity/access-roles.ts';
import type { ServiceDetailImage } from '../../../shared/schemas/services.ts';
import { roleProcedure } from '../init.ts';

// Whoever may move a service along (Admin, its Buddy) records its details; the API checks the buddy.
const writer = roleProcedure(...writeProcedureRoles(servicesEntity, 'transition'));
const ids = z.object({ id: z.number().int().positive(), itemId: z.number().int().positive() });

/** Beside the derived services procedures: the images of a checklist row (`details` is a sub-resource). */
export const extraProcedures = {
  addDetailImage: writer
    .input(ids.extend({ url: z.url({ protocol: /^https?$/ }).max(2048) }))
    .mutation(({ ctx, input }) =>
      ctx.session.call<ServiceDetailImage>({ method: 'POST', path: `services/${input.id}/details/${input.itemId}/images/`, body: { url: input.url }, lang: ctx.lang }),
    ),
  removeDetailImage: writer
    .input(ids.extend({ imageId: z.number().int().positive() }))
    .mutation(({ ctx, input }) =>
      ctx.session.call<{ id: number }>({ method: 'DELETE', path: `services/${input.id}/details/${input.itemId}/images/${input.imageId}/`, lang: ctx.lang }),
    ),
};
