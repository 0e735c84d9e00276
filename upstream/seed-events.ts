import type { Db } from './db.ts';
import { SERVICE_STATUS } from '../shared/entities/services.ts';
import { proRataRefund } from './lib/refund.ts';

/**
 * Demo subscriptions, events and trial groups (called by seedDemo inside its transaction): plans,
 * a subscription in every status, events in every status with slots and bookings, and trial groups
 * with invited and registered people. Dates are relative to the day of seeding.
 */
const day = (offset: number) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
};
const addMonths = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
};

/** The n-th ordinary seeded user's id (first.last<n>@example.com, not the demo logins). */
const userSql = (n: number) => `(select id from users where email like '%.%@example.com' order by id offset ${n} limit 1)`;

export async function seedSubscriptions(tx: Db) {
  const plans = [
    ['single', 'Single bike', 'En cykel', 'Regular maintenance of one bicycle at your door.', 'Regelbundet underhåll av en cykel vid din dörr.', 'monthly', 199, 17, 1],
    ['family', 'Family', 'Familj', 'Up to four bicycles in one household.', 'Upp till fyra cyklar i samma hushåll.', 'monthly', 499, 42, 4],
    ['single-yearly', 'Single bike, yearly', 'En cykel, årsvis', 'One bicycle, paid once a year.', 'En cykel, betalas en gång om året.', 'yearly', 1990, 169, 1],
    [
      'business',
      'Business fleet',
      'Företagsflotta',
      'Maintenance of a company fleet of up to ten bicycles.',
      'Underhåll av företagets cykelflotta, upp till tio cyklar.',
      'quarterly',
      4500,
      380,
      10,
    ],
  ] as const;
  for (const p of plans) {
    await tx.query(
      'insert into subscription_plans (slug, name_en, name_sv, description_en, description_sv, frequency, price_sek, price_gbp, bicycles) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [...p],
    );
  }
  const months: Record<string, number> = { monthly: 1, quarterly: 3, yearly: 12 };
  // [user, plan id, status, period start offset, currency, amount, promo code id, cancel at period end, company id]
  const subscriptions: [number, number, string, number, 'sek' | 'gbp', number, number | null, boolean, number | null][] = [
    [0, 1, 'active', -10, 'sek', 199, null, false, null],
    [1, 2, 'active', -3, 'sek', 399.2, 1, false, null],
    [3, 3, 'active', -40, 'gbp', 169, null, false, null],
    [4, 1, 'trialing', -3, 'sek', 199, 2, false, null],
    [6, 1, 'past_due', -35, 'sek', 199, null, false, null],
    [7, 2, 'canceled', -50, 'sek', 499, null, false, null],
    [8, 1, 'incomplete', 0, 'gbp', 17, null, false, null],
    [9, 1, 'active', -20, 'sek', 199, null, true, null],
    [10, 4, 'active', -30, 'sek', 4500, null, false, 1],
    [12, 4, 'active', -5, 'gbp', 380, null, false, 3],
    [13, 1, 'trialing', -1, 'gbp', 17, null, false, null],
    [14, 2, 'active', -12, 'sek', 499, null, false, null],
  ];
  const frequency = ['monthly', 'monthly', 'yearly', 'quarterly'];
  for (const [user, plan, status, offset, currency, amount, promo, atEnd, company] of subscriptions) {
    const start = day(offset);
    const end = status === 'trialing' ? day(offset + 14) : addMonths(start, months[frequency[plan - 1]!]!);
    const bicycles = plan === 2 ? 3 : plan === 4 ? 8 : 1;
    // The canceled one was cancelled ten days into a paid period, and refunded for the rest.
    const canceledAt = status === 'canceled' ? day(offset + 10) : null;
    const { rows } = await tx.query<{ id: number }>(
      `insert into subscriptions (plan_id, current_period_start, current_period_end, cancel_at_period_end, status, promo_code_id, user_id, currency, amount, bicycles, company_id, canceled_at, created_at)
       values ($1, $2, $3, $4, $5, $6, ${userSql(user)}, $7, $8, $9, $10, $11, $2::date - 30 + time '09:00') returning id`,
      [plan, start, end, atEnd, status, promo, currency, amount, bicycles, company, canceledAt ? `${canceledAt}T10:00:00Z` : null],
    );
    const id = Number(rows[0]!.id);
    // Active and canceled periods were paid (ADR 019): what a cancellation can give back.
    if (status === 'active' || status === 'canceled') await seedPayment(tx, id, start, end, amount, currency);
    if (canceledAt) await seedRefund(tx, id, start, end, amount, currency, canceledAt);
  }
  // The demo user holds one too, so the user page shows the section filled.
  const { rows } = await tx.query<{ id: number }>(
    `insert into subscriptions (plan_id, current_period_start, current_period_end, status, user_id, currency, amount, bicycles)
     values (1, $1, $2, 'active', (select id from users where email = 'user@example.com'), 'sek', 199, 1) returning id`,
    [day(-7), addMonths(day(-7), 1)],
  );
  await seedPayment(tx, Number(rows[0]!.id), day(-7), addMonths(day(-7), 1), 199, 'sek');
}

