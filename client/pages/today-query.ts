import type { EntityRecord } from '../../shared/entity/define.ts';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';
import { isValidIsoDate, todayIso } from '../components/calendar-dates.ts';

/**
 * What /today shows, from its URL (`?date=2026-11-25&buddy=7`): the services calendar read of one day.
 * The server's prefetch and the page build the same query from it, so the page hydrates from the
 * prefetched data. A buddy's own services are scoped by the API (ADR 009); an Admin may pick a buddy.
 */
export function todayDate(search: URLSearchParams): string {
  const date = search.get('date') ?? '';
  return isValidIsoDate(date) ? date : todayIso();
}

export function todayQuery(search: URLSearchParams, ownerScoped: boolean) {
  const date = todayDate(search);
  const buddy = ownerScoped ? null : search.get('buddy');
  return { from: date, to: date, filters: buddy && /^[1-9]\d{0,15}$/.test(buddy) ? { buddy_id: buddy } : {} };
}

const CANCELED: readonly number[] = [SERVICE_STATUS.CanceledByBuddy, SERVICE_STATUS.CanceledByUserOrAdmin];
export const isCanceled = (service: EntityRecord) => CANCELED.includes(Number(service.status));

/** When a stop happens: the agreed time, else the start of its slot ("HH:MM", sortable as text). */
export function stopTime(service: EntityRecord): string {
  return String(service.service_time ?? service.slot_start_time ?? '').slice(0, 5);
}

/**
 * When a stop happens, as its label says it (issue 33): the agreed time, else its slot by name ("Morning"):
 * a stop without an agreed time is not at its slot's start, which `stopTime` falls back to for ordering (the
 * route suggestion labelled every free morning stop "08:00").
 */
export function stopWhen(service: EntityRecord): string {
  return service.service_time ? String(service.service_time).slice(0, 5) : String(service.service_slot_id_label ?? '');
}

/**
 * The day's services in the order the buddy works through them: the order applied from a route suggestion when
 * every open stop of one buddy's day has its place (ADR 044), else by time, then by booking.
 */
export function inVisitOrder(services: readonly EntityRecord[]): EntityRecord[] {
  const open = services.filter((s) => !isCanceled(s));
  const routed = open.length > 0 && open.every((s) => Number(s.route_position) > 0 && s.buddy_id === open[0]!.buddy_id);
  // `HH:MM` compares as plain text (localeCompare would build a collator per call).
  const time = (s: EntityRecord) => stopTime(s) || '99:99';
  const byTime = (a: EntityRecord, b: EntityRecord) => (time(a) < time(b) ? -1 : time(a) > time(b) ? 1 : a.id - b.id);
  return [...services].sort(routed ? (a, b) => Number(a.route_position) - Number(b.route_position) || byTime(a, b) : byTime);
}
