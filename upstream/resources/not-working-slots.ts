import { countBookings, lockBuddyDays } from './capacity.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';
import { hasBookings, keyOf } from './schedule.ts';

/** A buddy cannot be marked as not working where services are booked (ADR 010). */
export const handlers: EntityHandlersFactory = () => ({
  hooks: {
    async beforeWrite(input, { tx }) {
      const next = keyOf(input, 'user_id');
      await lockBuddyDays(tx, [next]);
      if ((await countBookings(tx, next.buddyId, next.date, next.slotId)) > 0) throw hasBookings('service_slot_id');
    },
  },
});
