import { capacityRefusal, type CapacityRefusal } from '../../shared/capacity.ts';
import { CAPACITY_STATUSES } from '../../shared/entities/services.ts';
import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';

/**
 * ADR 010: every write that changes what a buddy can take on a day (a booking, a work slot, a
 * not-working slot) first takes this transaction-scoped lock for the buddy and day. Two bookings
 * racing for the last place are serialised here: the second one counts the first.
 */
export async function lockBuddyDay(tx: Db, buddyId: number, date: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock(hashtext('buddy-day'), hashtext($1))", [`${buddyId}:${date}`]);
}

export async function lockBuddyDays(tx: Db, keys: { buddyId: number; date: string }[]): Promise<void> {
  // Always in the same order, so two writes touching the same two days cannot deadlock.
  const unique = [...new Set(keys.map((k) => `${k.buddyId}:${k.date}`))].sort();
  for (const key of unique) await tx.query("select pg_advisory_xact_lock(hashtext('buddy-day'), hashtext($1))", [key]);
}

const refuse = (code: string, field: string, message: string) => new ApiError(409, code, undefined, { [field]: message });

/** Services holding a place (ADR 010) for a buddy on a day, optionally in one slot, other than `excludeId`. */
export async function countBookings(tx: Db, buddyId: number, date: string, slotId: number | null, excludeId: number | null = null): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `select count(*)::int as n from services
      where buddy_id = $1 and service_date = $2 and ($3::bigint is null or service_slot_id = $3) and status = any($4::smallint[]) and id <> coalesce($5::bigint, 0)`,
    [buddyId, date, slotId, CAPACITY_STATUSES, excludeId],
  );
  return Number(rows[0]?.n ?? 0);
}

const REFUSALS: Record<CapacityRefusal, () => ApiError> = {
  slot_inactive: () => new ApiError(400, 'validation_error', undefined, { service_slot_id: 'validation.option' }),
  buddy_not_working: () => refuse('buddy_not_working', 'service_slot_id', 'validation.buddyNotWorking'),
  buddy_not_scheduled: () => refuse('buddy_not_scheduled', 'service_slot_id', 'validation.buddyNotScheduled'),
  slot_full: () => refuse('slot_full', 'service_slot_id', 'validation.slotFull'),
  day_full: () => refuse('day_full', 'service_date', 'validation.dayFull'),
};

/**
 * May this buddy take one more service in this slot on this day? The caller holds lockBuddyDay.
 * Refusals carry a stable code and a field message (shared i18n keys); the rule itself is
 * shared/capacity.ts, which the dispatch board applies to the same facts.
 */
export async function checkCapacity(tx: Db, booking: { buddyId: number; date: string; slotId: number; excludeId: number | null }): Promise<void> {
  const { buddyId, date, slotId, excludeId } = booking;
  const { rows: slots } = await tx.query<{ max: number; is_active: boolean }>('select max, is_active from service_slots where id = $1', [slotId]);
  const { rows: away } = await tx.query('select 1 from not_working_slots where user_id = $1 and service_date = $2 and service_slot_id = $3', [buddyId, date, slotId]);
  const { rows: work } = await tx.query<{ service_slot_id: number; max_services_per_day: number; is_working_day: boolean }>(
    'select service_slot_id, max_services_per_day, is_working_day from buddy_work_slots where buddy_id = $1 and service_date = $2',
    [buddyId, date],
  );
  const here = work.find((w) => Number(w.service_slot_id) === slotId);
  const refusal = capacityRefusal({
    slotActive: Boolean(slots[0]?.is_active),
    slotMax: Number(slots[0]?.max ?? 0),
    away: away.length > 0,
    work: here ? { isWorkingDay: here.is_working_day } : null,
    dayLimit: dayLimitOf(work),
    slotTaken: await countBookings(tx, buddyId, date, slotId, excludeId),
    dayTaken: await countBookings(tx, buddyId, date, null, excludeId),
  });
  if (refusal) throw REFUSALS[refusal]();
}

/** The day's limit is the strictest one the buddy has set for that day's working slots (null: none working). */
export function dayLimitOf(work: readonly { max_services_per_day: number; is_working_day: boolean }[]): number | null {
  const limits = work.filter((w) => w.is_working_day).map((w) => Number(w.max_services_per_day));
  return limits.length ? Math.min(...limits) : null;
}
