import { SERVICE_STATUS, servicesEntity } from '../../shared/entities/services.ts';
import { isOwnerScoped } from '../../shared/entity/define.ts';
import { inputFieldsSchema } from '../../shared/entity/schemas.ts';
import { keepsTimeOrder } from '../../shared/route-order.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordRequestEvent } from '../lib/audit.ts';
import { parseBody } from '../routes/validation.ts';
import type { EntityRouteHandler } from './entity-actions.ts';

const input = inputFieldsSchema(servicesEntity.actions!.orderRoute.input);
const CANCELED: readonly number[] = [SERVICE_STATUS.CanceledByBuddy, SERVICE_STATUS.CanceledByUserOrAdmin];

/**
 * POST services/route-order/ {order} (ADR 044): the visiting order of one buddy's day, applied as each stop's
 * `route_position`. The order must hold every open stop of that day — a stop added, moved or canceled since the
 * suggestion is 409 `conflict`, as for a record changed meanwhile — and keep the stops with an agreed time in time
 * order (400, `order: validation.routeTimes`).
 * A buddy orders only their own day: another's stop is a 404, as everywhere (ADR 009).
 * Besides the action's own entry (what was asked), each stop whose position changed gets an entry of its own
 * (`route_position` before and after, its buddy as owner): its history shows it, and live updates announce it
 * to the buddy and the Admins (ADR 058).
 */
export function orderRoute(db: Db, auditKey: string): EntityRouteHandler {
  return async (req, reply) => {
    const { order } = parseBody(input, req.body) as { order: number[] };
    const user = req.user!;
    if (order.length === 0 || new Set(order).size !== order.length) throw new ApiError(400, 'validation_error', undefined, { order: 'validation.option' });
    await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number; buddy_id: number; day: string; service_time: string | null }>(
        `select id, buddy_id, to_char(service_date, 'YYYY-MM-DD') as day, to_char(service_time, 'HH24:MI') as service_time
           from services where id = any($1::bigint[]) order by id for update`,
        [order],
      );
      const own = isOwnerScoped(servicesEntity, user.roles) ? rows.filter((r) => Number(r.buddy_id) === user.id) : rows;
      if (own.length !== order.length) throw new ApiError(404, 'not_found');
      const [{ buddy_id: buddy, day }] = own as [(typeof own)[0]];
      if (own.some((r) => Number(r.buddy_id) !== Number(buddy) || r.day !== day)) throw new ApiError(400, 'validation_error', undefined, { order: 'validation.option' });
      const { rows: open } = await tx.query<{ id: number }>('select id from services where buddy_id = $1 and service_date = $2 and status <> all($3::smallint[])', [
        buddy,
        day,
        CANCELED,
      ]);
      if (open.length !== order.length || open.some((r) => !order.includes(Number(r.id)))) throw new ApiError(409, 'conflict', "The day's stops have changed meanwhile.");
      const timeOf = new Map(own.map((r) => [Number(r.id), r.service_time]));
      if (!keepsTimeOrder(order.map((id) => timeOf.get(id) ?? null))) throw new ApiError(400, 'validation_error', undefined, { order: 'validation.routeTimes' });
      // `was` reads the row as it was before this statement (its snapshot), `s` as written.
      const { rows: moved } = await tx.query<{ id: number; was: number; now: number }>(
        `update services s set route_position = o.position, version = s.version + 1, updated_at = now()
           from unnest($1::bigint[]) with ordinality as o(id, position), services was
          where s.id = o.id and was.id = s.id and s.route_position <> o.position
          returning s.id, was.route_position as was, s.route_position as now`,
        [order],
      );
      for (const stop of moved.sort((x, y) => Number(x.id) - Number(y.id)))
        await recordRequestEvent(tx, auditKey, req, {
          entity: servicesEntity.name,
          recordId: Number(stop.id),
          action: 'orderRoute',
          changes: { route_position: [Number(stop.was), Number(stop.now)] },
          owners: [Number(buddy)],
        });
    });
    return ok(reply, { order });
  };
}
