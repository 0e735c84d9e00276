import { z } from 'zod';
import { createSchema, listParamsSchema, updateSchema, type EntityDef, type EntityRecord, type ListParams, type Paged } from '../../shared/entity/define.ts';
import { rolesOf } from '../../shared/route-table.ts';
import { UpstreamError } from '../upstream/client.ts';
import { roleProcedure, router } from './init.ts';

const idInput = z.object({ id: z.number().int().positive() });

/** Flattens list state into the upstream's query string (ADR 006). */
export function listQuery(params: ListParams): Record<string, string | number | boolean | undefined> {
  return { page: params.page, page_size: params.page_size, search: params.search || undefined, ordering: params.ordering, ...params.filters };
}

function expectPaged(data: unknown): Paged<EntityRecord> {
  const paged = data as Partial<Paged<EntityRecord>> | null;
  if (!paged || !Array.isArray(paged.results) || !paged.paginator) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return paged as Paged<EntityRecord>;
}

/**
 * The five CRUD procedures of one entity, guarded by the roles of its §2 route. Extra procedures
 * of an entity are spread beside these: `router({ ...createCrudProcedures(def), extra })`.
 */
export function createCrudProcedures(def: EntityDef) {
  const procedure = roleProcedure(...rolesOf(def.route));
  const base = `${def.name}/`;
  return {
    list: procedure.input(listParamsSchema(def)).query(async ({ ctx, input }) =>
      expectPaged(await ctx.session.call({ method: 'GET', path: base, query: listQuery(input as ListParams), lang: ctx.lang })),
    ),
    get: procedure.input(idInput).query(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'GET', path: `${base}${input.id}/`, lang: ctx.lang })),
    create: procedure
      .input(createSchema(def))
      .mutation(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'POST', path: base, body: input, lang: ctx.lang })),
    update: procedure.input(updateSchema(def)).mutation(({ ctx, input }) =>
      ctx.session.call<EntityRecord>({ method: 'PUT', path: `${base}${input.id}/`, body: { ...input.data, version: input.version }, lang: ctx.lang }),
    ),
    delete: procedure.input(idInput).mutation(async ({ ctx, input }) => {
      await ctx.session.call({ method: 'DELETE', path: `${base}${input.id}/`, lang: ctx.lang });
      return { id: input.id };
    }),
    /** Choice lists for reference fields: the first page matching a search. */
    options: procedure
      .input(z.object({ search: z.string().trim().max(200).optional() }))
      .query(async ({ ctx, input }) => {
        const page = expectPaged(
          await ctx.session.call({ method: 'GET', path: base, query: { page: 1, page_size: 100, search: input.search || undefined, ordering: def.defaultSort }, lang: ctx.lang }),
        );
        return page.results.map((record) => ({ id: record.id, label: def.label(record) }));
      }),
  };
}

export function createCrudRouter(def: EntityDef) {
  return router(createCrudProcedures(def));
}
