import { setPolicyRoles } from './lib/factors.ts';
import { randomInt } from 'node:crypto';
import type { Db } from './db.ts';
import { hashPassword } from './lib/password.ts';
import { setUserRoles } from './users.ts';
import { ORIGIN_TYPES, SERVICE_STATUS } from '../shared/entities/services.ts';
import { seedEvents, seedSubscriptions, seedTrialGroups } from './seed-events.ts';

export const DEMO_ACCOUNTS = [
  { email: 'admin@example.com', first_name: 'Ada', last_name: 'Admin', roles: ['Admin'], user_type: 1, description: 'Admin: the whole app' },
  { email: 'buddy@example.com', first_name: 'Bo', last_name: 'Buddy', roles: ['Buddy'], user_type: 2, description: "Buddy: home, Today (the day's stops), scheduler, services" },
  { email: 'shop@example.com', first_name: 'Sam', last_name: 'Shop', roles: ['Buddy', 'Shop'], user_type: 2, description: 'Buddy + Shop: as Buddy, and the users list' },
  { email: 'user@example.com', first_name: 'Una', last_name: 'User', roles: ['Customer'], user_type: 1, description: 'no whitelisted role: /forbidden' },
] as const;

const FIRST = [
  'Alva',
  'Elias',
  'Freja',
  'Hugo',
  'Ines',
  'Jonas',
  'Klara',
  'Leo',
  'Maja',
  'Nils',
  'Olivia',
  'Oskar',
  'Saga',
  'Theo',
  'Vera',
  'Wilma',
  'Liam',
  'Ella',
  'Noah',
  'Astrid',
];
const LAST = [
  'Andersson',
  'Berg',
  'Carlsson',
  'Dahl',
  'Eriksson',
  'Forsberg',
  'Gustafsson',
  'Holm',
  'Isaksson',
  'Johansson',
  'Karlsson',
  'Lind',
  'Magnusson',
  'Nilsson',
  'Olsson',
  'Persson',
  'Quist',
  'Larsson',
  'Svensson',
  'Wallin',
];

/** A readable random password for demo accounts, printed once at start. */
export function randomDemoPassword(): string {
  const words = ['pedal', 'spoke', 'chain', 'saddle', 'gear', 'brake', 'tyre', 'valve'];
  return `${words[randomInt(words.length)]}-${words[randomInt(words.length)]}-${randomInt(1000, 9999)}`;
}

