import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idField, storableText } from '../../shared/schemas/common.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { splitAddresses, userListInput, userUpdateInput } from '../../shared/schemas/users.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { inviteInput, type Invitations } from '../invitations.ts';
import { usersEntity } from '../../shared/entities/users.ts';
import { writableFields, type EntityDef, type Paginator } from '../../shared/entity/define.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { isNullableColumn, listPage } from '../lib/page-query.ts';
import { bumpSessionVersion, revokeUserSessions } from '../lib/sessions.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { outsideActionScope } from '../lib/audit-scope.ts';
import { erasePerson, exportPerson } from '../lib/person-data.ts';
import { LIST_USER_SQL, findUser, isLastActiveAdmin, lockAdminSet, revokeAccountLinks, toListedUser } from '../users.ts';
import { actionVersionOf, itemParams, type EntityHandlersFactory, type EntityRouteHandler } from './entity-actions.ts';
import { filterConditions, listWhere } from './entity-reads.ts';
import type { EntityResource, ResourceHooks } from './entity-resource-types.ts';
import { searchForms } from './entity-search.ts';

/**
 * A page of users: searched as the engine searches any list (e-mail, phone number and full name, as the users
 * definition declares: ADR 056), filtered by role and by the filters the definition declares (type and statuses).
 */
async function page(db: Db, exactUpTo: number, query: z.infer<typeof userListInput>, extraWhere: string[] = []) {
  const where = [...extraWhere];
  const params: unknown[] = [];
  const forms = query.search ? await searchForms(db, usersEntity as EntityDef, query.search, 'en', params, { leadAbove: exactUpTo }) : undefined;
  if (query.role) {
    params.push(query.role);
    where.push(`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = t.id and r.name = $${params.length})`);
  }
  where.push(...filterConditions(usersEntity as EntityDef, query, params));
  const { sql, walk, lead } = listWhere(forms, where, params);
  const ordering = query.ordering ?? '-id';
  const column = ordering.replace(/^-/, '');
  const { rows, ...counted } = await listPage<Record<string, unknown>>(db, {
    select: LIST_USER_SQL,
    from: 'users t',
    alias: 't',
    where: sql,
    ...(walk ? { walk } : {}),
    ...(lead ? { lead } : {}),
    params,
    column,
    desc: ordering.startsWith('-'),
    nullable: isNullableColumn(usersEntity as EntityDef, column),
    limit: query.page_size + 1,
    offset: (query.page - 1) * query.page_size,
    exactUpTo,
  });
  const paginator: Paginator = {
    page: query.page,
    page_size: query.page_size,
    count: counted.count,
    total_pages: Math.ceil(counted.count / query.page_size),
    has_next: rows.length > query.page_size,
  };
  if (counted.estimated) paginator.estimated = true;
  return { results: rows.slice(0, query.page_size).map(toListedUser), paginator };
}

/** A user with their languages and competencies. */
async function detail(db: Db, id: number) {
  const user = await findUser(db, { id });
  if (!user) throw new ApiError(404, 'not_found');
  const [languages, competencies] = await Promise.all([
    db.query<{ id: number; name: string }>('select l.id, l.name from user_languages ul join languages l on l.id = ul.language_id where ul.user_id = $1 order by l.name', [id]),
    db.query<{ id: number; name: string }>('select c.id, c.name from user_competencies uc join competencies c on c.id = uc.competence_id where uc.user_id = $1 order by c.name', [
      id,
    ]),
  ]);
  return {
    ...user,
    languages: languages.rows.map((r) => ({ id: Number(r.id), name: r.name })),
    competencies: competencies.rows.map((r) => ({ id: Number(r.id), name: r.name })),
  };
}

/**
 * The users' own handlers (ADR 034): the list, the record and its update are served here rather than by the
 * generic resource — the table holds credentials, the list filters by role through the roles users hold and
 * projects away private details — and the invitation actions and the role, language and competence links.
 */
