import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { idField } from '../../shared/schemas/common.ts';
import { operationalRangeInput, userListInput, userUpdateInput } from '../../shared/schemas/users.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { bumpSessionVersion, revokeUserSessions } from '../lib/sessions.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { LIST_USER_SQL, findUser, isLastActiveAdmin, lockAdminSet, revokeAccountLinks, toListedUser } from '../users.ts';

const listQuery = userListInput;

/** Users, buddies and a user's roles, languages and competencies. */
export function registerUsers(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const admin = requireAuth(config, ['Admin']);
  // The users list is open to whom the back office opens it (§6): Admin, and BuddyShop (Buddy and Shop).
  const listers = requireAuth(config, (roles) => roles.includes('Admin') || (roles.includes('Buddy') && roles.includes('Shop')));

  async function page(query: z.infer<typeof listQuery>, extraWhere: string[] = []) {
    const where = [...extraWhere];
    const params: unknown[] = [];
    if (query.search) {
      params.push(`%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
      where.push(
        `(lower(u.email) like $${params.length} or lower(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) like $${params.length} or u.phone_number like $${params.length})`,
      );
    }
    if (query.role) {
      params.push(query.role);
      where.push(`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and r.name = $${params.length})`);
    }
    for (const key of ['user_type', 'account_status', 'invitation_status'] as const) {
      if (query[key] === undefined) continue;
      params.push(query[key]);
      where.push(`u.${key} = $${params.length}`);
    }
    const whereSql = where.length ? ` where ${where.join(' and ')}` : '';
    const ordering = query.ordering ?? '-id';
    const direction = ordering.startsWith('-') ? 'desc' : 'asc';
    const column = ordering.replace(/^-/, '');
    const [{ rows: count }, { rows }] = await Promise.all([
      db.query<{ n: number }>(`select count(*)::int as n from users u${whereSql}`, params),
      db.query(
        `${LIST_USER_SQL}${whereSql} order by u.${column} ${direction} nulls last, u.id ${direction} limit ${query.page_size} offset ${(query.page - 1) * query.page_size}`,
        params,
      ),
    ]);
    const total = Number(count[0]?.n ?? 0);
    return { results: rows.map(toListedUser), paginator: { page: query.page, page_size: query.page_size, count: total, total_pages: Math.ceil(total / query.page_size) } };
  }

  app.get('/api/users/', { preHandler: listers }, async (req, reply) => ok(reply, await page(parseBody(listQuery, req.query))));

  /** §3: the buddies list keeps only active users holding the Buddy role; their contact details, so the users list's rule (ADR 028). */
  app.get('/api/buddies/', { preHandler: listers }, async (req, reply) => ok(reply, await page({ ...parseBody(listQuery, req.query), role: 'Buddy' }, ['u.is_active'])));

  async function detail(id: number) {
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

  app.get('/api/users/:id/', { preHandler: admin }, async (req, reply) => ok(reply, await detail(parseBody(idParam, req.params).id)));

  app.put('/api/users/:id/', { preHandler: admin }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { version, ...input } = parseBody(userUpdateInput, req.body);
    if (input.profile_image) {
      // The person's own upload, or one the admin made for them; what is stored already may stay.
      const { rows: stored } = await db.query<{ profile_image: string | null }>('select profile_image from users where id = $1', [id]);
      await checkUploadedImage(db, config, input.profile_image, {
        field: 'profile_image',
        kind: 'user_profile_picture',
        current: stored[0]?.profile_image,
        uploadedBy: [id, req.user!.id],
      });
    }
    const keys = Object.keys(input) as (keyof typeof input)[];
    const updated = await db.transaction(async (tx) => {
      const deactivating = input.is_active === false;
      if (deactivating) {
        await lockAdminSet(tx);
        if (await isLastActiveAdmin(tx, id)) throw new ApiError(409, 'last_admin');
      }
      const { rows } = await tx.query(
        `update users set ${keys.map((k, i) => `${k} = $${i + 3}`).join(', ')}, version = version + 1, updated_at = now() where id = $1 and version = $2 returning id`,
        [id, version, ...keys.map((k) => input[k] ?? null)],
      );
      if (!rows[0]) return false;
      // Deactivation ends everything the account could get in with: sessions (at once, ADR 017), refresh
      // tokens, and invitation, reset and confirmation links; a pending invitation becomes canceled (ADR 018).
      if (deactivating) {
        await revokeUserSessions(tx, id);
        await revokeAccountLinks(tx, id);
        await tx.query("update users set invitation_status = 'canceled' where id = $1 and invitation_status = 'pending'", [id]);
      }
      return true;
    });
    if (!updated) {
      if (!(await findUser(db, { id }))) throw new ApiError(404, 'not_found');
      throw new ApiError(409, 'conflict');
    }
    return ok(reply, await detail(id));
  });

  /** The user's operational range: set (or cleared with null) on its own; answers the user. */
  app.put('/api/users/:id/operational-range/', { preHandler: admin }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { operational_range_id } = parseBody(operationalRangeInput, req.body);
    try {
      const { rows } = await db.query('update users set operational_range_id = $2, updated_at = now() where id = $1 returning id', [id, operational_range_id]);
      if (!rows[0]) throw new ApiError(404, 'not_found');
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new ApiError(400, 'validation_error', undefined, { operational_range_id: 'validation.option' });
      throw error;
    }
    return ok(reply, await detail(id));
  });

  /**
   * Role, language and competence links: add with POST, remove with DELETE; both answer the user. A role
   * change bumps the user's session version, so tokens with the old roles stop working at once (ADR 017);
   * the last active Admin keeps the Admin role (ADR 018).
   */
  const links = [
    {
      path: 'roles',
      table: 'user_roles',
      column: 'role_id',
      body: z.object({ role: z.string().min(1).max(50) }),
      resolve: async (b: { role: string }) => (await db.query<{ id: number }>('select id from roles where name = $1', [b.role])).rows[0]?.id,
      grantsAccess: true,
    },
    {
      path: 'languages',
      table: 'user_languages',
      column: 'language_id',
      body: z.object({ language_id: idField() }),
      resolve: async (b: { language_id: number }) => b.language_id,
      grantsAccess: false,
    },
    {
      path: 'competencies',
      table: 'user_competencies',
      column: 'competence_id',
      body: z.object({ competence_id: idField() }),
      resolve: async (b: { competence_id: number }) => b.competence_id,
      grantsAccess: false,
    },
  ] as const;

  for (const link of links) {
    app.post(`/api/users/:id/${link.path}/`, { preHandler: admin }, async (req, reply) => {
      const { id } = parseBody(idParam, req.params);
      const target = await (link.resolve as (b: unknown) => Promise<number | undefined>)(parseBody(link.body as z.ZodType, req.body));
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
      return ok(reply, await detail(id));
    });
    app.delete(`/api/users/:id/${link.path}/:target/`, { preHandler: admin }, async (req, reply) => {
      const { id, target } = parseBody(idParam.extend({ target: z.string().min(1).max(50) }), req.params);
      const targetId = link.path === 'roles' ? (await db.query<{ id: number }>('select id from roles where name = $1', [target])).rows[0]?.id : Number(target);
      if (!targetId) throw new ApiError(404, 'not_found');
      await db.transaction(async (tx) => {
        const removesAdmin = link.path === 'roles' && target === 'Admin';
        if (removesAdmin) {
          await lockAdminSet(tx);
          if (await isLastActiveAdmin(tx, id)) throw new ApiError(409, 'last_admin');
        }
        const { rows } = await tx.query(`delete from ${link.table} where user_id = $1 and ${link.column} = $2 returning user_id`, [id, targetId]);
        if (link.grantsAccess && rows.length > 0) await bumpSessionVersion(tx, id);
      });
      return ok(reply, await detail(id));
    });
  }
}
