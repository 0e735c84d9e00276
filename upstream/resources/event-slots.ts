import type { Db } from '../db.ts';
import { ApiError } from '../lib/api-error.ts';
import type { EntityHandlersFactory } from './entity-actions.ts';

/** Event slots: a slot lies within its event's dates. */
export const handlers: EntityHandlersFactory = () => {
  async function slotWithinEvent(input: Record<string, unknown>, tx: Db) {
    // `for share`: the event's dates cannot change until the slot is written.
    const { rows } = await tx.query<{ start_date: string; end_date: string }>(
      `select to_char(start_date, 'YYYY-MM-DD') as start_date, to_char(end_date, 'YYYY-MM-DD') as end_date from events where id = $1 for share`,
      [input.event_id],
    );
    const event = rows[0];
    if (!event) throw new ApiError(400, 'validation_error', undefined, { event_id: 'validation.option' });
    const date = String(input.date);
    if (date < event.start_date || date > event.end_date) throw new ApiError(400, 'validation_error', undefined, { date: 'validation.slotOutsideEvent' });
  }
  return { hooks: { beforeCreate: slotWithinEvent, beforeUpdate: (_id, input, tx) => slotWithinEvent(input, tx) } };
};
