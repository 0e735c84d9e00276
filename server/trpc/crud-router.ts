import { z } from 'zod';
import {
  OPTIONS_LIMIT,
  labelOf,
  type CalendarParams,
  type ChoiceOption,
  type EntityDef,
  type EntityRecord,
  type ListParams,
  type Paged,
  type WriteAction,
} from '../../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, listParamsSchema, optionsInput, updateSchema } from '../../shared/entity/schemas.ts';
import { rolesOf } from '../../shared/route-table.ts';
import { UpstreamError } from '../upstream/client.ts';
import type { Context } from './context.ts';
import { roleProcedure } from './init.ts';
import { optionRoles, recordReadRoles, writeProcedureRoles } from '../../shared/entity/access-roles.ts';

const idInput = z.object({ id: z.number().int().positive() });

/** Flattens list state into the upstream's query string (ADR 006). */
export function listQuery(params: ListParams): Record<string, string | number | boolean | undefined> {
  return { page: params.page, page_size: params.page_size, search: params.search || undefined, ordering: params.ordering, after: params.after, ...params.filters };
}

function expectPaged(data: unknown): Paged<EntityRecord> {
  const paged = data as Partial<Paged<EntityRecord>> | null;
  if (!paged || !Array.isArray(paged.results) || !paged.paginator) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return paged as Paged<EntityRecord>;
}

/** Every record of a date range (at most 62 days), filtered like the list, for calendars. */
export function calendarProcedure(def: EntityDef) {
  if (!def.calendarField) throw new Error(`${def.name} has no calendar field`);
  return roleProcedure(...rolesOf(def.route))
    .input(calendarParamsSchema(def))
    .query(async ({ ctx, input }) => {
      const params = input as CalendarParams;
      const data = await ctx.session.call<{ results?: EntityRecord[]; truncated?: boolean }>({
        method: 'GET',
        path: `${def.name}/calendar/`,
        query: { from: params.from, to: params.to, ...params.filters },
        lang: ctx.lang,
      });
      if (!Array.isArray(data.results)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
      return { results: data.results, truncated: Boolean(data.truncated) };
    });
}

/**
 * A choice list with the record `include` names added when the page lacks it; a record that is gone (or
 * hidden from this user) is left out rather than failing the whole list.
 */
export async function withIncluded(options: ChoiceOption[], include: number | undefined, fetchOne: (id: number) => Promise<ChoiceOption>): Promise<ChoiceOption[]> {
  if (include === undefined || options.some((o) => o.id === include)) return options;
  try {
    return [await fetchOne(include), ...options];
  } catch (error) {
    if (error instanceof UpstreamError && (error.status === 404 || error.status === 403)) return options;
    throw error;
  }
}

/**
 * The reading procedures of one entity (`list`, `get`, `options`), guarded by the roles of its §2
 * route: all a read-only entity (`readOnly: true`, e.g. bookings) offers besides its own actions.
 */
export function createReadProcedures(def: EntityDef) {
  const procedure = roleProcedure(...rolesOf(def.route));
  // One record: the roles of the record's page, when it has one of its own (a user's page is an Admin's).
  const reader = roleProcedure(...recordReadRoles(def));
  const base = `${def.name}/`;
  return {
    list: procedure
      .input(listParamsSchema(def))
      .query(async ({ ctx, input }) => expectPaged(await ctx.session.call({ method: 'GET', path: base, query: listQuery(input as ListParams), lang: ctx.lang }))),
    get: reader.input(idInput).query(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'GET', path: `${base}${input.id}/`, lang: ctx.lang })),
    /** Choice lists for reference fields: the first page matching a search, with the chosen record. */
    options: roleProcedure(...optionRoles(def))
      .input(optionsInput)
      .query(async ({ ctx, input }) => {
        const page = expectPaged(
          await ctx.session.call({
            method: 'GET',
            path: base,
            query: {
              page: 1,
              page_size: OPTIONS_LIMIT,
              search: input.search || undefined,
              ordering: def.defaultSort,
              ...(input.activeOnly && def.activeField ? { [def.activeField]: true } : {}),
            },
            lang: ctx.lang,
          }),
        );
        const option = (record: EntityRecord): ChoiceOption => ({
          id: record.id,
          label: labelOf(def, record, ctx.lang),
          ...(def.activeField && record[def.activeField] === false ? { inactive: true } : {}),
        });
        return withIncluded(page.results.map(option), input.include, async (id) =>
          option(await ctx.session.call<EntityRecord>({ method: 'GET', path: `${base}${id}/`, lang: ctx.lang })),
        );
      }),
  };
}

/**
 * `update`: the whole record with the version it was based on (`PUT <name>/<id>/`). `after` runs with the
 * record as saved (a user's name in their own header follows at once).
 */
export function updateProcedure(def: EntityDef, after?: (ctx: Context, record: EntityRecord) => void) {
  return roleProcedure(...writeProcedureRoles(def, 'update'))
    .input(updateSchema(def))
    .mutation(async ({ ctx, input }) => {
      const record = await ctx.session.call<EntityRecord>({ method: 'PUT', path: `${def.name}/${input.id}/`, body: { ...input.data, version: input.version }, lang: ctx.lang });
      after?.(ctx, record);
      return record;
    });
}

/**
 * The CRUD procedures of one entity: reads guarded by the roles of its §2 route, writes by those of
 * them the definition's access allows. `entity-router.ts` adds the calendar, the actions (the status
 * transition among them) and the sub-resources. An `updateOnly` entity has no create or delete.
 */
export function createCrudProcedures(def: EntityDef) {
  if (def.readOnly) throw new Error(`${def.name} is read-only: use createReadProcedures`);
  const reads = { ...createReadProcedures(def), update: updateProcedure(def) };
  return def.updateOnly ? reads : { ...reads, ...createAndDeleteProcedures(def) };
}

/** `create` and `delete`, guarded by the roles the definition's access gives them. */
export function createAndDeleteProcedures(def: EntityDef) {
  const writer = (action: WriteAction) => roleProcedure(...writeProcedureRoles(def, action));
  const base = `${def.name}/`;
  return {
    create: writer('create')
      .input(createSchema(def))
      .mutation(({ ctx, input }) => ctx.session.call<EntityRecord>({ method: 'POST', path: base, body: input, lang: ctx.lang })),
    delete: writer('delete')
      .input(idInput)
      .mutation(async ({ ctx, input }) => {
        await ctx.session.call({ method: 'DELETE', path: `${base}${input.id}/`, lang: ctx.lang });
        return { id: input.id };
      }),
  };
}