async function seedPayment(tx: Db, subscriptionId: number, start: string, end: string, amount: number, currency: string) {
  await tx.query(
    `insert into subscription_payments (subscription_id, period_start, period_end, amount_minor, currency, paid_at, source, reference)
     values ($1, $2, $3, round($4::numeric * 100)::bigint, $5, $2::date + time '08:00', 'demo', $6)`,
    [subscriptionId, start, end, amount, currency, `demo-${subscriptionId}`],
  );
}

/** The refund the admin's cancellation on `canceledAt` paid out, by the rule of upstream/lib/refund.ts. */
async function seedRefund(tx: Db, subscriptionId: number, start: string, end: string, amount: number, currency: string, canceledAt: string) {
  const refund = proRataRefund({ amountMinor: Math.round(amount * 100), periodStart: start, periodEnd: end, today: canceledAt });
  if (!refund) return;
  await tx.query(
    `insert into subscription_refunds (subscription_id, payment_id, amount_minor, currency, unused_days, period_days, created_by, created_at)
     values ($1, (select id from subscription_payments where subscription_id = $1), $2, $3, $4, $5, (select id from users where email = 'admin@example.com'), $6)`,
    [subscriptionId, refund.amountMinor, currency, refund.unusedDays, refund.periodDays, `${canceledAt}T10:00:00Z`],
  );
}

// [name, business, location, contact person, contact phone, first and last day (offsets from the day of seeding), status,
//  description en and sv, place en and sv, responsible name and e-mail]
const DEMO_EVENTS = [
  // The first runs from two days ago for a week: there is always an event on today's date.
  [
    'Spring bike check at Nordic Bikes',
    'Nordic Bikes AB',
    'Sveavägen 10, Stockholm',
    'Karin Lund',
    '+46 8 123 45 67',
    -2,
    5,
    2,
    'Free safety check and small adjustments for employees.',
    'Kostnadsfri säkerhetskontroll och små justeringar för anställda.',
    'Courtyard',
    'Innergården',
    'Karin Lund',
    'karin@nordicbikes.example',
  ],
  [
    'Commuter day Solna',
    'Nordic Bikes Solna',
    'Solnavägen 3, Solna',
    'Per Ek',
    '+46 8 765 43 21',
    14,
    14,
    1,
    'Get your bicycle ready for the commuting season.',
    'Gör cykeln redo för pendlingssäsongen.',
    'Entrance hall',
    'Entréhallen',
    'Per Ek',
    'per@nordicbikes.example',
  ],
  [
    'Green Commute service day',
    'Green Commute Ltd',
    '1 Cycle Lane, London',
    'Amy Fox',
    '+44 20 7946 0000',
    21,
    22,
    2,
    'Two days of on-site servicing at the London office.',
    'Två dagars service på plats vid kontoret i London.',
    'Bike room',
    'Cykelrummet',
    'Amy Fox',
    'amy@greencommute.example',
  ],
  [
    'Winter tune-up',
    'Nordic Bikes AB',
    'Sveavägen 10, Stockholm',
    'Karin Lund',
    '+46 8 123 45 67',
    -60,
    -59,
    4,
    'Studded tyres and lights before the winter.',
    'Dubbdäck och belysning inför vintern.',
    'Garage',
    'Garaget',
    'Karin Lund',
    'karin@nordicbikes.example',
  ],
  [
    'Autumn pop-up (paused)',
    'Green Commute Ltd',
    'King’s Cross, London',
    'Amy Fox',
    '+44 20 7946 0000',
    40,
    41,
    3,
    'Pop-up service point, on hold.',
    'Tillfällig servicepunkt, pausad.',
    'Station square',
    'Stationstorget',
    null,
    null,
  ],
] as const;

/** The demo events: one running today, upcoming ones, a past one and a paused one. */
async function insertEvents(tx: Db) {
  for (const [name, business, location, person, phone, start, end, ...rest] of DEMO_EVENTS) {
    await tx.query(
      `insert into events (name, business, location, contact_person, contact_phone, start_date, end_date, status, description_en, description_sv, place_en, place_sv,
                           responsible_name, responsible_email, link, buddy_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'https://bikebuddy.example/events', (select id from users where email = 'buddy@example.com'))`,
      [name, business, location, person, phone, day(start), day(end), ...rest],
    );
  }
}

/** Every event's time slots, on its days. */
async function insertEventSlots(tx: Db) {
  // [event, date offset, start, end, name]
  const slots: [number, number, string, string, string][] = [
    [1, -2, '09:00', '12:00', 'Morning'],
    [1, -2, '13:00', '16:00', 'Afternoon'],
    [1, 0, '09:00', '12:00', 'Morning'],
    [1, 0, '13:00', '16:00', 'Afternoon'],
    [1, 3, '09:00', '12:00', 'Morning'],
    [2, 14, '08:00', '11:00', 'Breakfast'],
    [3, 21, '10:00', '14:00', 'Day one'],
    [3, 22, '10:00', '14:00', 'Day two'],
    [4, -60, '09:00', '15:00', 'Tune-up'],
  ];
  for (const [event, offset, start, end, name] of slots) {
    await tx.query('insert into event_slots (event_id, name, date, start_time, end_time, capacity) values ($1, $2, $3, $4, $5, 6)', [event, name, day(offset), start, end]);
  }
}

