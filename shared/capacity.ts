/**
 * ADR 010's booking rule as a pure function of what is known about one buddy, slot and day, so the
 * API's check (upstream/resources/capacity.ts) and the dispatch board's capacity (ADR 022) cannot
 * disagree: both gather these facts and ask this function.
 */
export interface SlotDayFacts {
  /** The service slot exists and is active. */
  slotActive: boolean;
  /** The service slot's max services (per buddy). */
  slotMax: number;
  /** A not-working slot covers this buddy, day and slot. */
  away: boolean;
  /** The buddy's work slot for this day and slot, if any. */
  work: { isWorkingDay: boolean } | null;
  /** The smallest max-per-day among the buddy's working work slots that day (null: none). */
  dayLimit: number | null;
  /** Services holding a place (CAPACITY_STATUSES) in this slot, and on the whole day. */
  slotTaken: number;
  dayTaken: number;
}

/** Why a service cannot be booked here, in checking order, or null when it can. */
export type CapacityRefusal = 'slot_inactive' | 'buddy_not_working' | 'buddy_not_scheduled' | 'slot_full' | 'day_full';

export function capacityRefusal(facts: SlotDayFacts): CapacityRefusal | null {
  if (!facts.slotActive) return 'slot_inactive';
  if (facts.away) return 'buddy_not_working';
  if (!facts.work) return 'buddy_not_scheduled';
  if (!facts.work.isWorkingDay) return 'buddy_not_working';
  if (facts.slotTaken >= facts.slotMax) return 'slot_full';
  if (facts.dayLimit === null || facts.dayTaken >= facts.dayLimit) return 'day_full';
  return null;
}

/** A service slot's hours, as the API and the board read them ('08:00' or '08:00:00'). */
export interface SlotHours {
  start_time: string;
  end_time: string;
}

/**
 * Is a service's agreed time outside its slot (issue 33)? A slot covers its start up to, not including, its
 * end, so 12:00 belongs to an afternoon slot starting at 12:00 and not to a morning one ending then. No time
 * (null or '') is never outside. The API refuses such a write; the dispatch board asks before sending one.
 */
export function timeOutsideSlot(time: string | null | undefined, slot: SlotHours): boolean {
  if (!time) return false;
  const at = time.slice(0, 5);
  return at < slot.start_time.slice(0, 5) || at >= slot.end_time.slice(0, 5);
}
