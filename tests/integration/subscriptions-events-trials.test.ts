import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, mutate, query, signIn, type Agent, exportCsv as exportCsvOf } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let admin: Agent;
let buddy: Agent;
let shop: Agent;
beforeAll(async () => {
  stack = await startStack();
  [admin, buddy, shop] = [agent(stack), agent(stack), agent(stack)];
  await Promise.all([signIn(admin, 'admin@example.com', DEMO_PASSWORD), signIn(buddy, 'buddy@example.com', DEMO_PASSWORD), signIn(shop, 'shop@example.com', DEMO_PASSWORD)]);
});
afterAll(async () => stack?.close());

const data = (res: { body: { result: { data: any } } }) => res.body.result.data;

describe('subscriptions through the back office', () => {
  it("lists one user's subscriptions and cancels one with its refund", async () => {
    const userId = Number((await stack.upstream.db.query<{ id: number }>("select id from users where email = 'user@example.com'")).rows[0]!.id);
    const list = data(await query(admin, 'subscriptions.list', { filters: { user_id: String(userId) } }));
    expect(list.results).toHaveLength(1);
    const sub = list.results[0];
    expect(sub).toMatchObject({ user_id: userId, user_id_label: 'user@example.com', plan_id_label: 'Single bike', frequency: 'monthly', status: 'active', currency: 'sek' });

    const canceled = await mutate(admin, 'subscriptions.cancel', { id: sub.id });
    expect(canceled.status).toBe(200);
    expect(data(canceled)).toMatchObject({
      subscription: { id: sub.id, status: 'canceled' },
      refund: { currency: 'sek', amount: expect.any(Number), unused_days: expect.any(Number) },
    });
    expect(data(canceled).refund.amount).toBeGreaterThan(0);
    expect(data(canceled).refund.amount).toBeLessThan(199);

    // Idempotent (issue 12 H2): cancelling again answers the canceled subscription and refunds nothing.
    const again = await mutate(admin, 'subscriptions.cancel', { id: sub.id });
    expect(again.status).toBe(200);
    expect(data(again)).toMatchObject({ subscription: { status: 'canceled' }, refund: null, changed: false });
    const activated = await mutate(admin, 'subscriptions.activate', { id: sub.id });
    expect(data(activated)).toMatchObject({ subscription: { status: 'active' }, refund: null, changed: true });
    // The reactivated period was never paid: cancelling it gives nothing back.
    expect(data(await mutate(admin, 'subscriptions.cancel', { id: sub.id }))).toMatchObject({ subscription: { status: 'canceled' }, refund: null, changed: true });

    // Issue 13: the refunds are listed under the subscription.
    const refunds = data(await query(admin, 'subscriptions.refunds.list', { id: sub.id }));
    expect(refunds).toEqual([expect.objectContaining({ amount: data(canceled).refund.amount, currency: 'sek', created_by_label: 'Ada Admin' })]);
    for (const client of [shop, buddy]) expect((await query(client, 'subscriptions.refunds.list', { id: sub.id })).status).toBe(403);
  });

  it('cancels at the period end and takes that back by activating (issue 13)', async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>("select id from subscriptions where status = 'trialing' and not cancel_at_period_end order by id limit 1");
    const id = Number(rows[0]!.id);
    const flagged = await mutate(admin, 'subscriptions.cancel', { id, at_period_end: true });
    expect(data(flagged)).toMatchObject({ subscription: { id, status: 'trialing', cancel_at_period_end: true }, refund: null, changed: true });
    expect(data(await mutate(admin, 'subscriptions.cancel', { id, at_period_end: true }))).toMatchObject({ changed: false });
    expect(data(await query(admin, 'subscriptions.list', { filters: { cancel_at_period_end: 'true' } })).results.map((r: { id: number }) => r.id)).toContain(id);
  });

  it('keeps subscriptions and plans to admins: a BuddyShop sees the users list but not these', async () => {
    expect((await query(shop, 'users.list', {})).status).toBe(200);
    for (const client of [shop, buddy]) {
      expect((await query(client, 'subscriptions.list', {})).status).toBe(403);
      expect((await query(client, 'subscriptionPlans.list', {})).status).toBe(403);
      expect((await mutate(client, 'subscriptions.cancel', { id: 1 })).status).toBe(403);
    }
    // The tabs are Admin-only: a BuddyShop asking for one gets the users list.
    const page = await shop.get('/users?tab=subscriptions');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('data-testid="list-subscriptions"');
  });

  it('renders the subscriptions tab on the server from the URL', async () => {
    const page = await admin.get('/users?tab=subscriptions&f_status=past_due');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="list-subscriptions"');
    expect(page.text).toContain('klara.carlsson6@example.com');
    expect(page.text).not.toContain('alva.andersson0@example.com');
  });

  it('shows a public plan without signing in, in the language of the link', async () => {
    const anonymous = agent(stack);
    const plan = data(await query(anonymous, 'subscriptionPlans.public', { slug: 'family' }));
    expect(plan).toMatchObject({ name_en: 'Family', name_sv: 'Familj', price_sek: 499, price_gbp: 42 });
    expect((await query(anonymous, 'subscriptionPlans.public', { slug: 'nope' })).status).toBe(404);
    const sv = await anonymous.get('/subscriptions/family/sv');
    expect(sv.text).toContain('Abonnemang: Familj');
    expect(sv.text).toContain('499,00 kr per månad');
    const en = await anonymous.get('/subscriptions/family/en');
    expect(en.text).toContain('Subscription: Family');
    expect(en.text).toContain('£42.00 per month');
  });
});