/** Bookings in every status, some linked to a finished service. */
async function insertEventBookings(tx: Db) {
  // [event, slot, user offset, status, main company, company, given company, which finished service (0 = the first) or none]
  const bookings: [number, number, number, string, number | null, number | null, string | null, number | null][] = [
    [1, 1, 0, 'attended', 1, 1, 'Nordic Bikes', 1001],
    [1, 1, 1, 'attended', 1, 1, 'Nordic Bikes AB', 0],
    [1, 2, 2, 'canceled', 1, 1, null, null],
    [1, 3, 3, 'confirmed', 1, 2, 'Nordic Solna', null],
    [1, 3, 5, 'booked', 1, 2, null, null],
    [1, 4, 6, 'booked', 1, 1, 'NB', null],
    [1, 5, 7, 'booked', 1, 1, null, null],
    [2, 6, 8, 'booked', 1, 2, 'Solna office', null],
    [3, 7, 9, 'confirmed', 3, 3, 'Green Commute', null],
    [3, 8, 11, 'booked', 3, 3, 'GC London', null],
    [4, 9, 12, 'attended', 1, 1, 'Nordic Bikes', 1],
    [4, 9, 13, 'attended', 1, 1, null, 2],
  ];
  for (const [event, slot, user, status, main, company, given, service] of bookings) {
    await tx.query(
      `insert into event_bookings (service_id, main_company_id, company_id, event_id, event_slot_id, full_name, email, status, buddy_id, given_company, date, booked_at)
       select (select id from services where status = ${SERVICE_STATUS.Finished} order by id offset $1 limit 1), $2, $3, $4, s.id, coalesce(u.first_name || ' ' || u.last_name, u.email), u.email, $5,
              (select id from users where email = 'buddy@example.com'), $6, s.date, (s.date - 7)::timestamp + time '12:30'
         from event_slots s, users u where s.id = $7 and u.id = ${userSql(user)}`,
      [service, main, company, event, status, given, slot],
    );
  }
}

export async function seedEvents(tx: Db) {
  await insertEvents(tx);
  await insertEventSlots(tx);
  await insertEventBookings(tx);
}

export async function seedTrialGroups(tx: Db) {
  await tx.query(
    `insert into trial_groups (name, description, company_id, start_date, end_date) values
       ('Nordic Bikes pilot', 'Employees of Nordic Bikes try a month of maintenance at the office.', 1, $1, $2),
       ('Green Commute trial', 'A first group of London commuters.', 3, $3, $4)`,
    [day(-14), day(30), day(7), day(60)],
  );
  // Invited people who have not registered yet: pending accounts, as account/invite leaves them.
  for (const email of ['erik.pilot@nordicbikes.example', 'lina.pilot@nordicbikes.example', 'tom.trial@greencommute.example']) {
    await tx.query(
      `insert into users (email, first_name, user_type, country, language, account_status, invitation_status, invited_at, is_active)
       values ($1, $2, 1, 'se', 'sv', 'pending', 'pending', now() - interval '3 days', true)`,
      [email, email.split('.')[0]!.replace(/^./, (c) => c.toUpperCase())],
    );
  }
  const invite = (group: number, userWhere: string, registered: boolean) =>
    tx.query(
      `insert into trial_group_invites (trial_group_id, user_id, email, status, invited_at, registered_at)
       select $1, u.id, u.email, $2, now() - interval '10 days', case when $3 then now() - interval '8 days' end from users u where ${userWhere}`,
      [group, registered ? 'registered' : 'invited', registered],
    );
  await invite(1, `u.id = ${userSql(15)}`, true);
  await invite(1, `u.id = ${userSql(16)}`, true);
  await invite(1, `u.id = ${userSql(17)}`, true);
  await invite(1, `u.email = 'erik.pilot@nordicbikes.example'`, false);
  await invite(1, `u.email = 'lina.pilot@nordicbikes.example'`, false);
  await invite(2, `u.email = 'tom.trial@greencommute.example'`, false);
  await tx.query(`insert into trial_group_users (trial_group_id, user_id) select trial_group_id, user_id from trial_group_invites where status = 'registered'`);
  // Added directly, without an invitation.
  await tx.query(`insert into trial_group_users (trial_group_id, user_id) select 1, ${userSql(18)}`);
  // An invitation an Admin canceled (ADR 018): it shows in the users list, and "Invite again" re-opens it.
  await tx.query(
    `insert into users (email, first_name, user_type, country, language, account_status, invitation_status, invited_at, is_active)
     values ('nina.former@nordicbikes.example', 'Nina', 1, 'se', 'sv', 'pending', 'canceled', now() - interval '20 days', true)`,
  );
}