export const handlers: EntityHandlersFactory = ({ db, config, invitations }) => ({
  servesOwn: ['list', 'get', 'update'],
  hooks: userHooks(config),
  routes: (app, resource) => registerReads(app, resource),
  actions: {
    invite: async (req, reply) => ok(reply, await invitations.invite(parseBody(inviteInput, req.body), req.log)),
    bulkInvite: async (req, reply) => ok(reply, { results: await bulkInvite(invitations, parseBody(bulkInviteBody, req.body), req.log) }),
    resendInvite: async (req, reply) => ok(reply, await resendInvite(db, invitations, parseBody(idParam, req.params).id, req.log)),
    cancelInvite,
    setOperationalRange,
    // Outside the action's history scope: each writes its own entry, with no value of the person in it (ADR 076).
    erase: (req, reply, r) =>
      outsideActionScope(async () => {
        const { id } = parseBody(idParam, req.params);
        await erasePerson(r.db, config, req, id);
        return ok(reply, await detail(r.db, id));
      }),
    exportData: (req, reply, r) =>
      outsideActionScope(async () => {
        const { id } = parseBody(idParam, req.params);
        const { format } = parseBody(exportFormat, req.body ?? {});
        return ok(reply, { file: await exportPerson(r.db, config.auditKey, req, id, format) });
      }),
  },
  subResources: Object.fromEntries(LINKS.map((link) => [link.path, linkHandlers(db, link)])),
});

/** The users list (Admin, and BuddyShop: §6), the buddies (§3: the same roles, ADR 028), a user and its update (Admin). */
function registerReads(app: FastifyInstance, r: EntityResource) {
  const { db, config } = r;
  const admin = requireAuth(config, ['Admin']);
  // The users list is open to whom the back office opens it (§6): Admin, and BuddyShop (Buddy and Shop).
  // Both lists only read: their statements start beside the session check, their answer waits for it (ADR 052).
  const listers = requireAuth(config, (roles) => roles.includes('Admin') || (roles.includes('Buddy') && roles.includes('Shop')), { overlap: true });
  app.get('/api/users/', { preHandler: listers }, async (req, reply) => ok(reply, await page(db, config.exactCountUpTo, parseBody(userListInput, req.query))));
  /** §3: the buddies list keeps only active users holding the Buddy role. */
  app.get('/api/buddies/', { preHandler: listers }, async (req, reply) =>
    ok(reply, await page(db, config.exactCountUpTo, { ...parseBody(userListInput, req.query), role: 'Buddy' }, ['t.is_active'])),
  );
  app.get('/api/users/:id/', { preHandler: admin }, async (req, reply) => ok(reply, await detail(db, parseBody(idParam, req.params).id)));
  app.put('/api/users/:id/', { preHandler: admin }, async (req, reply) => ok(reply, await updateUser(r, req)));
  // Everything stored about a person, as a file (GDPR Art. 15, 20: ADR 076); the export is a history entry.
  app.get('/api/users/:id/export/', { preHandler: admin }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { format } = parseBody(exportFormat, req.query ?? {});
    const file = await exportPerson(db, config.auditKey, req, id, format);
    return reply
      .header('content-type', `${file.type}; charset=utf-8`)
      .header('content-disposition', `attachment; filename="${file.name}"`)
      .header('cache-control', 'no-store')
      .send(file.content);
  });
}

const exportFormat = z.object({ format: z.enum(['json', 'csv']).default('json') });

/**
 * An Admin's change of a user's fields, through the one write path (ADR 069): version checked and stepped, one
 * history entry. Deactivation ends everything the account could get in with; the last active Admin cannot be
 * deactivated (ADR 017, 018): the users' hooks.
 */
async function updateUser(r: EntityResource, req: FastifyRequest) {
  const { id } = parseBody(idParam, req.params);
  const { version, ...input } = parseBody(userUpdateInput, req.body);
  await r.change(req, { id, version, parsed: true, values: (current) => ({ ...Object.fromEntries(writableFields(r.def).map(([k]) => [k, current[k]])), ...input }) });
  return detail(r.db, id);
}

/**
 * The rules of every change of a user (ADR 017, 018, 020): a deactivation takes the Admin set's lock before the
 * user's row (the order a role's removal takes them), refuses the last active Admin, cancels a pending
 * invitation and, once written, ends the account's sessions, tokens and links. A profile picture is the
 * person's own upload or one the Admin editing them made.
 */
