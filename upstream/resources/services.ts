import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CAPACITY_STATUSES, SERVICE_STATUS, servicesEntity } from '../../shared/entities/services.ts';
import { writeRoles } from '../../shared/entity/define.ts';
import { subResourceSetManySchema } from '../../shared/entity/schemas.ts';
import { timeOutsideSlot } from '../../shared/capacity.ts';
import { isWithinRange } from '../../shared/geo.ts';
import { serviceDetailInput, type ServiceDetailRow } from '../../shared/schemas/services.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { requireAuth, type AuthUser } from '../lib/auth.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { checkCapacity, lockBuddyDays } from './capacity.ts';
import { orderRoute } from './service-route-order.ts';
import type { Lang } from '../lib/lang.ts';
import { audited, type EntityHandlersFactory } from './entity-actions.ts';
import type { EntityResource, WriteContext } from './entity-resource-types.ts';

const itemKey = idParam.extend({ key: idParam.shape.id });
const imageParams = itemKey.extend({ imageId: idParam.shape.id });
const imageInput = z.object({ url: z.url({ protocol: /^https?$/ }).max(2048) });
const detailsSetMany = subResourceSetManySchema(servicesEntity.subResources!.details);

const FINAL_STATUSES: readonly number[] = [SERVICE_STATUS.CanceledByBuddy, SERVICE_STATUS.Finished, SERVICE_STATUS.CanceledByUserOrAdmin];

/**
 * Every write of a service — create, the generic PUT, the PATCH the dispatch board sends, the transition
 * the Today and service pages send — runs these rules once, inside the write's transaction with the row
 * locked (the engine's one write path, `writeRecord`, ADR 032): the status step (the table of ADR 009 is
 * checked by the engine first), the operation range (ADR 011), the bicycle and its owner, capacity (ADR 010).
 */
export function serviceWriteRules(config: UpstreamConfig) {
  return async function beforeWrite(input: Record<string, unknown>, ctx: WriteContext) {
    checkServiceChange(input, ctx);
    const { tx, current } = ctx;
    if (current && Number(input.status) === SERVICE_STATUS.Finished && Number(current.status) !== SERVICE_STATUS.Finished)
      await checkRequiredAnswered(tx, current.id, ctx.lang ?? 'en');
    const point = { lat: Number(input.latitude), lng: Number(input.longitude) };
    const moved = !current || Number(current.latitude) !== point.lat || Number(current.longitude) !== point.lng;
    if (moved && !isWithinRange(config.operationRange, point)) throw new ApiError(400, 'invalid_address', undefined, { address: 'validation.invalidAddress' });

    const { rows: bicycles } = await tx.query<{ owner_id: number | null }>('select owner_id from bicycles where id = $1', [input.bicycle_id]);
    if (!bicycles[0]) throw new ApiError(400, 'validation_error', undefined, { bicycle_id: 'validation.option' });

    const rebooked = await checkBooking(tx, input, current, ctx.lang ?? 'en');
    // A stop moved to another buddy, day, slot or time leaves the order it was given (ADR 044).
    const replanned = current && Number(current.route_position) > 0 && (rebooked || String(current.service_time ?? '') !== String(input.service_time ?? '').slice(0, 5));
    return { owner_id: bicycles[0].owner_id === null ? null : Number(bicycles[0].owner_id), ...(replanned ? { route_position: 0 } : {}) };
  };
}

/**
 * The booking of a service: its agreed time within its slot (when either changed), and capacity when it moved
 * to another buddy, day or slot in a status that takes a place (ADR 010). Answers whether it moved so.
 */
async function checkBooking(tx: Db, input: Record<string, unknown>, current: WriteContext['current'], lang: Lang): Promise<boolean> {
  const key = { buddyId: Number(input.buddy_id), date: String(input.service_date), slotId: Number(input.service_slot_id) };
  const time = input.service_time ? String(input.service_time).slice(0, 5) : null;
  if (time && (!current || Number(current.service_slot_id) !== key.slotId || String(current.service_time ?? '').slice(0, 5) !== time))
    await checkTimeInSlot(tx, key.slotId, time, lang);
  const rebooked = !current || Number(current.buddy_id) !== key.buddyId || current.service_date !== key.date || Number(current.service_slot_id) !== key.slotId;
  if (rebooked && CAPACITY_STATUSES.includes(Number(input.status))) {
    await lockBuddyDays(tx, [{ buddyId: key.buddyId, date: key.date }]);
    await checkCapacity(tx, { ...key, excludeId: current?.id ?? null });
  }
  return rebooked;
}

