import { z } from 'zod';
import { OPTIONS_LIMIT, type ChoiceOption, type Paged } from '../../../shared/entity/define.ts';
import { optionsInput } from '../../../shared/entity/schemas.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import type { Profile } from '../../../shared/schemas/auth.ts';
import { bulkInviteInput, inviteInput, operationalRangeInput, splitAddresses, userListInput, userUpdateInput, type BulkInviteResult } from '../../../shared/schemas/users.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { withIncluded } from '../crud-router.ts';
import { roleProcedure, router } from '../init.ts';

export type UserRecord = Profile & {
  id: number;
  is_active: boolean;
  user_type: number;
  social_security_number: string | null;
  account_status: string;
  invitation_status: string;
  invited_at: string | null;
  member_since: string | null;
  operational_range_id: number | null;
  roles: string[];
  version: number;
};
/** A row of the users list: the list's columns only, never private details (the upstream projects them). */
export type UserListRow = Omit<UserRecord, 'biography' | 'social_security_number' | 'state' | 'area' | 'city' | 'post_code' | 'operational_range_id'>;

/** A user as a choice: "First Last <e-mail>", or the e-mail alone without a name. */
function userOption(u: Pick<UserRecord, 'id' | 'first_name' | 'last_name' | 'email'>): ChoiceOption {
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
  return { id: u.id, label: name ? `${name} <${u.email}>` : u.email };
}
export type UserDetail = UserRecord & { languages: { id: number; name: string }[]; competencies: { id: number; name: string }[] };

const listProcedure = roleProcedure(...rolesOf('/users'));
const adminProcedure = roleProcedure(...rolesOf('/users/:id'));
const idInput = z.object({ id: z.number().int().positive() });

function query(input: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string | number>;
}

/** A role, language or competence link on a user: add or remove, answered with the user. */
function linkProcedures(path: 'roles' | 'languages' | 'competencies', key: string, value: z.ZodType<string | number>) {
  const input = z.object({ id: z.number().int().positive(), value });
  return {
    add: adminProcedure
      .input(input)
      .mutation(({ ctx, input }) => ctx.session.call<UserDetail>({ method: 'POST', path: `users/${input.id}/${path}/`, body: { [key]: input.value }, lang: ctx.lang })),
    remove: adminProcedure
      .input(input)
      .mutation(({ ctx, input }) =>
        ctx.session.call<UserDetail>({ method: 'DELETE', path: `users/${input.id}/${path}/${encodeURIComponent(String(input.value))}/`, lang: ctx.lang }),
      ),
  };
}

export const usersRouter = router({
  list: listProcedure.input(userListInput).query(({ ctx, input }) => ctx.session.call<Paged<UserListRow>>({ method: 'GET', path: 'users/', query: query(input), lang: ctx.lang })),
  get: adminProcedure.input(idInput).query(({ ctx, input }) => ctx.session.call<UserDetail>({ method: 'GET', path: `users/${input.id}/`, lang: ctx.lang })),
  update: adminProcedure.input(z.object({ id: z.number().int().positive(), data: userUpdateInput })).mutation(async ({ ctx, input }) => {
    const user = await ctx.session.call<UserDetail>({ method: 'PUT', path: `users/${input.id}/`, body: input.data, lang: ctx.lang });
    // Their name in the header of their own pages (session.me) follows at once.
    ctx.profiles.forget(input.id);
    return user;
  }),
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
  setOperationalRange: adminProcedure
    .input(operationalRangeInput.extend({ id: z.number().int().positive() }))
    .mutation(({ ctx, input }) =>
      ctx.session.call<UserDetail>({ method: 'PUT', path: `users/${input.id}/operational-range/`, body: { operational_range_id: input.operational_range_id }, lang: ctx.lang }),
    ),
  roles: router(linkProcedures('roles', 'role', z.string().min(1).max(50))),
  languages: router(linkProcedures('languages', 'language_id', z.number().int().positive())),
  competencies: router(linkProcedures('competencies', 'competence_id', z.number().int().positive())),
  invite: adminProcedure.input(inviteInput).mutation(({ ctx, input }) => ctx.session.call<UserRecord>({ method: 'POST', path: 'account/invite', body: input, lang: ctx.lang })),
  bulkInvite: adminProcedure.input(bulkInviteInput).mutation(async ({ ctx, input }) => {
    const invites = splitAddresses(input.emails).map((email) => ({ email, ...(input.roles ? { roles: input.roles } : {}) }));
    const data = await ctx.session.call<{ results?: BulkInviteResult[] }>({ method: 'POST', path: 'account/bulk-invite', body: { invites }, lang: ctx.lang });
    if (!Array.isArray(data.results)) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
    return data.results;
  }),
  resendInvite: adminProcedure
    .input(idInput)
    .mutation(({ ctx, input }) => ctx.session.call<UserRecord>({ method: 'POST', path: 'account/resend-invite', body: { user_id: input.id }, lang: ctx.lang })),
  /** The invitation's links stop working and it can no longer be accepted (ADR 018); resend re-opens it. */
  cancelInvite: adminProcedure
    .input(idInput)
    .mutation(({ ctx, input }) => ctx.session.call<UserRecord>({ method: 'POST', path: 'account/cancel-invite', body: { user_id: input.id }, lang: ctx.lang })),
});
