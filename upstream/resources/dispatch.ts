import type { FastifyInstance } from 'fastify';
import { CAPACITY_STATUSES } from '../../shared/entities/services.ts';
import { USER_FULL_NAME_SQL } from './entity-sql-parts.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { serviceTypesEntity } from '../../shared/entities/service-types.ts';
import { labelSql } from '../../shared/entity/define.ts';
import { dispatchBoardInput, type DispatchBoard, type DispatchBuddy, type DispatchService, type DispatchSlot } from '../../shared/schemas/dispatch.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ok } from '../lib/api-error.ts';
import { requireAuth } from '../lib/auth.ts';
import { parseBody } from '../routes/validation.ts';
import { langOf } from '../lib/lang.ts';
import { dayLimitOf } from './capacity.ts';

const label = (alias: string) => USER_FULL_NAME_SQL.replace(/\br\./g, `${alias}.`);

/**
 * GET dispatch/?date=YYYY-MM-DD (Admin): one day of every active buddy — work slots, not-working
 * slots, places held per slot and per day — and the day's services, in one read and one snapshot, so
 * the board is not a request per buddy and shows the same facts the booking check counts (ADR 010, 022).
 * A move is an ordinary service update (PATCH services/<id>/), which takes the lock and checks capacity.
 */
export function registerDispatch(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  app.get('/api/dispatch/', { preHandler: requireAuth(config, ['Admin']) }, async (req, reply) => {
    const { date } = parseBody(dispatchBoardInput, req.query);
    const lang = langOf(req);
    const board = await db.transaction(async (tx) => {
      // Every read below sees the same moment, as if taken together.
      await tx.query('set transaction isolation level repeatable read');
      return readBoard(tx, date, lang);
    });
    return ok(reply, board);
  });
}

async function readBoard(tx: Db, date: string, lang: 'en' | 'sv'): Promise<DispatchBoard> {
  const capacity = CAPACITY_STATUSES;
  const { rows: services } = await tx.query<Record<string, unknown>>(
    `select s.id, s.version, s.status, s.buddy_id, s.service_slot_id, to_char(s.service_time, 'HH24:MI') as service_time, s.address, s.notes,
            (select ${label('u')} from users u where u.id = s.buddy_id) as buddy_label,
            (select ${labelSql(bicyclesEntity.label, 'b')} from bicycles b where b.id = s.bicycle_id) as bicycle_label,
            (select ${label('o')} from users o where o.id = s.owner_id) as owner_label,
            (select ${labelSql(serviceTypesEntity.label, 't', lang)} from service_types t where t.id = s.service_type_id) as service_type_label
       from services s
      where s.service_date = $1 and s.status = any($2::smallint[])
      order by s.service_slot_id, s.service_time nulls last, s.id`,
    [date, capacity],
  );
  const { rows: slots } = await tx.query<DispatchSlot>(
    `select id, name, to_char(start_time, 'HH24:MI') as start_time, to_char(end_time, 'HH24:MI') as end_time, max, is_active
       from service_slots where is_active or id = any($1::bigint[]) order by start_time, id`,
    [[...new Set(services.map((s) => Number(s.service_slot_id)))]],
  );
  const { rows: buddies } = await tx.query<{ id: number; name: string; email: string }>(
    `select u.id, ${label('u')} as name, u.email from users u
      where u.is_active and exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and r.name = 'Buddy')
      order by 2, u.id`,
  );
  const { rows: work } = await tx.query<{ buddy_id: number; service_slot_id: number; max_services_per_day: number; is_working_day: boolean; notes: string | null }>(
    'select buddy_id, service_slot_id, max_services_per_day, is_working_day, notes from buddy_work_slots where service_date = $1',
    [date],
  );
  const { rows: away } = await tx.query<{ user_id: number; service_slot_id: number; notes: string | null }>(
    'select user_id, service_slot_id, notes from not_working_slots where service_date = $1',
    [date],
  );

  const key = (buddy: unknown, slot: unknown) => `${Number(buddy)}:${Number(slot)}`;
  const taken = new Map<string, number>();
  for (const s of services) taken.set(key(s.buddy_id, s.service_slot_id), (taken.get(key(s.buddy_id, s.service_slot_id)) ?? 0) + 1);
  const workAt = new Map(work.map((w) => [key(w.buddy_id, w.service_slot_id), w]));
  const awayAt = new Map(away.map((a) => [key(a.user_id, a.service_slot_id), a]));

  const boardBuddies: DispatchBuddy[] = buddies.map((b) => {
    const id = Number(b.id);
    return {
      id,
      name: b.name,
      email: b.email,
      day_limit: dayLimitOf(work.filter((w) => Number(w.buddy_id) === id)),
      day_taken: services.filter((s) => Number(s.buddy_id) === id).length,
      cells: slots.map((slot) => {
        const here = workAt.get(key(id, slot.id));
        const off = awayAt.get(key(id, slot.id));
        return {
          slot_id: Number(slot.id),
          away: Boolean(off),
          note: off?.notes ?? (here && !here.is_working_day ? here.notes : null) ?? null,
          scheduled: here !== undefined,
          working: here?.is_working_day ?? false,
          taken: taken.get(key(id, slot.id)) ?? 0,
        };
      }),
    };
  });

  return {
    date,
    slots: slots.map((s) => ({ ...s, id: Number(s.id), max: Number(s.max) })),
    buddies: boardBuddies,
    services: services.map(dispatchServiceOf),
  };
}

/** A service row as the board shows it: ids and numbers as numbers, labels as text. */
function dispatchServiceOf(s: Record<string, unknown>): DispatchService {
  return {
    id: Number(s.id),
    version: Number(s.version),
    status: Number(s.status),
    buddy_id: Number(s.buddy_id),
    buddy_label: String(s.buddy_label ?? ''),
    service_slot_id: Number(s.service_slot_id),
    service_time: (s.service_time as string | null) ?? null,
    address: (s.address as string | null) ?? null,
    bicycle_label: String(s.bicycle_label ?? ''),
    owner_label: (s.owner_label as string | null) ?? null,
    service_type_label: (s.service_type_label as string | null) ?? null,
    notes: (s.notes as string | null) ?? null,
  };
}