/**
 * The rules of a service's change beyond the status table, whoever asks for it (one home, ADR 028, 032): a
 * finished or canceled service keeps its buddy, date and slot (the record of who did the work, or was to); a
 * service is finished on or after its date — "today" in the easternmost time zone (UTC+14), so nobody anywhere
 * is refused on the day itself — unless an Admin overrides explicitly (`force`). `current` is null on create;
 * `input` is the whole record after the write.
 */
export function checkServiceChange(input: Record<string, unknown>, { current, force }: WriteContext): void {
  if (!current) return;
  if (FINAL_STATUSES.includes(Number(current.status))) {
    const moved = (['buddy_id', 'service_date', 'service_slot_id'] as const).find((key) => String(input[key]) !== String(current[key]));
    if (moved) throw new ApiError(409, 'final_service_fixed', undefined, { [moved]: 'validation.finalKeepsBuddyAndSlot' });
  }
  const finishing = Number(input.status) === SERVICE_STATUS.Finished && Number(current.status) !== SERVICE_STATUS.Finished;
  const latestToday = new Date(Date.now() + 14 * 3600 * 1000).toISOString().slice(0, 10);
  if (finishing && !force && String(input.service_date) > latestToday) throw new ApiError(409, 'finish_before_date', undefined, { status: 'validation.finishBeforeDate' });
}

const OUTSIDE_SLOT_REFUSAL: Record<Lang, (time: string, slot: string, start: string, end: string) => string> = {
  en: (time, slot, start, end) => `${time} is outside the slot ${slot} (${start}–${end}). Choose a time within the slot, or another slot.`,
  sv: (time, slot, start, end) => `${time} ligger utanför passet ${slot} (${start}–${end}). Välj en tid inom passet, eller ett annat pass.`,
};

/**
 * A service's agreed time lies within its slot (issue 33, ADR 066): checked when the time or the slot changes,
 * whoever writes it (the dispatch board's move, the service form), so a record with an older, odd time is not
 * refused a step that leaves both alone (a Finish queued offline). The refusal names the slot's hours in the
 * caller's language; the rule itself is shared/capacity.ts, which the board asks before sending a move.
 */
async function checkTimeInSlot(tx: Db, slotId: number, time: string, lang: Lang): Promise<void> {
  const { rows } = await tx.query<{ name: string; start_time: string; end_time: string }>('select name, start_time::text, end_time::text from service_slots where id = $1', [
    slotId,
  ]);
  const slot = rows[0];
  if (!slot || !timeOutsideSlot(time, slot)) return;
  const cause = OUTSIDE_SLOT_REFUSAL[lang](time, slot.name, slot.start_time.slice(0, 5), slot.end_time.slice(0, 5));
  throw new ApiError(409, 'time_outside_slot', cause, { service_time: 'validation.timeOutsideSlot' });
}

const UNANSWERED_REFUSAL: Record<Lang, (names: string) => string> = {
  en: (names) => `Answer the required check items before finishing the service: ${names}.`,
  sv: (names) => `Besvara de obligatoriska kontrollpunkterna innan servicen avslutas: ${names}.`,
};

/**
 * A service is finished only with every required service item answered (ADR 043): whoever finishes it, through
 * whichever write. The refusal names the unanswered items in the caller's language, for the screens to show as is.
 */
async function checkRequiredAnswered(tx: Db, serviceId: number, lang: Lang): Promise<void> {
  const { rows } = await tx.query<{ name_en: string; name_sv: string }>(
    `select i.name_en, i.name_sv from service_items i
       left join service_details d on d.service_item_id = i.id and d.service_id = $1
      where i.is_required and d.check_status is null
      order by i.name_${lang}, i.id`,
    [serviceId],
  );
  if (rows.length === 0) return;
  const names = rows.map((r) => (lang === 'sv' ? r.name_sv : r.name_en)).join(', ');
  throw new ApiError(409, 'checklist_incomplete', UNANSWERED_REFUSAL[lang](names), { status: 'validation.checklistIncomplete' });
}

/** The service as the caller may see it (a Buddy: only theirs), or 404. */
async function visibleService({ fetchOne }: EntityResource, id: number, user: AuthUser, tx: Db) {
  const service = await fetchOne(id, tx, user);
  if (!service) throw new ApiError(404, 'not_found');
  return service;
}

/** Details are recorded while the service is booked; afterwards they are the record of what was done. */
async function editableService({ fetchOne }: EntityResource, id: number, user: AuthUser, tx: Db) {
  const service = await fetchOne(id, tx, user, true);
  if (!service) throw new ApiError(404, 'not_found');
  if (Number(service.status) !== SERVICE_STATUS.Booked) throw new ApiError(409, 'service_not_booked');
  return service;
}