async function insertAll(db: Db, table: string, columns: string[], rows: unknown[][]) {
  for (const row of rows) {
    await db.query(`insert into ${table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, row);
  }
}

/** Demo data for an empty database: the four demo logins, ordinary users and the catalogues. */
export async function seedDemo(db: Db, password: string, scryptCost: number): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int as n from users');
  if (Number(rows[0]?.n) > 0) return false;
  return db.transaction(async (tx) => {
    // Two instances starting on one empty PostgreSQL: the second waits, then finds the users and stops.
    await tx.query("select pg_advisory_xact_lock(hashtext('seed_demo'))");
    const { rows: again } = await tx.query<{ n: number }>('select count(*)::int as n from users');
    if (Number(again[0]?.n) > 0) return false;
    const hash = await hashPassword(password, scryptCost);
    await seedAccounts(tx, hash);
    // The demo logins sign in with their password alone: the second-factor policy (default Admin) is off in the
    // demo data, and the Admin turns it on under Sign-in security (README, ADR 068).
    await setPolicyRoles(tx, []);
    await seedCatalogues(tx);
    await seedBicycles(tx);
    await seedScheduling(tx);
    await seedCatalogueAndAssets(tx);
    await seedSubscriptions(tx);
    await seedEvents(tx);
    await seedTrialGroups(tx);
    return true;
  });
}

/** The roles, the four demo logins and two dozen ordinary users (every fifth a buddy). */
async function seedAccounts(tx: Db, hash: string) {
  await insertAll(
    tx,
    'roles',
    ['name', 'description'],
    [
      ['Admin', 'Back-office administrators: every screen'],
      ['Buddy', 'Mechanics: their schedule and jobs'],
      ['Shop', 'Partner shops'],
      ['Customer', 'Bicycle owners using the consumer app'],
    ],
  );
  for (const account of DEMO_ACCOUNTS) {
    const { rows: created } = await tx.query<{ id: number }>(
      `insert into users (email, password_hash, first_name, last_name, user_type, country, language, account_status, invitation_status, member_since, email_confirmed_at, city)
       values ($1, $2, $3, $4, $5, 'se', 'en', 'active', 'accepted', now() - interval '200 days', now(), 'Stockholm') returning id`,
      [account.email, hash, account.first_name, account.last_name, account.user_type],
    );
    await setUserRoles(tx, Number(created[0]!.id), account.roles);
  }
  for (let i = 0; i < 24; i++) {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 7) % LAST.length]!;
    const { rows: created } = await tx.query<{ id: number }>(
      `insert into users (email, password_hash, first_name, last_name, user_type, country, language, account_status, invitation_status, member_since, city, phone_number)
       values ($1, $2, $3, $4, $5, $6, $7, 'active', 'accepted', now() - make_interval(days => $8), $9, $10) returning id`,
      [
        `${first}.${last}${i}@example.com`.toLowerCase(),
        hash,
        first,
        last,
        i % 5 === 0 ? 2 : i % 7 === 0 ? 4 : 1,
        i % 4 === 0 ? 'gb' : 'se',
        i % 3 === 0 ? 'en' : 'sv',
        10 + i * 9,
        i % 4 === 0 ? 'London' : 'Stockholm',
        `+46 70 ${String(1000000 + i * 7919).slice(0, 3)} ${String(1000 + i * 37).slice(0, 2)} ${String(10 + i).slice(0, 2)}`,
      ],
    );
    await setUserRoles(tx, Number(created[0]!.id), i % 5 === 0 ? ['Buddy'] : ['Customer']);
  }
}

/** A table the demo fills as it is: its columns and rows. */
interface Catalogue {
  table: string;
  columns: string[];
  rows: unknown[][];
}

/** Bicycle types, languages, competencies, ranges, slots, checklist items, products, companies and promo codes. */
const CATALOGUES: Catalogue[] = [
  {
    table: 'bicycle_types',
    columns: ['name', 'description'],
    rows: [
      ['City bike', 'Upright everyday bicycle'],
      ['Road bike', 'Drop bars, narrow tyres'],
      ['Mountain bike', 'Suspension and wide tyres'],
      ['E-bike', 'Pedal-assisted electric bicycle'],
      ['Cargo bike', 'Box or long-tail cargo bicycle'],
    ],
  },
  {
    table: 'languages',
    columns: ['code', 'name', 'native_name'],
    rows: [
      ['en', 'English', 'English'],
      ['sv', 'Swedish', 'Svenska'],
      ['fi', 'Finnish', 'Suomi'],
      ['ar', 'Arabic', 'العربية'],
    ],
  },
  {
    table: 'competencies',
    columns: ['name', 'description'],
    rows: [
      ['Brakes', 'Disc and rim brakes, bleeding hydraulics'],
      ['Gears', 'Derailleurs and hub gears'],
      ['Wheels', 'Truing, spokes and hubs'],
      ['E-bike systems', 'Motors, batteries and diagnostics'],
    ],
  },
  { table: 'operational_ranges', columns: ['name'], rows: [['Stockholm inner city'], ['Solna'], ['Nacka'], ['London central']] },
  {
    table: 'service_slots',
    columns: ['name', 'start_time', 'end_time', 'max', 'is_active'],
    rows: [
      ['Morning', '08:00', '12:00', 4, true],
      ['Afternoon', '12:00', '16:00', 4, true],
      ['Evening', '16:00', '20:00', 2, true],
      ['Night (paused)', '20:00', '22:00', 1, false],
    ],
  },
  {
    table: 'service_items',
    // What keeps a rider safe is required before a service is finished (ADR 043).
    columns: ['name_en', 'name_sv', 'description', 'is_required'],
    rows: [
      ['Brakes', 'Bromsar', 'Pads, cables and braking power', true],
      ['Gears', 'Växlar', 'Shifting across all gears', false],
      ['Chain', 'Kedja', 'Wear, lubrication and tension', false],
      ['Tyres', 'Däck', 'Pressure, tread and punctures', true],
      ['Lights', 'Belysning', 'Front and rear lights', true],
      ['Wheels', 'Hjul', 'True and spoke tension', false],
    ],
  },
  {
    table: 'products',
    columns: ['name_en', 'name_sv', 'description_en', 'description_sv', 'price_sek', 'price_gbp', 'max_quantity_per_bicycle', 'is_active'],
    rows: [
      ['Inner tube', 'Innerslang', 'Replacement inner tube', 'Ny innerslang', 89, 7.5, 2, true],
      ['Brake pads', 'Bromsbelägg', 'A pair of brake pads', 'Ett par bromsbelägg', 149, 12, 2, true],
      ['Chain', 'Kedja', 'New chain, fitted', 'Ny kedja, monterad', 299, 24, 1, true],
      ['Winter tyres', 'Vinterdäck', 'Studded tyre', 'Dubbdäck', 549, 45, 2, false],
    ],
  },
  {
    table: 'companies',
    columns: ['name', 'address', 'contact_person', 'contact_phone', 'contact_email', 'billing_email', 'is_main_company', 'main_company_id'],
    rows: [
      ['Nordic Bikes AB', 'Sveavägen 10, Stockholm', 'Karin Lund', '+46 8 123 45 67', 'karin@nordicbikes.example', 'billing@nordicbikes.example', true, null],
      ['Nordic Bikes Solna', 'Solnavägen 3, Solna', 'Per Ek', '+46 8 765 43 21', 'per@nordicbikes.example', null, false, 1],
      ['Green Commute Ltd', '1 Cycle Lane, London', 'Amy Fox', '+44 20 7946 0000', 'amy@greencommute.example', 'ap@greencommute.example', true, null],
    ],
  },
  {
    table: 'promo_codes',
    columns: ['code', 'company_name', 'duration_days', 'max_uses', 'uses', 'discount_percent', 'starts_at', 'expires_at'],
    rows: [
      ['SPRING26', 'Nordic Bikes AB', 30, 100, 2, 20, '2026-03-01', '2026-06-01'],
      ['WELCOME', null, 14, 1000, 1, 10, '2026-01-01', '2027-01-01'],
    ],
  },
];

/** The catalogues above, in their order, and who has used which promo code. */
async function seedCatalogues(tx: Db) {
  for (const { table, columns, rows } of CATALOGUES) await insertAll(tx, table, columns, rows);
  await tx.query(`insert into promo_code_uses (promo_code_id, user_id) select 1, id from users where email in ('user@example.com', 'buddy@example.com')`);
  await tx.query(`insert into promo_code_uses (promo_code_id, user_id) select 2, id from users where email = 'user@example.com'`);
}

/** Bicycles for the first owners: enough for paging, filters and the export. */
async function seedBicycles(tx: Db) {
  const brands = ['Crescent Elsa', 'Monark Karin', 'Trek FX 3', 'Specialized Sirrus', 'Bianchi Via Nirone', 'Riese & Müller Load 75', 'Kona Dew', 'Cannondale Quick 4'];
  for (let i = 0; i < 36; i++) {
    await tx.query(
      `insert into bicycles (brand_and_model, serial_number, bicycle_type_id, owner_id, groupset, drivetrain, front_brake, lock_model, insurance_company,
                             tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, purchase_value, year, is_active)
       values ($1, $2, $3, (select id from users order by id offset $4 limit 1), $5, 'chain', $6, 'Abus Bordo', $7, $8, '622', $9, $10, $11, $12, $13, $14)`,
      [
        brands[i % brands.length],
        `WTU${String(100000 + i * 7919).slice(0, 6)}`,
        (i % 5) + 1,
        4 + Math.floor(i / 3),
        i % 2 ? 'Shimano Deore' : 'Shimano Nexus 7',
        i % 3 ? 'disc' : 'rim',
        i % 4 ? 'Folksam' : null,
        i % 2 ? '35' : '40',
        ['presta', 'schrader', 'dunlop'][i % 3],
        i % 3 ? 'Good, serviced last year' : 'Worn chain, needs brake pads',
        `20${String(18 + (i % 7)).padStart(2, '0')}-0${(i % 9) + 1}-15`,
        String(4000 + i * 250),
        String(2018 + (i % 7)),
        i % 9 !== 0,
      ],
    );
  }
}

/** A date `offset` days from today (UTC), as YYYY-MM-DD. */
export function demoDate(offset: number, from = new Date()): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + offset));
  return d.toISOString().slice(0, 10);
}

/** Addresses in central Stockholm, all well inside the default operation range. */
const ADDRESSES = [
  ['Drottninggatan 50, Stockholm', 59.3346, 18.062],
  ['Götgatan 30, Stockholm', 59.3167, 18.0717],
  ['Odengatan 60, Stockholm', 59.344, 18.05],
  ['Strandvägen 7, Stockholm', 59.3326, 18.081],
  ['Kungsholmsgatan 20, Stockholm', 59.332, 18.04],
  ['Hornsgatan 40, Stockholm', 59.318, 18.056],
  ['Karlavägen 50, Stockholm', 59.34, 18.085],
  ['Sankt Eriksgatan 30, Stockholm', 59.333, 18.033],
] as const;

/**
 * The demo buddy's day (issue 13, the Today page): besides the booking the loop above made, four more
 * stops at agreed times across the morning and afternoon, one already finished and one still to accept,
 * spread over Stockholm so the map shows a route. Added after the loop so the other demo data stays as it was.
 */
async function seedDemoBuddyToday(tx: Db, buddy: number, bikes: { id: number; owner_id: number | null }[]) {
  const stops: [slot: number, time: string, status: number, address: string, lat: number, lng: number, notes: string | null][] = [
    [1, '08:15', 4, 'Odengatan 60, Stockholm', 59.3455, 18.0505, null],
    [1, '10:00', 2, 'Vasagatan 10, Stockholm', 59.3318, 18.0578, 'Ring the bell marked Berg, 3rd floor'],
    [2, '13:00', 2, 'Hornsgatan 40, Stockholm', 59.318, 18.056, null],
    [2, '15:30', 1, 'Karlavägen 50, Stockholm', 59.34, 18.085, 'Cargo bike, front brake squeals'],
  ];
  for (const [i, [slot, time, status, address, lat, lng, notes]] of stops.entries()) {
    const bike = bikes[(i * 5 + 3) % bikes.length]!;
    await tx.query(
      `insert into services (service_date, service_slot_id, service_time, status, buddy_id, bicycle_id, owner_id, origin_type, service_type_id, operational_range_id, address, latitude, longitude, notes, finished_at)
       values ($1::date, $2::bigint, $3::time, $4::smallint, $5, $6, $7, 'subscriber_', (select id from service_types where name_en = 'Standard'), 1, $8, $9, $10, $11,
               case when $4::smallint = 4 then ($1::date + $3::time + interval '45 minutes')::timestamptz end)`,
      [demoDate(0), slot, time, status, buddy, bike.id, bike.owner_id, address, lat, lng, notes],
    );
  }
}

/**
 * A service type the catalogue offers besides the four every database starts with (migration 076), one
 * retired from the offer, and the vans, cargo bikes and kit the buddies work with (ADR 023).
 */
async function seedCatalogueAndAssets(tx: Db) {
  await insertAll(
    tx,
    'service_types',
    ['name_en', 'name_sv', 'description', 'duration_minutes', 'price_sek', 'is_active'],
    [
      ['E-bike check', 'Elcykelkontroll', 'Motor, battery and wiring diagnostics with a firmware update.', 90, 1195, true],
      ['Winter tyres fitted', 'Vinterdäck monteras', 'Studded tyres fitted and the old ones stored (discontinued).', 45, 595, false],
    ],
  );
  const { rows } = await tx.query<{ id: number }>(
    "select u.id from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id where r.name = 'Buddy' order by u.id limit 3",
  );
  const [bo, sam, third] = rows.map((r) => Number(r.id));
  await insertAll(
    tx,
    'assets',
    ['name', 'asset_type', 'identifier', 'status', 'buddy_id', 'purchase_date', 'purchase_value', 'next_inspection', 'notes'],
    [
      ['Service van 1', 'van', 'ABC 123', 2, bo, '2023-03-14', 289000, demoDate(40), 'Carries two workstands and the spare-parts shelf'],
      ['Service van 2', 'van', 'DEF 456', 3, null, '2022-09-01', 265000, demoDate(-3), 'At the garage: brake service, back next week'],
      ['Cargo bike Bullitt', 'cargo_bike', 'WBU-2291', 2, sam, '2024-04-20', 42000, demoDate(75), null],
      ['Cargo bike Omnium', 'cargo_bike', 'OMN-0831', 1, null, '2024-05-02', 38500, demoDate(90), 'Spare, kept at the depot'],
      ['Tool kit A', 'tool_kit', 'TK-A-01', 2, bo, '2023-01-10', 12500, null, 'Park Tool professional kit'],
      ['Tool kit B', 'tool_kit', 'TK-B-02', 2, third, '2023-01-10', 12500, null, null],
      ['Workstand PRS-2', 'workstand', 'PRS2-7781', 1, null, '2021-06-30', 6900, null, null],
      ['E-bike diagnostic tablet', 'diagnostic', 'BOSCH-DT-118', 2, sam, '2024-11-05', 15900, demoDate(20), 'Bosch and Shimano Steps software'],
      ['Old truing stand', 'workstand', 'TS-1999', 4, null, '2015-02-01', 2400, null, 'Retired: replaced by the PRS-2'],
    ],
  );
}

interface DemoService {
  date: string;
  slot: number;
  status: number;
  buddy: number;
  bike: { id: number; owner_id: number | null };
  /** Picks the origin, service type, address and notes, so the demo varies. */
  n: number;
  rating: number | null;
  notes?: string;
}

async function insertService(tx: Db, { date, slot, status, buddy, bike, n, rating, notes }: DemoService) {
  const [address, lat, lng] = ADDRESSES[n % ADDRESSES.length]!;
  await tx.query(
    `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, owner_id, origin_type, service_type_id, operational_range_id, address, latitude, longitude, notes, rating, finished_at)
     values ($1::date, $2::bigint, $3::smallint, $4, $5, $6, $7, (select id from service_types order by id offset $8 limit 1), 1, $9, $10, $11, $12, $13,
             case when $3::smallint = 4 then ($1::date + (select end_time from service_slots where id = $2::bigint))::timestamptz end)`,
    [
      date,
      slot,
      status,
      buddy,
      bike.id,
      bike.owner_id,
      ORIGIN_TYPES[n % ORIGIN_TYPES.length],
      n % 4,
      address,
      lat,
      lng,
      notes ?? (n % 4 === 0 ? 'Door code 1234, bicycle in the courtyard' : null),
      rating,
    ],
  );
}

/**
 * Work slots for the coming weeks (and the last month), a few not-working slots, services in every
 * status for the demo buddy and others (within capacity), service details of finished ones, and
 * expert requests. The demo buddy works mornings and afternoons every day from 30 days ago to 60 ahead.
 */
async function seedScheduling(tx: Db) {
  const { rows: buddyRows } = await tx.query<{ id: number }>(
    "select u.id from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id where r.name = 'Buddy' order by u.id limit 4",
  );
  const buddies = buddyRows.map((r) => Number(r.id));
  // [buddy, slots, ISO weekdays, max services per day]
  const schedules: Schedule[] = [
    [buddies[0]!, [1, 2], [1, 2, 3, 4, 5, 6, 7], 6],
    [buddies[1]!, [1], [1, 2, 3, 4, 5], 4],
    [buddies[2]!, [2, 3], [1, 2, 3, 4, 5, 6], 5],
    [buddies[3]!, [1, 2], [2, 3, 4, 5, 6], 4],
  ];
  const isAway = await seedWorkSlots(tx, buddies, schedules);
  const { rows: bikes } = await tx.query<{ id: number; owner_id: number | null }>('select id, owner_id from bicycles order by id');
  let n = await seedServices(tx, schedules, isAway, bikes);
  await seedDemoBuddyToday(tx, buddies[0]!, bikes);
  // Requests that came in for today and wait on the dispatch board (ADR 022): provisionally with the
  // second demo buddy's morning, which has room on weekdays (the demo buddy's own day is the Today page's five stops).
  for (const [k, slot] of [1, 1, 1].entries()) {
    await insertService(tx, {
      date: demoDate(0),
      slot,
      status: 1,
      buddy: buddies[1]!,
      bike: bikes[(n + 5) % bikes.length]!,
      n,
      rating: null,
      notes: ['Wants the brakes looked at', 'Puncture, rear wheel', 'Gears slip under load'][k]!,
    });
    n++;
  }
  // Checklists of the first finished services.
  await tx.query(
    `insert into service_details (service_id, service_item_id, check_status, needs_repair, notes)
     select s.id, i.id, 1 + ((s.id + i.id) % 3), ((s.id + i.id) % 3) = 0, case when ((s.id + i.id) % 3) = 0 then 'Worn, replace at next visit' end
       from (select id from services where status = ${SERVICE_STATUS.Finished} order by id limit 8) s cross join service_items i`,
  );
  await seedExpertRequests(tx, buddies[0]!);
}

/** [buddy, slots, ISO weekdays, max services per day] */
type Schedule = [number, number[], number[], number];

/** The buddies' work slots from 30 days ago to 60 ahead, a day off and a few not-working slots; answers whether a buddy is away. */
async function seedWorkSlots(tx: Db, buddies: number[], schedules: Schedule[]) {
  for (const [buddy, slots, weekdays, max] of schedules) {
    await tx.query(
      `insert into buddy_work_slots (buddy_id, service_date, service_slot_id, max_services_per_day, is_working_day)
       select $1, d::date, s, $5, true from generate_series($2::date, $3::date, interval '1 day') d, unnest($4::int[]) s
        where extract(isodow from d)::int = any($6::int[])`,
      [buddy, demoDate(-30), demoDate(60), slots, max, weekdays],
    );
  }
  await tx.query("update buddy_work_slots set is_working_day = false, notes = 'Day off' where buddy_id = $1 and service_date = $2", [buddies[3], demoDate(3)]);
  const away: [number, number, number, string][] = [
    [buddies[0]!, 5, 2, 'Bike fair at Kungsträdgården'],
    [buddies[0]!, 12, 1, 'Dentist'],
    [buddies[1]!, 2, 1, 'Shop inventory'],
    [buddies[2]!, 1, 3, 'Training'],
  ];
  for (const [buddy, offset, slot, notes] of away) {
    await tx.query('insert into not_working_slots (user_id, service_date, service_slot_id, notes) values ($1, $2, $3, $4)', [buddy, demoDate(offset), slot, notes]);
  }
  return (buddy: number, offset: number, slot: number) => away.some(([b, o, s]) => b === buddy && o === offset && s === slot) || (buddy === buddies[3] && offset === 3);
}

/** Services in every status from three weeks ago to two weeks ahead, within the buddies' slots; answers how many it made. */
async function seedServices(tx: Db, schedules: Schedule[], isAway: (buddy: number, offset: number, slot: number) => boolean, bikes: { id: number; owner_id: number | null }[]) {
  let n = 0;
  for (let offset = -21; offset <= 14; offset++) {
    for (let bi = 0; bi < schedules.length; bi++) {
      const [buddy, slots, weekdays] = schedules[bi]!;
      const isoDay = ((new Date(demoDate(offset) + 'T00:00:00Z').getUTCDay() + 6) % 7) + 1;
      if (!weekdays.includes(isoDay) || (offset + bi) % 3 !== 0) continue;
      const count = 1 + (Math.abs(offset * 7 + bi) % 2);
      for (let k = 0; k < count; k++) {
        const slot = slots[k % slots.length]!;
        if (isAway(buddy, offset, slot)) continue;
        const pick = Math.abs(offset + k + bi);
        const status = offset < 0 ? [4, 4, 4, 3, 5][pick % 5]! : offset === 0 ? 2 : [2, 2, 1, 2, 5][pick % 5]!;
        const bike = bikes[n % bikes.length]!;
        // Most finished services carry the customer's rating (§5, 1–5); some customers never rate.
        const rating = status === SERVICE_STATUS.Finished && n % 4 !== 3 ? 3 + (n % 3) : null;
        await insertService(tx, { date: demoDate(offset), slot, status, buddy, bike, n, rating });
        n++;
      }
    }
  }
  return n;
}

/** Expert requests of the first customers, all but the open ones taken by `expert`. */
async function seedExpertRequests(tx: Db, expert: number) {
  const { rows: customers } = await tx.query<{ id: number }>(
    "select u.id from users u join user_roles ur on ur.user_id = u.id join roles r on r.id = ur.role_id where r.name = 'Customer' order by u.id limit 6",
  );
  const requests: [number, number, string][] = [
    [3, 1, 'Creaking bottom bracket, wants an expert opinion'],
    [5, 2, 'E-bike motor cuts out on hills'],
    [8, 1, 'Advice on a cargo bike for two children'],
    [-4, 3, 'Wheel building consultation'],
    [-10, 4, 'Frame crack inspection'],
    [1, 1, 'Hydraulic brake feels spongy'],
  ];
  for (const [i, [offset, status, description]] of requests.entries()) {
    await tx.query(
      `insert into expert_requests (requested_date, status, user_id, bicycle_id, expert_id, description, canceled_at)
       values ($1, $2::smallint, $3::bigint, (select id from bicycles where owner_id = $3::bigint order by id limit 1), $4, $5, case when $2::smallint = 4 then now() end)`,
      [demoDate(offset), status, customers[i % customers.length]!.id, status === 1 ? null : expert, description],
    );
  }
}
