import type { FastifyInstance } from 'fastify';
import { buddyWorkSlotsEntity } from '../../shared/entities/buddy-work-slots.ts';
import { notWorkingSlotsEntity } from '../../shared/entities/not-working-slots.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';
import { countBookings, lockBuddyDays } from './capacity.ts';
import { registerEntityResource } from './entity-resource.ts';

interface SlotKey {
  buddyId: number;
  date: string;
  slotId: number;
}

const keyOf = (record: Record<string, unknown>, owner: string): SlotKey => ({ buddyId: Number(record[owner]), date: String(record.service_date), slotId: Number(record.service_slot_id) });
const sameKey = (a: SlotKey, b: SlotKey) => a.buddyId === b.buddyId && a.date === b.date && a.slotId === b.slotId;
const hasBookings = (field: string, message = 'validation.hasBookings') => new ApiError(409, 'has_bookings', undefined, { [field]: message });

/**
 * The scheduler's two entities with the rules that keep booked services valid (ADR 010): a work slot
 * that has bookings cannot move, stop being a working day, go below its bookings or be deleted, and a
 * buddy cannot be marked as not working where services are booked.
 */
export function registerSchedule(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  registerEntityResource(app, db, config, buddyWorkSlotsEntity, {
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
  });

  registerEntityResource(app, db, config, notWorkingSlotsEntity, {
    async beforeWrite(input, { tx }) {
      const next = keyOf(input, 'user_id');
      await lockBuddyDays(tx, [next]);
      if ((await countBookings(tx, next.buddyId, next.date, next.slotId)) > 0) throw hasBookings('service_slot_id');
    },
  });
}
