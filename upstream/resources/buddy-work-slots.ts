import type { EntityRecord } from '../../shared/entity/define.ts';
import { countBookings, lockBuddyDays } from './capacity.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';
import { hasBookings, keyOf, sameKey } from './schedule.ts';

/**
 * A work slot that has bookings cannot move, stop being a working day, go below its bookings or be
 * deleted (ADR 010).
 */
export const handlers: EntityHandlersFactory = () => ({
  hooks: {
    async beforeWrite(input, { tx, current }) {
      const next = keyOf(input, 'buddy_id');
      if (!current) return;
      const previous = keyOf(current, 'buddy_id');
      await lockBuddyDays(tx, [previous, next]);
      const booked = await countBookings(tx, previous.buddyId, previous.date, previous.slotId);
      if (booked > 0 && !sameKey(previous, next)) throw hasBookings('service_slot_id');
      if (booked > 0 && !input.is_working_day) throw hasBookings('is_working_day');
      const day = await countBookings(tx, next.buddyId, next.date, null);
      if (Number(input.max_services_per_day) < day && Number(input.max_services_per_day) < Number(current.max_services_per_day)) {
        throw hasBookings('max_services_per_day', 'validation.maxBelowBookings');
      }
    },
    async beforeDelete(current: EntityRecord, { tx }) {
      const key = keyOf(current, 'buddy_id');
      await lockBuddyDays(tx, [key]);
      if ((await countBookings(tx, key.buddyId, key.date, key.slotId)) > 0) throw hasBookings('service_slot_id');
    },
  },
});