function userHooks(config: UpstreamConfig): ResourceHooks {
  return {
    beforeLock: async (_id, asked, tx) => {
      if (asked.is_active === false) await lockAdminSet(tx);
    },
    beforeUpdate: async (id, input, tx) => {
      if (input.is_active === false && (await isLastActiveAdmin(tx, id))) throw new ApiError(409, 'last_admin');
    },
    beforeWrite: async (input, { tx, user, current }) => {
      if (input.profile_image && current) {
        await checkUploadedImage(tx, config, input.profile_image, {
          field: 'profile_image',
          kind: 'user_profile_picture',
          current: current.profile_image,
          uploadedBy: [current.id, user.id],
        });
      }
      return input.is_active === false && current?.invitation_status === 'pending' ? { invitation_status: 'canceled' } : {};
    },
    afterUpdate: async (input, written, { tx }) => {
      if (input.is_active !== false) return;
      await revokeUserSessions(tx, written.id);
      await revokeAccountLinks(tx, written.id);
    },
  };
}

const bulkInviteBody = z.object({ emails: storableText(20_000), roles: z.array(storableText(50)).max(10).nullish() });

/** §5: each address invited on its own; a result per address, failures with their reason. */
async function bulkInvite(invitations: Invitations, input: z.infer<typeof bulkInviteBody>, log: FastifyBaseLogger) {
  const results = [];
  for (const email of splitAddresses(input.emails).slice(0, 500)) {
    const parsed = inviteInput.safeParse({ email, roles: input.roles });
    if (!parsed.success) {
      const badEmail = parsed.error.issues.some((issue) => issue.path[0] === 'email');
      results.push({
        email,
        success: false,
        error: badEmail
          ? { message: 'validation_error', cause: 'Provided value is not Email.', fields: { email: 'validation.email' } }
          : { message: 'validation_error', cause: 'Some fields are not valid.', fields: fieldErrorsOf(parsed.error) },
      });
      continue;
    }
    try {
      const user = await invitations.invite(parsed.data, log);
      results.push({ email, success: true, user_id: user.id });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      results.push({ email, success: false, error: { message: error.code, cause: error.message } });
    }
  }
  return results;
}

/** Pending: a fresh link. Canceled: re-opened with a fresh link, but only while the account is active. */
async function resendInvite(db: Db, invitations: Invitations, id: number, log: FastifyBaseLogger) {
  const user = await findUser(db, { id });
  if (!user) throw new ApiError(404, 'not_found');
  if (user.invitation_status !== 'pending' && user.invitation_status !== 'canceled') throw new ApiError(400, 'validation_error', 'This user has already accepted the invitation.');
  if (!user.is_active) throw new ApiError(409, 'account_inactive');
  await db.transaction((tx) => invitations.resendInvite(tx, id, user.email, log));
  return detail(db, id);
}

/** Not in the spec's table: the invitation's links stop working and accepting it is refused (ADR 018). */
const cancelInvite: EntityRouteHandler = async (req, reply, r) => {
  const { id } = parseBody(idParam, req.params);
  await r.change(req, {
    id,
    version: actionVersionOf(req),
    computed: async (current) => {
      if (current.invitation_status !== 'pending') throw new ApiError(409, 'invitation_not_pending');
      return { invitation_status: 'canceled' };
    },
    effects: async (tx) => {
      await revokeAccountLinks(tx, id);
      await revokeUserSessions(tx, id);
    },
  });
  return ok(reply, await detail(r.db, id));
};

const operationalRangeBody = z.object({
  operational_range_id: z.number({ error: 'validation.option' }).int({ error: 'validation.option' }).positive({ error: 'validation.option' }).nullable(),
});

/** The user's operational range: set (or cleared with null) on its own, as a change of the user; answers the user. */
const setOperationalRange: EntityRouteHandler = async (req, reply, r) => {
  const { id } = parseBody(idParam, req.params);
  const { operational_range_id } = parseBody(operationalRangeBody, req.body);
  await r.change(req, { id, version: actionVersionOf(req), computed: async () => ({ operational_range_id }) });
  return ok(reply, await detail(r.db, id));
};

