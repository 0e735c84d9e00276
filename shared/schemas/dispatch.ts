import { z } from 'zod';
import { capacityRefusal, type CapacityRefusal } from '../capacity.ts';
import { isIsoDate } from '../entity/define.ts';

/** The dispatch board of one day (ADR 022). */
export const dispatchBoardInput = z.object({ date: z.string().refine(isIsoDate, { error: 'validation.date' }) });

/**
 * Assigns a service to a buddy's slot on its day (a drop on the board). `version` is the one the board
 * showed: a service changed meanwhile is refused (409 conflict). `book` also moves a Requested service to
 * Booked, and `service_time` sets its time, in the same write.
 */
export const dispatchMoveInput = z.object({
  id: z.number().int().positive(),
  version: z.number().int().positive(),
  buddy_id: z.number().int().positive(),
  service_slot_id: z.number().int().positive(),
  book: z.boolean().default(false),
  /** The time agreed with the customer, set or changed while placing (ADR 044); null clears it, absent keeps it. */
  service_time: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'validation.time' })
    .nullable()
    .optional(),
});

export interface DispatchSlot {
  id: number;
  name: string;
  start_time: string;
  end_time: string;
  max: number;
  is_active: boolean;
}

/** One buddy in one slot that day: the facts ADR 010's rule needs (shared/capacity.ts). */
export interface DispatchCell {
  slot_id: number;
  /** A not-working slot covers it. */
  away: boolean;
  /** The not-working slot's notes, or those of a work slot marked not working. */
  note: string | null;
  /** The buddy has a work slot here; `working` is its working-day flag. */
  scheduled: boolean;
  working: boolean;
  /** Services holding a place here (Requested, Booked, Finished). */
  taken: number;
}

export interface DispatchBuddy {
  id: number;
  name: string;
  /** Tells apart two buddies of the same name. */
  email: string;
  /** The day's limit (the strictest max per day of the working work slots; null: not working that day) and the places held. */
  day_limit: number | null;
  day_taken: number;
  cells: DispatchCell[];
}

export interface DispatchService {
  id: number;
  version: number;
  status: number;
  buddy_id: number;
  buddy_label: string;
  service_slot_id: number;
  service_time: string | null;
  address: string | null;
  bicycle_label: string;
  owner_label: string | null;
  service_type_label: string | null;
  notes: string | null;
}

export interface DispatchBoard {
  date: string;
  slots: DispatchSlot[];
  /** Every active user holding the Buddy role, by name. */
  buddies: DispatchBuddy[];
  /** The day's services that hold a place (Requested, Booked, Finished). */
  services: DispatchService[];
}

/**
 * Would the API take `moving` (or a new service, without it) in this buddy's slot? The board's facts
 * through ADR 010's rule, leaving out the place the moving service already holds, as the API does.
 */
export function cellRefusal(
  board: DispatchBoard,
  buddy: DispatchBuddy,
  cell: DispatchCell,
  moving?: Pick<DispatchService, 'buddy_id' | 'service_slot_id'>,
): CapacityRefusal | null {
  const slot = board.slots.find((s) => s.id === cell.slot_id);
  const sameDay = moving?.buddy_id === buddy.id;
  const sameSlot = sameDay && moving?.service_slot_id === cell.slot_id;
  return capacityRefusal({
    slotActive: Boolean(slot?.is_active),
    slotMax: slot?.max ?? 0,
    away: cell.away,
    work: cell.scheduled ? { isWorkingDay: cell.working } : null,
    dayLimit: buddy.day_limit,
    slotTaken: cell.taken - (sameSlot ? 1 : 0),
    dayTaken: buddy.day_taken - (sameDay ? 1 : 0),
  });
}
