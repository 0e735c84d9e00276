import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idField, pageParams } from '../../shared/schemas/common.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { langOf } from '../lib/lang.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';
import type { EntityResource } from './entity-resource-types.ts';
import { PAGE_SIZES } from '../../shared/entity/define.ts';
import { USER_FULL_NAME_SQL } from './entity-sql-parts.ts';
import type { BicycleHistoryRow } from '../../shared/schemas/services.ts';

const historyQuery = z.object({
  ...pageParams(PAGE_SIZES, 10),
});
const imageInput = z.object({ url: z.url({ protocol: /^https?$/ }).max(2048), kind: z.enum(['image', 'defect']) });

/**
 * An owner's active bicycles may not exceed their limit (§8 max_bicycles_added). The owner row is locked
 * so two writes for one owner (create, activate, owner change) cannot both take the last place.
 */
async function checkOwnerLimit(tx: Db, ownerId: number, bicycleId = 0) {
  const { rows } = await tx.query<{ max: number }>('select max_bicycles as max from users where id = $1 for update', [ownerId]);
  if (!rows[0]) throw new ApiError(400, 'validation_error', undefined, { owner_id: 'validation.option' });
  const { rows: counted } = await tx.query<{ n: number }>('select count(*)::int as n from bicycles where owner_id = $1 and is_active and id <> $2', [ownerId, bicycleId]);
  if (Number(counted[0]!.n) >= Number(rows[0].max)) throw new ApiError(400, 'max_bicycles_added');
}

/** Whether a write makes a bicycle count towards an owner it did not count for before. */
async function takesAPlace(tx: Db, id: number, ownerId: unknown, active: unknown): Promise<boolean> {
  if (!ownerId || active === false) return false;
  const { rows } = await tx.query<{ owner_id: number | null; is_active: boolean }>('select owner_id, is_active from bicycles where id = $1', [id]);
  const current = rows[0];
  return !current || !current.is_active || Number(current.owner_id) !== Number(ownerId);
}

/** Bicycles: the owner's limit on the generic resource (activation included, ADR 069), the service history and (defect) images. */
export const handlers: EntityHandlersFactory = ({ db, config }) => {
  return {
    hooks: {
      async beforeCreate(input, tx) {
        if (input.owner_id && input.is_active !== false) await checkOwnerLimit(tx, Number(input.owner_id));
      },
      async beforeUpdate(id, input, tx) {
        if (await takesAPlace(tx, id, input.owner_id, input.is_active)) await checkOwnerLimit(tx, Number(input.owner_id), id);
      },
    },
    subResources: {
      // GET bicycles/<id>/services/: the bicycle's service history, newest first, paged (ADR 023).
      history: { list: (req, reply, { fetchOne }) => historyPage(db, req, reply, fetchOne) },
      images: {
        async list(req, reply) {
          const { id } = parseBody(idParam, req.params);
          const { rows } = await db.query<{ id: number; kind: string; url: string; created_at: Date }>(
            'select id, kind, url, created_at from bicycle_images where bicycle_id = $1 order by id',
            [id],
          );
          return ok(
            reply,
            rows.map((r) => ({ id: Number(r.id), kind: r.kind, url: r.url, created_at: new Date(r.created_at).toISOString() })),
          );
        },
        async add(req, reply, { fetchOne }) {
          const { id } = parseBody(idParam, req.params);
          const input = parseBody(imageInput, req.body);
          // Only files stored through our own signed uploads can be attached (ADR 020).
          await checkUploadedImage(db, config, input.url, { field: 'url', kind: 'bicycle', current: null });
          if (!(await fetchOne(id))) throw new ApiError(404, 'not_found');
          const { rows } = await db.transaction((tx) =>
            tx.query<{ id: number }>('insert into bicycle_images (bicycle_id, kind, url) values ($1, $2, $3) returning id', [id, input.kind, input.url]),
          );
          return ok(reply, { id: Number(rows[0]!.id), ...input }, 201);
        },
        async remove(req, reply) {
          const { id, key: imageId } = parseBody(idParam.extend({ key: idField() }), req.params);
          const { rows } = await db.transaction((tx) => tx.query('delete from bicycle_images where id = $1 and bicycle_id = $2 returning id', [imageId, id]));
          if (!rows[0]) throw new ApiError(404, 'not_found');
          return ok(reply, { id: imageId });
        },
      },
    },
  };
};

async function historyPage(db: Db, req: FastifyRequest, reply: FastifyReply, fetchOne: EntityResource['fetchOne']) {
  const { id } = parseBody(idParam, req.params);
  const { page, page_size } = parseBody(historyQuery, req.query);
  if (!(await fetchOne(id))) throw new ApiError(404, 'not_found');
  const lang = langOf(req);
  const [{ rows: counted }, { rows }] = await Promise.all([
    db.query<{ n: number }>('select count(*)::int as n from services where bicycle_id = $1', [id]),
    db.query<Record<string, unknown>>(
      `select s.id, to_char(s.service_date, 'YYYY-MM-DD') as service_date, s.status, s.notes, s.rating,
              (select r.name from service_slots r where r.id = s.service_slot_id) as slot_label,
              (select r.name_${lang} from service_types r where r.id = s.service_type_id) as service_type_label,
              (select ${USER_FULL_NAME_SQL} from users r where r.id = s.buddy_id) as buddy_label,
              (select count(*) from service_details d where d.service_id = s.id and d.check_status is not null)::int as checked,
              (select count(*) from service_details d where d.service_id = s.id and d.needs_repair)::int as needs_repair,
              array(select m.url from service_images m where m.service_id = s.id order by m.id limit 100) as photos
         from services s where s.bicycle_id = $1
        order by s.service_date desc, s.id desc limit ${page_size} offset ${(page - 1) * page_size}`,
      [id],
    ),
  ]);
  const count = Number(counted[0]?.n ?? 0);
  const results = rows.map((r): BicycleHistoryRow => ({
    id: Number(r.id),
    service_date: String(r.service_date),
    slot_label: (r.slot_label as string | null) ?? null,
    status: Number(r.status),
    service_type_label: (r.service_type_label as string | null) ?? null,
    buddy_label: (r.buddy_label as string | null) ?? null,
    notes: (r.notes as string | null) ?? null,
    rating: r.rating === null ? null : Number(r.rating),
    checked: Number(r.checked),
    needs_repair: Number(r.needs_repair),
    photos: Array.isArray(r.photos) ? r.photos.map(String) : [],
  }));
  return ok(reply, { results, paginator: { page, page_size, count, total_pages: Math.ceil(count / page_size) } });
}