interface Link {
  path: 'roles' | 'languages' | 'competencies';
  table: string;
  column: string;
  /** The body's field naming what is linked. */
  field: string;
  body: z.ZodType<Record<string, string | number>>;
  /** The id of the linked row from the body's value or the path's key; undefined when unknown. */
  resolve: (db: Db, value: string | number) => Promise<number | undefined>;
  /** The items as listed. */
  listSql: string;
  /** A change ends the user's tokens (roles are access). */
  grantsAccess: boolean;
}

const roleId = async (db: Db, name: string | number) => (await db.query<{ id: number }>('select id from roles where name = $1', [String(name)])).rows[0]?.id;
const numericId = async (_db: Db, value: string | number) => (Number.isSafeInteger(Number(value)) && Number(value) > 0 ? Number(value) : undefined);

/**
 * Role, language and competence links: listed, added with POST, removed with DELETE; adding and removing
 * answer the user. A role change bumps the user's session version, so tokens with the old roles stop working
 * at once (ADR 017); the last active Admin keeps the Admin role (ADR 018).
 */
const LINKS: readonly Link[] = [
  {
    path: 'roles',
    table: 'user_roles',
    column: 'role_id',
    field: 'role',
    body: z.object({ role: z.string().min(1).max(50) }),
    resolve: roleId,
    listSql: 'select r.name from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = $1 order by r.name',
    grantsAccess: true,
  },
  {
    path: 'languages',
    table: 'user_languages',
    column: 'language_id',
    field: 'language_id',
    body: z.object({ language_id: idField() }),
    resolve: numericId,
    listSql: 'select l.id, l.name from user_languages ul join languages l on l.id = ul.language_id where ul.user_id = $1 order by l.name',
    grantsAccess: false,
  },
  {
    path: 'competencies',
    table: 'user_competencies',
    column: 'competence_id',
    field: 'competence_id',
    body: z.object({ competence_id: idField() }),
    resolve: numericId,
    listSql: 'select c.id, c.name from user_competencies uc join competencies c on c.id = uc.competence_id where uc.user_id = $1 order by c.name',
    grantsAccess: false,
  },
];

function linkHandlers(db: Db, link: Link): { list: EntityRouteHandler; add: EntityRouteHandler; remove: EntityRouteHandler } {
  return {
    async list(req, reply) {
      const { id } = parseBody(idParam, req.params);
      if (!(await findUser(db, { id }))) throw new ApiError(404, 'not_found');
      const { rows } = await db.query<Record<string, unknown>>(link.listSql, [id]);
      return ok(
        reply,
        rows.map((row) => ('id' in row ? { ...row, id: Number(row.id) } : row)),
      );
    },
    async add(req, reply) {
      const { id } = parseBody(idParam, req.params);
      const target = await link.resolve(db, parseBody(link.body, req.body)[link.field]!);
      if (!target) throw new ApiError(400, 'validation_error', undefined, { [link.column]: 'validation.option' });
      if (!(await findUser(db, { id }))) throw new ApiError(404, 'not_found');
      try {
        await db.transaction(async (tx) => {
          const { rows } = await tx.query(`insert into ${link.table} (user_id, ${link.column}) values ($1, $2) on conflict do nothing returning user_id`, [id, target]);
          if (link.grantsAccess && rows.length > 0) await bumpSessionVersion(tx, id);
        });
      } catch (error) {
        if ((error as { code?: string }).code === '23503') throw new ApiError(400, 'validation_error', undefined, { [link.column]: 'validation.option' });
        throw error;
      }
      return ok(reply, await detail(db, id));
    },
    async remove(req, reply) {
      const { id, key } = parseBody(itemParams, req.params);
      const target = await link.resolve(db, key);
      if (!target) throw new ApiError(404, 'not_found');
      await db.transaction(async (tx) => {
        if (link.path === 'roles' && key === 'Admin') {
          await lockAdminSet(tx);
          if (await isLastActiveAdmin(tx, id)) throw new ApiError(409, 'last_admin');
        }
        const { rows } = await tx.query(`delete from ${link.table} where user_id = $1 and ${link.column} = $2 returning user_id`, [id, target]);
        if (link.grantsAccess && rows.length > 0) await bumpSessionVersion(tx, id);
      });
      return ok(reply, await detail(db, id));
    },
  };
}
