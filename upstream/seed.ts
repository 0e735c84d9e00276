import { randomInt } from 'node:crypto';
import type { Db } from './db.ts';
import { hashPassword } from './lib/password.ts';
import { setUserRoles } from './users.ts';

export const DEMO_ACCOUNTS = [
  { email: 'admin@example.com', first_name: 'Ada', last_name: 'Admin', roles: ['Admin'], user_type: 1, description: 'Admin: the whole app' },
  { email: 'buddy@example.com', first_name: 'Bo', last_name: 'Buddy', roles: ['Buddy'], user_type: 2, description: 'Buddy: home, scheduler, services' },
  { email: 'shop@example.com', first_name: 'Sam', last_name: 'Shop', roles: ['Buddy', 'Shop'], user_type: 2, description: 'Buddy + Shop: also the users list' },
  { email: 'user@example.com', first_name: 'Una', last_name: 'User', roles: ['Customer'], user_type: 1, description: 'no whitelisted role: /forbidden' },
] as const;

const FIRST = ['Alva', 'Elias', 'Freja', 'Hugo', 'Ines', 'Jonas', 'Klara', 'Leo', 'Maja', 'Nils', 'Olivia', 'Oskar', 'Saga', 'Theo', 'Vera', 'Wilma', 'Liam', 'Ella', 'Noah', 'Astrid'];
const LAST = ['Andersson', 'Berg', 'Carlsson', 'Dahl', 'Eriksson', 'Forsberg', 'Gustafsson', 'Holm', 'Isaksson', 'Johansson', 'Karlsson', 'Lind', 'Magnusson', 'Nilsson', 'Olsson', 'Persson', 'Quist', 'Larsson', 'Svensson', 'Wallin'];

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
    await insertAll(tx, 'roles', ['name', 'description'], [
      ['Admin', 'Back-office administrators: every screen'],
      ['Buddy', 'Mechanics: their schedule and jobs'],
      ['Shop', 'Partner shops'],
      ['Customer', 'Bicycle owners using the consumer app'],
    ]);
    const hash = await hashPassword(password, scryptCost);
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
    await insertAll(tx, 'bicycle_types', ['name', 'description'], [
      ['City bike', 'Upright everyday bicycle'],
      ['Road bike', 'Drop bars, narrow tyres'],
      ['Mountain bike', 'Suspension and wide tyres'],
      ['E-bike', 'Pedal-assisted electric bicycle'],
      ['Cargo bike', 'Box or long-tail cargo bicycle'],
    ]);
    await insertAll(tx, 'languages', ['code', 'name', 'native_name'], [
      ['en', 'English', 'English'],
      ['sv', 'Swedish', 'Svenska'],
      ['fi', 'Finnish', 'Suomi'],
      ['ar', 'Arabic', 'العربية'],
    ]);
    await insertAll(tx, 'competencies', ['name', 'description'], [
      ['Brakes', 'Disc and rim brakes, bleeding hydraulics'],
      ['Gears', 'Derailleurs and hub gears'],
      ['Wheels', 'Truing, spokes and hubs'],
      ['E-bike systems', 'Motors, batteries and diagnostics'],
    ]);
    await insertAll(tx, 'operational_ranges', ['name'], [['Stockholm inner city'], ['Solna'], ['Nacka'], ['London central']]);
    await insertAll(tx, 'service_slots', ['name', 'start_time', 'end_time', 'max', 'is_active'], [
      ['Morning', '08:00', '12:00', 4, true],
      ['Afternoon', '12:00', '16:00', 4, true],
      ['Evening', '16:00', '20:00', 2, true],
      ['Night (paused)', '20:00', '22:00', 1, false],
    ]);
    await insertAll(tx, 'service_items', ['name_en', 'name_sv', 'description'], [
      ['Brakes', 'Bromsar', 'Pads, cables and braking power'],
      ['Gears', 'Växlar', 'Shifting across all gears'],
      ['Chain', 'Kedja', 'Wear, lubrication and tension'],
      ['Tyres', 'Däck', 'Pressure, tread and punctures'],
      ['Lights', 'Belysning', 'Front and rear lights'],
      ['Wheels', 'Hjul', 'True and spoke tension'],
    ]);
    await insertAll(tx, 'products', ['name_en', 'name_sv', 'description_en', 'description_sv', 'price_sek', 'price_gbp', 'max_quantity_per_bicycle', 'is_active'], [
      ['Inner tube', 'Innerslang', 'Replacement inner tube', 'Ny innerslang', 89, 7.5, 2, true],
      ['Brake pads', 'Bromsbelägg', 'A pair of brake pads', 'Ett par bromsbelägg', 149, 12, 2, true],
      ['Chain', 'Kedja', 'New chain, fitted', 'Ny kedja, monterad', 299, 24, 1, true],
      ['Winter tyres', 'Vinterdäck', 'Studded tyre', 'Dubbdäck', 549, 45, 2, false],
    ]);
    await insertAll(tx, 'companies', ['name', 'address', 'contact_person', 'contact_phone', 'contact_email', 'billing_email', 'is_main_company', 'main_company_id'], [
      ['Nordic Bikes AB', 'Sveavägen 10, Stockholm', 'Karin Lund', '+46 8 123 45 67', 'karin@nordicbikes.example', 'billing@nordicbikes.example', true, null],
      ['Nordic Bikes Solna', 'Solnavägen 3, Solna', 'Per Ek', '+46 8 765 43 21', 'per@nordicbikes.example', null, false, 1],
      ['Green Commute Ltd', '1 Cycle Lane, London', 'Amy Fox', '+44 20 7946 0000', 'amy@greencommute.example', 'ap@greencommute.example', true, null],
    ]);
    await insertAll(tx, 'promo_codes', ['code', 'company_name', 'duration_days', 'max_uses', 'uses', 'discount_percent', 'starts_at', 'expires_at'], [
      ['SPRING26', 'Nordic Bikes AB', 30, 100, 2, 20, '2026-03-01', '2026-06-01'],
      ['WELCOME', null, 14, 1000, 1, 10, '2026-01-01', '2027-01-01'],
    ]);
    await tx.query(`insert into promo_code_uses (promo_code_id, user_id) select 1, id from users where email in ('user@example.com', 'buddy@example.com')`);
    await tx.query(`insert into promo_code_uses (promo_code_id, user_id) select 2, id from users where email = 'user@example.com'`);
    // Bicycles for the first owners: enough for paging, filters and the export.
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
    return true;
  });
}
