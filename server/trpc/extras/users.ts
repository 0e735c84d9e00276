import { z } from 'zod';
import { usersEntity, type UserListRow, type UserRecord } from '../../../shared/entities/users.ts';
import { OPTIONS_LIMIT, type ChoiceOption, type Paged } from '../../../shared/entity/define.ts';
import { optionsInput } from '../../../shared/entity/schemas.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { userListInput } from '../../../shared/schemas/users.ts';
import { updateProcedure, withIncluded } from '../crud-router.ts';
import { roleProcedure } from '../init.ts';

/** A user as a choice: "First Last <e-mail>", or the e-mail alone without a name. */
function userOption(u: Pick<UserRecord, 'id' | 'first_name' | 'last_name' | 'email'>): ChoiceOption {
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
  return { id: u.id, label: name ? `${name} <${u.email}>` : u.email };
}

const listProcedure = roleProcedure(...rolesOf('/users'));
const adminProcedure = roleProcedure(...rolesOf('/users/:id'));

function query(input: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string | number>;
}

/**
 * Beside the procedures derived from the users definition (get, the invitation actions, roles, languages and
 * competencies): the list with its own query (a role filter through the roles a user holds), choices by role,
 * and an update after which the user's own header follows at once.
 */
export const extraProcedures = {
  list: listProcedure.input(userListInput).query(({ ctx, input }) => ctx.session.call<Paged<UserListRow>>({ method: 'GET', path: 'users/', query: query(input), lang: ctx.lang })),
  // Their name in the header of their own pages (session.me) follows at once.
  update: updateProcedure(usersEntity, (ctx, record) => ctx.profiles.forget(record.id)),
  /** Choice list (bicycle owner and similar): id and a readable label. */
  options: adminProcedure.input(optionsInput.extend({ role: z.enum(['Admin', 'Buddy', 'Shop']).optional() })).query(async ({ ctx, input }) => {
    const page = await ctx.session.call<Paged<UserListRow>>({
      method: 'GET',
      path: input.role === 'Buddy' ? 'buddies/' : 'users/',
      query: query({ page_size: OPTIONS_LIMIT, search: input.search, ordering: 'email', role: input.role }),
      lang: ctx.lang,
    });
    return withIncluded(page.results.map(userOption), input.include, async (id) =>
      userOption(await ctx.session.call<UserRecord>({ method: 'GET', path: `users/${id}/`, lang: ctx.lang })),
    );
  }),
  /** The role names of the roles catalogue (/roles), for the role filter, invitations and role links. */
  roleNames: listProcedure.query(async ({ ctx }) => {
    const page = await ctx.session.call<Paged<{ name: string }>>({ method: 'GET', path: 'roles/', query: { page_size: 100, ordering: 'name' }, lang: ctx.lang });
    return page.results.map((role) => role.name);
  }),
  /** §3: active users holding the Buddy role, with their contact details: the users list's roles (ADR 028). */
  buddies: listProcedure
    .input(userListInput.pick({ search: true, page: true, page_size: true }))
    .query(({ ctx, input }) => ctx.session.call<Paged<UserListRow>>({ method: 'GET', path: 'buddies/', query: query(input), lang: ctx.lang })),
};
