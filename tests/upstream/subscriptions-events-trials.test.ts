import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proRataRefund, todayUtc } from '../../upstream/lib/refund.ts';
import { startUpstream } from '../../upstream/start.ts';
import { upstreamCall } from '../support/upstream-call.ts';
import { testLogger } from '../support/run-log.ts';

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };

const PASSWORD = 'rules-password-1';
let up: Upstream;
let admin = '';
let buddy = '';

const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => upstreamCall<Body>(up.url, path, init);
const asAdmin = (path: string, init: { method?: string; body?: unknown } = {}) => call(path, { ...init, token: admin });

async function login(email: string, password = PASSWORD): Promise<string> {
  const res = await call('account/login', { body: { email, password } });
  expect(res.body.error).toBeNull();
  return res.body.data.token;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * A subscription in a given state, written as the consumer app would (the back office cannot create them).
 * An active one has paid its period unless `paid` says otherwise: the payment provider records it.
 */
async function subscription(
  status: string,
  periodStart: string,
  periodEnd: string,
  amount = 199,
  currency = 'sek',
  cancelAtPeriodEnd = false,
  paid = status === 'active',
): Promise<number> {
  const { rows } = await up.db.query<{ id: number }>(
    `insert into subscriptions (plan_id, user_id, status, current_period_start, current_period_end, amount, currency, cancel_at_period_end)
     values (1, (select id from users where email = 'user@example.com'), $1, $2, $3, $4, $5, $6) returning id`,
    [status, periodStart, periodEnd, amount, currency, cancelAtPeriodEnd],
  );
  const id = Number(rows[0]!.id);
  if (paid) await payment(id);
  return id;
}

/** The provider's record that the subscription's current period was paid, at its current amount. */
async function payment(id: number) {
  await up.db.query(
    `insert into subscription_payments (subscription_id, period_start, period_end, amount_minor, currency, source)
     select id, current_period_start, current_period_end, (amount * 100)::bigint, currency, 'provider' from subscriptions where id = $1`,
    [id],
  );
}

const refundsOf = async (id: number) =>
  (await up.db.query<{ amount_minor: number }>('select amount_minor from subscription_refunds where subscription_id = $1', [id])).rows.map((r) => Number(r.amount_minor));

beforeAll(async () => {
  up = await startUpstream({
    port: 0,
    demoPassword: PASSWORD,
    logger: testLogger('upstream-rules'),
    config: { scryptCost: 1024, appUrl: 'http://backoffice.test', logMailLinks: false },
  });
  [admin, buddy] = await Promise.all([login('admin@example.com'), login('buddy@example.com')]);
});
afterAll(async () => {
  await up?.close();
});

describe('subscriptions: activate and cancel (ADR 012)', () => {
  it('cancels an active subscription at once and refunds the unused days in the subscription currency', async () => {
    const start = day(-9);
    const end = day(21);
    const id = await subscription('active', start, end, 380, 'gbp');
    const res = await asAdmin(`subscriptions/${id}/cancel/`, { body: {} });
    expect(res.status).toBe(200);
    const expected = proRataRefund({ amountMinor: 38_000, periodStart: start, periodEnd: end, today: todayUtc() })!;
    expect(expected.unusedDays).toBe(20);
    expect(res.body.data.refund).toEqual({ amount: expected.amountMinor / 100, amount_minor: expected.amountMinor, currency: 'gbp', unused_days: 20, period_days: 30 });
    expect(res.body.data.subscription).toMatchObject({ id, status: 'canceled', cancel_at_period_end: false, canceled_at: expect.any(String), version: 2 });
    const { rows } = await up.db.query<{ amount_minor: number; currency: string }>('select amount_minor, currency from subscription_refunds where subscription_id = $1', [id]);
    expect(rows.map((r) => ({ ...r, amount_minor: Number(r.amount_minor) }))).toEqual([{ amount_minor: expected.amountMinor, currency: 'gbp' }]);

    // Cancelling again changes nothing and refunds nothing: it answers the subscription as it is.
    const again = await asAdmin(`subscriptions/${id}/cancel/`, { body: {} });
    expect(again).toMatchObject({ status: 200, body: { data: { subscription: { id, status: 'canceled', version: 2 }, refund: null, changed: false } } });
    expect(await refundsOf(id)).toEqual([expected.amountMinor]);
  });

  it('refunds nothing, however often, for periods nobody paid: activate → cancel → activate → cancel… (issue 12 H2)', async () => {
    // The reported attack: an incomplete subscription (nothing paid) activated and cancelled over and over.
    const id = await subscription('incomplete', day(0), day(30));
    for (let round = 0; round < 4; round++) {
      const activated = await asAdmin(`subscriptions/${id}/activate/`, { body: {} });
      expect(activated).toMatchObject({ status: 200, body: { data: { subscription: { status: 'active' }, refund: null, changed: true } } });
      const canceled = await asAdmin(`subscriptions/${id}/cancel/`, { body: {} });
      expect(canceled).toMatchObject({ status: 200, body: { data: { subscription: { status: 'canceled' }, refund: null, changed: true } } });
    }
    expect(await refundsOf(id)).toEqual([]);
    // Activating an active subscription is a no-op too, and no 409: the answer is the current state.
    await asAdmin(`subscriptions/${id}/activate/`, { body: {} });
    const version = (await asAdmin(`subscriptions/${id}/`)).body.data.version;
    expect(await asAdmin(`subscriptions/${id}/activate/`, { body: {} })).toMatchObject({
      status: 200,
      body: { data: { subscription: { status: 'active', version }, changed: false } },
    });
  });

  it('refunds a paid period once, and reactivating it does not make it refundable again (issue 12 H2)', async () => {
    const start = day(-5);
    const end = day(25);
    const id = await subscription('active', start, end, 300);
    const expected = proRataRefund({ amountMinor: 30_000, periodStart: start, periodEnd: end, today: todayUtc() })!;
    expect((await asAdmin(`subscriptions/${id}/cancel/`, { body: {} })).body.data.refund.amount_minor).toBe(expected.amountMinor);
    for (let round = 0; round < 3; round++) {
      expect((await asAdmin(`subscriptions/${id}/activate/`, { body: {} })).body.data.subscription.status).toBe('active');
      expect((await asAdmin(`subscriptions/${id}/cancel/`, { body: {} })).body.data.refund).toBeNull();
    }
    expect(await refundsOf(id)).toEqual([expected.amountMinor]);

    // A period that starts today and was paid: cancelled, reactivated the same day (the same period again), cancelled.
    const today = await subscription('active', day(0), day(30), 300);
    const first = (await asAdmin(`subscriptions/${today}/cancel/`, { body: {} })).body.data.refund.amount_minor;
    const back = await asAdmin(`subscriptions/${today}/activate/`, { body: {} });
    expect(back.body.data.subscription).toMatchObject({ current_period_start: day(0) });
    await up.db.query('update subscriptions set current_period_end = $2 where id = $1', [today, day(30)]);
    expect((await asAdmin(`subscriptions/${today}/cancel/`, { body: {} })).body.data.refund).toBeNull();
    expect(await refundsOf(today)).toEqual([first]);
  });

  it('refunds a paid period once when cancel is sent many times at once (issue 12 H2)', async () => {
    const id = await subscription('active', day(-2), day(28), 450);
    const answers = await Promise.all(Array.from({ length: 8 }, () => asAdmin(`subscriptions/${id}/cancel/`, { body: {} })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((a) => a.body.data.refund !== null)).toHaveLength(1);
    expect(answers.filter((a) => a.body.data.changed)).toHaveLength(1);
    expect(await refundsOf(id)).toHaveLength(1);
  });

  it('never refunds more than was paid, nor anything unpaid, whatever sequence of actions (property, issue 12 H2)', async () => {
    const action = fc.constantFrom('activate', 'cancel', 'cancel-at-end');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('incomplete', 'trialing', 'active', 'past_due', 'canceled'),
        fc.boolean(),
        fc.integer({ min: -40, max: 5 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(action, { minLength: 1, maxLength: 8 }),
        async (status, paid, startOffset, length, actions) => {
          const id = await subscription(status, day(startOffset), day(startOffset + length), 250, 'sek', false, paid);
          for (const a of actions) {
            const res = await asAdmin(`subscriptions/${id}/${a === 'activate' ? 'activate' : 'cancel'}/`, { body: a === 'cancel-at-end' ? { at_period_end: true } : {} });
            expect(res.status === 200 || (res.status === 409 && res.body.error.message === 'invalid_state')).toBe(true);
          }
          const refunds = await refundsOf(id);
          const total = refunds.reduce((sum, r) => sum + r, 0);
          expect(total).toBeGreaterThanOrEqual(0);
          expect(total).toBeLessThanOrEqual(paid ? 25_000 : 0);
          expect(refunds.length).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lists the refunds of a subscription with who cancelled (issue 13)', async () => {
    const id = await subscription('active', day(-3), day(27), 120, 'gbp');
    expect((await asAdmin(`subscriptions/${id}/refunds/`)).body.data).toEqual({ results: [] });
    const refund = (await asAdmin(`subscriptions/${id}/cancel/`, { body: {} })).body.data.refund;
    const listed = await asAdmin(`subscriptions/${id}/refunds/`);
    expect(listed.body.data.results).toEqual([
      { id: expect.any(Number), payment_id: expect.any(Number), ...refund, created_at: expect.any(String), created_by: expect.any(Number), created_by_label: 'Ada Admin' },
    ]);
    expect((await asAdmin('subscriptions/999999/refunds/')).status).toBe(404);
    expect((await call(`subscriptions/${id}/refunds/`, { token: buddy })).status).toBe(403);
  });

  it('refunds nothing for a trial, a past-due period, or a cancellation at the end of the period', async () => {
    for (const status of ['trialing', 'past_due', 'incomplete']) {
      const id = await subscription(status, day(-3), day(11));
      expect((await asAdmin(`subscriptions/${id}/cancel/`, { body: {} })).body.data).toMatchObject({ subscription: { status: 'canceled' }, refund: null });
    }
    const id = await subscription('active', day(-3), day(27));
    const atEnd = await asAdmin(`subscriptions/${id}/cancel/`, { body: { at_period_end: true } });
    expect(atEnd.body.data).toMatchObject({ subscription: { status: 'active', cancel_at_period_end: true }, refund: null });
    // Activating again takes the cancellation back, period unchanged.
    const resumed = await asAdmin(`subscriptions/${id}/activate/`, { body: {} });
    expect(resumed.body.data.subscription).toMatchObject({ status: 'active', cancel_at_period_end: false, current_period_start: day(-3), current_period_end: day(27) });
  });

  it('activates by the rules of each status', async () => {
    const trial = await subscription('trialing', day(-5), day(9), 199);
    const activated = await asAdmin(`subscriptions/${trial}/activate/`, { body: {} });
    expect(activated.body.data.subscription).toMatchObject({ status: 'active', current_period_start: todayUtc() });
    expect(activated.body.data.subscription.current_period_end > todayUtc()).toBe(true);
    // Already active: nothing to do, and nothing is refused either.
    expect(await asAdmin(`subscriptions/${trial}/activate/`, { body: {} })).toMatchObject({ status: 200, body: { data: { subscription: { status: 'active' }, changed: false } } });

    const pastDue = await subscription('past_due', day(-40), day(-10));
    expect((await asAdmin(`subscriptions/${pastDue}/activate/`, { body: {} })).body.data.subscription).toMatchObject({ status: 'active', current_period_start: day(-40) });

    // Coming back after a cancellation: a new period from today at the plan's current price (plan 1: 199 kr / £17).
    const canceled = await subscription('canceled', day(-60), day(-30), 99, 'gbp');
    const back = await asAdmin(`subscriptions/${canceled}/activate/`, { body: {} });
    expect(back.body.data.subscription).toMatchObject({ status: 'active', amount: 17, currency: 'gbp', canceled_at: null, current_period_start: todayUtc() });
  });

  it('answers 404 for an unknown subscription and leaves the actions to admins', async () => {
    expect((await asAdmin('subscriptions/999999/cancel/', { body: {} })).status).toBe(404);
    const id = await subscription('active', day(-1), day(29));
    expect((await call(`subscriptions/${id}/cancel/`, { body: {}, token: buddy })).status).toBe(403);
    expect((await call(`subscriptions/${id}/activate/`, { body: {} })).status).toBe(401);
  });

  it('keeps statuses and periods valid in the database itself', async () => {
    await expect(subscription('paused', day(0), day(30))).rejects.toThrow(/subscriptions_status_check/);
    await expect(subscription('active', day(0), day(-1))).rejects.toThrow(/subscriptions_period_check/);
  });

  it('shows an active plan to anyone, in both languages and currencies', async () => {
    const plan = await call('public/subscription-plans/FAMILY/');
    expect(plan.body.data).toEqual({
      slug: 'family',
      name_en: 'Family',
      name_sv: 'Familj',
      description_en: expect.any(String),
      description_sv: expect.any(String),
      frequency: 'monthly',
      price_sek: 499,
      price_gbp: 42,
      bicycles: 4,
    });
    await up.db.query("update subscription_plans set is_active = false where slug = 'business'");
    expect((await call('public/subscription-plans/business/')).status).toBe(404);
  });
});

describe('events: §5 date rules', () => {
  const event = (start: string, end: string) => ({
    name: 'Rules day',
    business: 'Nordic Bikes AB',
    location: 'Stockholm',
    contact_person: 'Karin',
    contact_phone: '+46 8 1',
    start_date: start,
    end_date: end,
    status: 1,
  });

  it("refuses an end date before the start date with 'End date cannot be earlier than the start date.'", async () => {
    const bad = await asAdmin('events/', { body: event('2026-05-10', '2026-05-09') });
    expect(bad).toMatchObject({ status: 400, body: { error: { message: 'validation_error', fields: { end_date: 'validation.endBeforeStart' } } } });
    const required = await asAdmin('events/', { body: { name: '' } });
    expect(Object.keys(required.body.error.fields).sort()).toEqual(['business', 'contact_person', 'contact_phone', 'end_date', 'location', 'name', 'start_date', 'status'].sort());
    // A one-day event is fine; the database refuses the reverse even from hand-written SQL.
    expect((await asAdmin('events/', { body: event('2026-05-10', '2026-05-10') })).status).toBe(201);
    await expect(
      up.db.query(
        `insert into events (name, business, location, contact_person, contact_phone, start_date, end_date) values ('x', 'x', 'x', 'x', 'x', '2026-05-10', '2026-05-01')`,
      ),
    ).rejects.toThrow(/events_dates_check/);
  });

  it('keeps slots within their event, and removes them with it', async () => {
    const created = (await asAdmin('events/', { body: event('2026-06-01', '2026-06-03') })).body.data;
    const slot = { event_id: created.id, date: '2026-06-02', start_time: '09:00', end_time: '12:00', capacity: 5 };
    expect(await asAdmin('event-slots/', { body: { ...slot, date: '2026-06-04' } })).toMatchObject({
      status: 400,
      body: { error: { fields: { date: 'validation.slotOutsideEvent' } } },
    });
    expect(await asAdmin('event-slots/', { body: { ...slot, start_time: '13:00' } })).toMatchObject({
      status: 400,
      body: { error: { fields: { start_time: 'validation.startAfterEnd' } } },
    });
    const saved = (await asAdmin('event-slots/', { body: slot })).body.data;
    expect(await asAdmin(`event-slots/${saved.id}/`, { method: 'PUT', body: { ...slot, date: '2026-05-31', version: 1 } })).toMatchObject({
      status: 400,
      body: { error: { fields: { date: 'validation.slotOutsideEvent' } } },
    });
    expect((await asAdmin(`event-slots/?event_id=${created.id}`)).body.data.results.map((s: { id: number }) => s.id)).toEqual([saved.id]);
    expect((await asAdmin(`events/${created.id}/`, { method: 'DELETE' })).status).toBe(200);
    expect((await asAdmin(`event-slots/${saved.id}/`)).status).toBe(404);
  });

  it('refuses deleting an event that has bookings', async () => {
    expect(await asAdmin('events/1/', { method: 'DELETE' })).toMatchObject({ status: 409, body: { error: { message: 'in_use' } } });
  });

  it('lists bookings by event, company and date range, with the event status looked up', async () => {
    const all = (await asAdmin('event-bookings/?page_size=100')).body.data.results as { event_id: number; date: string; event_status: number; company_id: number }[];
    expect(all.length).toBeGreaterThanOrEqual(12);
    const { rows } = await up.db.query<{ id: number; status: number }>('select id, status from events');
    const status = new Map(rows.map((r) => [Number(r.id), Number(r.status)]));
    for (const b of all) expect(b.event_status).toBe(status.get(b.event_id));
    const from = day(-2);
    const to = day(0);
    const ranged = (await asAdmin(`event-bookings/?date_from=${from}&date_to=${to}&event_id=1&company_id=1&page_size=100`)).body.data.results as typeof all;
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged).toEqual(all.filter((b) => b.event_id === 1 && b.company_id === 1 && b.date >= from && b.date <= to));
    expect(await asAdmin('event-bookings/?date_from=yesterday')).toMatchObject({ status: 400, body: { error: { fields: { date_from: 'validation.date' } } } });
  });
});

describe('trial-group invitations (ADR 014)', () => {
  const invite = (group: number, emails: string, token = admin) => call(`trial-groups/${group}/invites/`, { body: { emails }, token });
  const stats = async (group: number) => (await asAdmin(`trial-groups/${group}/statistics/`)).body.data;
  const inviteOf = async (group: number, email: string) =>
    ((await asAdmin(`trial-groups/${group}/invites/`)).body.data as { email: string; status: string; registered_at: string | null; sent_count: number }[]).find(
      (i) => i.email === email,
    );
  async function linkOf(email: string) {
    const { rows } = await up.db.query<{ link: string; subject: string }>(
      "select link, subject from outbox where lower(to_email) = lower($1) and kind = 'invite' order by id desc limit 1",
      [email],
    );
    return rows[0]!;
  }
  const accept = (link: string) => call('account/accept-invite', { body: { token: link.split('/').pop(), password: 'trial-pass', password_confirm: 'trial-pass' } });

  it('invites a new person through the account invitation: invited, then registered on acceptance', async () => {
    const before = await stats(2);
    const res = await invite(2, 'new.trialist@example.org');
    expect(res.body.data.results).toEqual([{ email: 'new.trialist@example.org', success: true, status: 'invited' }]);
    expect(await stats(2)).toEqual({ ...before, invited: before.invited + 1, pending: before.pending + 1 });
    expect(await inviteOf(2, 'new.trialist@example.org')).toMatchObject({ status: 'invited', registered_at: null, sent_count: 1 });
    const mail = await linkOf('new.trialist@example.org');
    expect(mail.subject).toBe('You are invited to Bike Buddy: Green Commute trial');

    expect((await accept(mail.link)).status).toBe(200);
    expect(await inviteOf(2, 'new.trialist@example.org')).toMatchObject({ status: 'registered', registered_at: expect.any(String) });
    expect(await stats(2)).toEqual({ invited: before.invited + 1, registered: before.registered + 1, pending: before.pending, members: before.members + 1 });
    expect(((await asAdmin('trial-groups/2/users/')).body.data as { email: string }[]).map((m) => m.email)).toContain('new.trialist@example.org');
  });

  it('registers someone who already has an account at once, and re-sends to someone still pending', async () => {
    const res = await invite(2, 'admin@example.com, erik.pilot@nordicbikes.example, not-an-address');
    expect(res.body.data.results).toEqual([
      { email: 'admin@example.com', success: true, status: 'registered' },
      { email: 'erik.pilot@nordicbikes.example', success: true, status: 'invited' },
      { email: 'not-an-address', success: false, error: { message: 'validation_error', cause: 'Provided value is not Email.' } },
    ]);
    expect(await inviteOf(2, 'admin@example.com')).toMatchObject({ status: 'registered' });
    // erik was invited to group 1 by the seed; the fresh link registers him in both groups.
    const { link } = await linkOf('erik.pilot@nordicbikes.example');
    expect((await accept(link)).status).toBe(200);
    expect(await inviteOf(1, 'erik.pilot@nordicbikes.example')).toMatchObject({ status: 'registered' });
    expect(await inviteOf(2, 'erik.pilot@nordicbikes.example')).toMatchObject({ status: 'registered' });
  });

  it('bulk reinvite sends a fresh link to everyone not registered; the old links stop working', async () => {
    const email = 'lina.pilot@nordicbikes.example';
    await invite(1, email);
    const old = await linkOf(email);
    const pending = (await stats(1)).pending;
    expect(pending).toBeGreaterThan(0);
    expect((await asAdmin('trial-groups/1/reinvite/', { body: {} })).body.data).toEqual({ reinvited: pending });
    const fresh = await linkOf(email);
    expect(fresh.link).not.toBe(old.link);
    expect(await inviteOf(1, email)).toMatchObject({ status: 'invited', sent_count: 3 });
    expect((await accept(old.link)).body.error.message).toBe('token_does_not_exist');
    expect((await accept(fresh.link)).status).toBe(200);
    expect((await asAdmin('trial-groups/1/reinvite/', { body: {} })).body.data).toEqual({ reinvited: pending - 1 });
  });

  it('adds and removes existing users, and keeps all of it for admins', async () => {
    const { rows } = await up.db.query<{ id: number }>("select id from users where email = 'shop@example.com'");
    const userId = Number(rows[0]!.id);
    const added = await asAdmin('trial-groups/2/users/', { body: { user_id: userId } });
    expect((added.body.data as { user_id: number }[]).some((m) => m.user_id === userId)).toBe(true);
    expect((await asAdmin(`trial-groups/2/users/${userId}/`, { method: 'DELETE' })).status).toBe(200);
    expect((await asAdmin(`trial-groups/2/users/${userId}/`, { method: 'DELETE' })).status).toBe(404);
    expect(await asAdmin('trial-groups/2/users/', { body: { user_id: 9_999_999 } })).toMatchObject({ status: 400, body: { error: { fields: { user_id: 'validation.option' } } } });
    expect((await invite(2, 'someone@example.org', buddy)).status).toBe(403);
    expect((await invite(99_999, 'someone@example.org')).status).toBe(404);
    expect((await invite(2, ' , ')).body.error.fields).toEqual({ emails: 'validation.required' });
  });
});