/** The checklist of a service: every service item, with its detail and images where one was recorded. */
async function detailRows(tx: Db, serviceId: number): Promise<ServiceDetailRow[]> {
  const { rows: items } = await tx.query<Record<string, unknown>>(
    `select i.id as service_item_id, i.name_en, i.name_sv, i.description, i.is_required,
            d.id as detail_id, d.check_status, d.needs_repair, d.notes, d.version, d.updated_at
       from service_items i left join service_details d on d.service_item_id = i.id and d.service_id = $1
      order by i.name_en, i.id`,
    [serviceId],
  );
  const { rows: images } = await tx.query<{ id: number; service_detail_id: number; url: string }>(
    'select m.id, m.service_detail_id, m.url from service_detail_images m join service_details d on d.id = m.service_detail_id where d.service_id = $1 order by m.id',
    [serviceId],
  );
  return items.map((r) => ({
    service_item_id: Number(r.service_item_id),
    name_en: String(r.name_en),
    name_sv: String(r.name_sv),
    description: (r.description as string | null) ?? null,
    is_required: Boolean(r.is_required),
    detail:
      r.detail_id === null || r.detail_id === undefined
        ? null
        : {
            id: Number(r.detail_id),
            check_status: r.check_status === null ? null : (Number(r.check_status) as 1 | 2 | 3),
            needs_repair: Boolean(r.needs_repair),
            notes: (r.notes as string | null) ?? null,
            version: Number(r.version),
            updated_at: new Date(r.updated_at as string).toISOString(),
            images: images.filter((m) => Number(m.service_detail_id) === Number(r.detail_id)).map((m) => ({ id: Number(m.id), url: m.url })),
          },
  }));
}

async function ensureItem(tx: Db, itemId: number) {
  const { rows: found } = await tx.query('select 1 from service_items where id = $1', [itemId]);
  if (!found[0]) throw new ApiError(404, 'not_found');
}

/** The details sub-resource: the checklist (list) and one item's check (set). */
function detailHandlers(db: Db) {
  async function list(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id } = parseBody(idParam, req.params);
    await visibleService(resource, id, req.user!, db);
    return ok(reply, await detailRows(db, id));
  }

  async function set(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id, key: itemId } = parseBody(itemKey, req.params);
    const input = parseBody(serviceDetailInput, req.body);
    const result = await db.transaction(async (tx) => {
      await editableService(resource, id, req.user!, tx);
      await ensureItem(tx, itemId);
      await tx.query(
        `insert into service_details (service_id, service_item_id, check_status, needs_repair, notes) values ($1, $2, $3, $4, $5)
         on conflict (service_id, service_item_id)
         do update set check_status = excluded.check_status, needs_repair = excluded.needs_repair, notes = excluded.notes, version = service_details.version + 1, updated_at = now()`,
        [id, itemId, input.check_status, input.needs_repair, input.notes],
      );
      return (await detailRows(tx, id)).find((r) => r.service_item_id === itemId)!;
    });
    return ok(reply, result);
  }

  /** The whole checklist as one form (ADR 043): every item asked is written, or none; answers the checklist. */
  async function setMany(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id } = parseBody(idParam, req.params);
    const { items } = parseBody(detailsSetMany, req.body);
    const result = await db.transaction(async (tx) => {
      await editableService(resource, id, req.user!, tx);
      const keys = items.map((item) => Number(item.key));
      const { rows: known } = await tx.query<{ id: number }>('select id from service_items where id = any($1::bigint[])', [keys]);
      const found = new Set(known.map((r) => Number(r.id)));
      const unknown = keys.findIndex((key) => !found.has(key));
      if (unknown >= 0) throw new ApiError(400, 'validation_error', undefined, { [`items.${unknown}.key`]: 'validation.option' });
      for (const item of items)
        await tx.query(
          `insert into service_details (service_id, service_item_id, check_status, needs_repair, notes) values ($1, $2, $3, $4, $5)
           on conflict (service_id, service_item_id)
           do update set check_status = excluded.check_status, needs_repair = excluded.needs_repair, notes = excluded.notes, version = service_details.version + 1, updated_at = now()`,
          [id, item.key, item.check_status, item.needs_repair ?? false, (typeof item.notes === 'string' && item.notes.trim()) || null],
        );
      return detailRows(tx, id);
    });
    return ok(reply, result);
  }

  return { list, set, setMany };
}