describe('events and bookings through the back office', () => {
  const exportCsv = (client: Agent, qs = '') => exportCsvOf(client, 'events', qs);

  it('refuses an end date before the start date on the server too', async () => {
    const res = await mutate(admin, 'events.create', {
      name: 'Backwards',
      business: 'B',
      location: 'L',
      contact_person: 'P',
      contact_phone: '+46 1',
      start_date: '2026-09-02',
      end_date: '2026-09-01',
      status: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fieldErrors).toEqual({ end_date: 'validation.endBeforeStart' });
  });

  it('exports events as CSV with the list filters, formulas neutralised', async () => {
    const created = await mutate(admin, 'events.create', {
      name: '=cmd|calc',
      business: '+Evil Ltd',
      location: 'Somewhere, "quoted"',
      contact_person: 'P',
      contact_phone: '+46 1',
      start_date: '2026-09-01',
      end_date: '2026-09-02',
      status: 3,
    });
    expect(created.status).toBe(200);
    const res = await exportCsv(admin, '?status=3');
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="events-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (res.body as string).split('\r\n').filter(Boolean);
    expect(lines[0]!.startsWith('id,name,business,location,contact_person,contact_phone,start_date,end_date,status,')).toBe(true);
    const total = data(await query(admin, 'events.list', { filters: { status: '3' } })).paginator.count;
    expect(lines.length - 1).toBe(total);
    expect(res.body).toContain(`'=cmd|calc,'+Evil Ltd,"Somewhere, ""quoted"""`);
    expect((await buddy.get('/export/events.csv').set('x-backoffice-csrf', '1')).status).toBe(403);
    expect((await admin.get('/export/event-bookings.csv').set('x-backoffice-csrf', '1')).status).toBe(404);
  });

  it('filters bookings by a date range and offers no writes', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = data(await query(admin, 'eventBookings.list', { filters: { date_from: today, date_to: today }, page_size: 100 }));
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((b: { date: string }) => b.date === today)).toBe(true);
    expect((await query(admin, 'eventBookings.list', { filters: { date_from: 'soon' } })).status).toBe(400);
    expect((await mutate(admin, 'eventBookings.create', {})).status).toBe(404);
  });
});

describe('trial groups through the back office', () => {
  it('invites by e-mail and counts the invitation in the statistics', async () => {
    const before = data(await query(admin, 'trialGroups.statistics', { id: 2 }));
    // The action answers as the API does (ADR 032): `{results}`, one per address.
    const { results } = data(await mutate(admin, 'trialGroups.invite', { id: 2, emails: 'tg.one@example.org, tg.two@example.org' }));
    expect(results).toEqual([
      { email: 'tg.one@example.org', success: true, status: 'invited' },
      { email: 'tg.two@example.org', success: true, status: 'invited' },
    ]);
    expect(data(await query(admin, 'trialGroups.statistics', { id: 2 }))).toMatchObject({ invited: before.invited + 2, pending: before.pending + 2 });
    const bad = await mutate(admin, 'trialGroups.invite', { id: 2, emails: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.data.fieldErrors).toEqual({ emails: 'validation.required' });
    expect((await mutate(buddy, 'trialGroups.invite', { id: 2, emails: 'x@example.org' })).status).toBe(403);
  });
});
