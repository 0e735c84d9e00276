/** The scheduler's keys (buddy, day, slot) and refusal, shared by work slots and not-working slots (ADR 010). */
import { ApiError } from '../lib/api-error.ts';

export interface SlotKey {
  buddyId: number;
  date: string;
  slotId: number;
}

export const keyOf = (record: Record<string, unknown>, owner: string): SlotKey => ({
  buddyId: Number(record[owner]),
  date: String(record.service_date),
  slotId: Number(record.service_slot_id),
});
export const sameKey = (a: SlotKey, b: SlotKey) => a.buddyId === b.buddyId && a.date === b.date && a.slotId === b.slotId;
export const hasBookings = (field: string, message = 'validation.hasBookings') => new ApiError(409, 'has_bookings', undefined, { [field]: message });