/** The service's photos (§9 `service_image`): read by whoever sees the service, added and removed while it is booked. */
function photoHandlers(db: Db, config: UpstreamConfig) {
  async function list(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id } = parseBody(idParam, req.params);
    await visibleService(resource, id, req.user!, db);
    const { rows } = await db.query<{ id: number; url: string; created_at: Date }>('select id, url, created_at from service_images where service_id = $1 order by id', [id]);
    return ok(
      reply,
      rows.map((r) => ({ id: Number(r.id), url: r.url, created_at: new Date(r.created_at).toISOString() })),
    );
  }

  async function add(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id } = parseBody(idParam, req.params);
    const { url } = parseBody(imageInput, req.body);
    const user = req.user!;
    // Only files stored through our own signed uploads, and a Buddy's own, can be attached (ADR 020).
    await checkUploadedImage(db, config, url, { field: 'url', kind: 'service_image', current: null, uploadedBy: user.roles.includes('Admin') ? undefined : [user.id] });
    const result = await db.transaction(async (tx) => {
      await editableService(resource, id, user, tx);
      const { rows } = await tx.query<{ id: number; created_at: Date }>('insert into service_images (service_id, url) values ($1, $2) returning id, created_at', [id, url]);
      return { id: Number(rows[0]!.id), url, created_at: new Date(rows[0]!.created_at).toISOString() };
    });
    return ok(reply, result, 201);
  }

  async function remove(req: FastifyRequest, reply: FastifyReply, resource: EntityResource) {
    const { id, key: imageId } = parseBody(itemKey, req.params);
    await db.transaction(async (tx) => {
      await editableService(resource, id, req.user!, tx);
      const { rows } = await tx.query('delete from service_images where id = $1 and service_id = $2 returning id', [imageId, id]);
      if (!rows[0]) throw new ApiError(404, 'not_found');
    });
    return ok(reply, { id: imageId });
  }

  return { list, add, remove };
}

// The images of a checklist row: routes of their own (not declared: an item of an item), written in the
// history scope as the declared sub-resources are (ADR 058): `details.images.add` / `.remove`, and announced live.
function imageRoutes(db: Db, config: UpstreamConfig) {
  const writers = requireAuth(config, writeRoles(servicesEntity, 'transition'));
  return (app: FastifyInstance, resource: EntityResource) => {
    app.post('/api/services/:id/details/:key/images/', { preHandler: writers }, async (req, reply) => {
      const { id, key: itemId } = parseBody(itemKey, req.params);
      const { url } = parseBody(imageInput, req.body);
      const user = req.user!;
      // Only files stored through our own signed uploads, and a Buddy's own, can be attached (ADR 020, 058).
      await checkUploadedImage(db, config, url, { field: 'url', kind: 'service_detail_image', current: null, uploadedBy: user.roles.includes('Admin') ? undefined : [user.id] });
      const result = await audited(resource, req, 'details.images.add', true, { images: [null, { service_item_id: itemId, url }] }, () =>
        db.transaction(async (tx) => {
          await editableService(resource, id, user, tx);
          await ensureItem(tx, itemId);
          const { rows: detail } = await tx.query<{ id: number }>(
            `insert into service_details (service_id, service_item_id) values ($1, $2)
           on conflict (service_id, service_item_id) do update set updated_at = now() returning id`,
            [id, itemId],
          );
          const { rows: image } = await tx.query<{ id: number }>('insert into service_detail_images (service_detail_id, url) values ($1, $2) returning id', [detail[0]!.id, url]);
          return { id: Number(image[0]!.id), url };
        }),
      );
      return ok(reply, result, 201);
    });

    app.delete('/api/services/:id/details/:key/images/:imageId/', { preHandler: writers }, async (req, reply) => {
      const { id, key: itemId, imageId } = parseBody(imageParams, req.params);
      const removed = { images: [{ id: imageId, service_item_id: itemId }, null] as [unknown, unknown] };
      await audited(resource, req, 'details.images.remove', true, removed, () =>
        db.transaction(async (tx) => {
          await editableService(resource, id, req.user!, tx);
          const { rows: gone } = await tx.query<{ url: string }>(
            `delete from service_detail_images m using service_details d
            where m.id = $1 and m.service_detail_id = d.id and d.service_id = $2 and d.service_item_id = $3 returning m.url`,
            [imageId, id, itemId],
          );
          if (!gone[0]) throw new ApiError(404, 'not_found');
          // The entry (written at this transaction's commit) names the file removed.
          removed.images[0] = { id: imageId, service_item_id: itemId, url: gone[0].url };
        }),
      );
      return ok(reply, { id: imageId });
    });
  };
}

/** Services: the write rules above on the generic resource, and the service details checklist with images. */
export const handlers: EntityHandlersFactory = ({ db, config }) => ({
  hooks: { beforeWrite: serviceWriteRules(config) },
  actions: { orderRoute: orderRoute(db, config.auditKey) },
  subResources: { details: detailHandlers(db), images: photoHandlers(db, config) },
  routes: imageRoutes(db, config),
});
