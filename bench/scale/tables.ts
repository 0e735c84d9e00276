import type { Db } from '../../upstream/db.ts';

/**
 * The data-scale tables, one entry each: how many rows, and the SQL that generates a range of them
 * (generate_series, so PostgreSQL and PGlite both build the rows without a round trip per row).
 * A table whose SQL table does not exist yet (services, before that work lands) is skipped and reported.
 * Values are spread like real data (names, e-mail domains, random serial numbers, model names): a
 * search's cost depends on how common its letters are, and identical prefixes on every row would make
 * every search look pathological. Progress is kept in `bench_scale` (rows and the first generated id per
 * table), so a re-run resumes or skips instead of generating again.
 */
export interface ScaleTable {
  name: string;
  /** SQL table that must exist (a migration created it). */
  table: string;
  rows: number;
  /** The table has no `id` column (a link table): nothing else points at its rows. */
  noId?: boolean;
  /** Inserts rows number `from` .. `to` (inclusive, 1-based) of `rows` in all. */
  insert(db: Db, from: number, to: number, rows: number): Promise<void>;
}

const FIRST = ['Anna', 'Erik', 'Maja', 'Lars', 'Sofia', 'Johan', 'Emma', 'Karl', 'Ella', 'Nils', 'Olivia', 'Oscar', 'Alice', 'Hugo', 'Ebba', 'Liam'];
const LAST = [
  'Andersson',
  'Johansson',
  'Karlsson',
  'Nilsson',
  'Eriksson',
  'Larsson',
  'Olsson',
  'Persson',
  'Svensson',
  'Gustafsson',
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Wilson',
  'Evans',
];
const DOMAINS = ['gmail.com', 'outlook.com', 'hotmail.com', 'telia.se', 'icloud.com', 'yahoo.co.uk', 'bredband.net', 'example.com'];
const MODELS = [
  'Domane',
  'Allez',
  'Marlin',
  'Checkpoint',
  'Escape',
  'Topstone',
  'Synapse',
  'Revolt',
  'Kaffenback',
  'Tarmac',
  'Roubaix',
  'Defy',
  'Sirrus',
  'Quick',
  'Trail',
  'Endurace',
  'Grail',
  'Nuroad',
  'Kathmandu',
  'Touring',
  'Urban',
  'Classic',
  'Cargo',
  'Folding',
  'Hybrid',
  'Gravel',
  'City',
  'Sport',
  'Comp',
  'Expert',
  'Elite',
  'Pro',
];
const BRANDS = [
  'Trek',
  'Specialized',
  'Cannondale',
  'Giant',
  'Crescent',
  'Monark',
  'Bianchi',
  'Canyon',
  'Cube',
  'Scott',
  'Brompton',
  'Riese',
  'Kona',
  'Merida',
  'Orbea',
  'Santa Cruz',
];
const STREETS = [
  'Drottninggatan',
  'Götgatan',
  'Odengatan',
  'Strandvägen',
  'Kungsholmsgatan',
  'Hornsgatan',
  'Karlavägen',
  'Sankt Eriksgatan',
  'Sveavägen',
  'Birger Jarlsgatan',
  'Valhallavägen',
  'Fleminggatan',
  'Folkungagatan',
  'Ringvägen',
  'Upplandsgatan',
  'Vasagatan',
  'Hantverkargatan',
  'Torsgatan',
  'Regeringsgatan',
  'Nybrogatan',
  'Linnégatan',
  'Renstiernas gata',
  'Bondegatan',
  'Skånegatan',
];
const NOTES = [
  'Gate code 1234, third floor',
  'Call on arrival',
  'Bicycle in the courtyard',
  'Rear brake squeals',
  'Leave the bicycle by the door',
  'Flat tyre, front',
  'Gears slip under load',
  'Customer works from home',
];
const COMPANIES = ['Nordic Bikes AB', 'Green Commute Ltd', 'Spotify', 'Ericsson', 'Klarna'];
/** Multipliers of the per-attribute hashes (g × m modulo the prime 2^31 − 1): one per attribute, so attributes do not correlate. */
const HASH = [
  2654435761, 1597334677, 2246822519, 3266489917, 668265263, 374761393, 2870177450, 1181783497, 2048144789, 1274126177, 3735928559, 2166136261, 16777619, 1103515245, 2891336453,
];
const sqlArray = (values: readonly string[]) => `array[${values.map((v) => `'${v}'`).join(',')}]`;

/** The first id of a generated table's rows (they are contiguous): bicycles and services point at them. */
async function firstId(db: Db, name: string): Promise<number> {
  const { rows } = await db.query<{ first_id: number }>('select first_id from bench_scale where name = $1', [name]);
  if (!rows[0]) throw new Error(`generate ${name} first`);
  return Number(rows[0].first_id);
}
const firstScaleUser = (db: Db) => firstId(db, 'users');

async function scaleRows(db: Db, name: string): Promise<number> {
  const { rows } = await db.query<{ rows: number }>('select rows from bench_scale where name = $1', [name]);
  if (!rows[0]) throw new Error(`generate ${name} first`);
  return Number(rows[0].rows);
}
const scaleUsers = (db: Db) => scaleRows(db, 'users');

export const SCALE_TABLES: ScaleTable[] = [
  {
    name: 'users',
    table: 'users',
    rows: 1_000_000,
    async insert(db, from, to) {
      await db.query(
        `insert into users (email, first_name, last_name, phone_number, country, language, user_type, account_status, invitation_status, member_since, invited_at, city, post_code)
         select lower((${sqlArray(FIRST)})[1 + g % 16] || '.' || (${sqlArray(LAST)})[1 + (g / 16) % 16]) || g || '@' || (${sqlArray(DOMAINS)})[1 + (g / 256) % 8],
                (${sqlArray(FIRST)})[1 + g % 16], (${sqlArray(LAST)})[1 + (g / 16) % 16],
                '+46 7' || (g % 10) || ' ' || lpad(((g::bigint * 7919) % 10000000)::text, 7, '0'),
                case when g % 3 = 0 then 'gb' else 'se' end, case when g % 3 = 0 then 'en' else 'sv' end,
                (array[1, 1, 1, 2, 4, 5])[1 + g % 6], case when g % 50 = 7 then 'pending' when g % 10 = 0 then 'inactive' else 'active' end,
                case when g % 50 = 7 then 'pending' when g % 5 = 1 then 'accepted' else 'none' end,
                -- Members since up to ~5.5 years before the day of generation (so the dashboard's recent ranges
                -- hold some); invitees who have not accepted yet are not members.
                case when g % 50 <> 7 then now() - ((g::bigint * 1597334677) % 2147483647 % 2000) * interval '1 day' end,
                case when g % 50 = 7 or g % 5 = 1 then now() - ((g::bigint * 374761393) % 2147483647 % 90) * interval '1 day' end,
                'Stockholm', lpad((g % 99999)::text, 5, '0')
         from generate_series($1::int, $2::int) g`,
        [from, to],
      );
    },
  },
  {
    name: 'bicycles',
    table: 'bicycles',
    rows: 1_000_000,
    async insert(db, from, to) {
      const owner = await firstScaleUser(db);
      const { rows: types } = await db.query<{ id: number }>('select id from bicycle_types order by id');
      const typeIds = types.map((t) => Number(t.id));
      await db.query(
        `insert into bicycles (brand_and_model, serial_number, bicycle_type_id, owner_id, groupset, drivetrain, front_brake, lock_model, insurance_company,
                               tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, purchase_value, year, is_active)
         select (${sqlArray(BRANDS)})[1 + g % 16] || ' ' || (${sqlArray(MODELS)})[1 + (g / 16) % 32] || ' ' || (1 + g % 9), upper(substr(md5(g::text), 1, 12)),
                ${typeIds.length ? `(array[${typeIds.join(',')}]::bigint[])[1 + g % ${typeIds.length}]` : 'null'},
                $3::bigint + (g - 1) % $4::int, 'Shimano 105', 'chain', 'disc', 'Abus', (array['Folksam', 'If', 'Trygg-Hansa', 'Länsförsäkringar'])[1 + g % 4],
                '35', '622', (array['presta', 'schrader', 'dunlop'])[1 + g % 3], 'used, good', date '2015-01-01' + (g % 3650), '5000', (2015 + g % 10)::text, g % 7 <> 0
         from generate_series($1::int, $2::int) g`,
        [from, to, owner, await scaleUsers(db)],
      );
    },
  },
  {
    // The Buddy role for one user in `stride` (buddies are users holding it, ADR 009): services are assigned to them.
    name: 'buddies',
    table: 'user_roles',
    rows: 2_000,
    noId: true,
    async insert(db, from, to, rows) {
      const users = await scaleUsers(db);
      await db.query(
        `insert into user_roles (user_id, role_id)
         select $3::bigint + ((g - 1) * ($4::int / $5::int) + 3) % $4::int, (select id from roles where name = 'Buddy')
         from generate_series($1::int, $2::int) g on conflict do nothing`,
        [from, to, await firstScaleUser(db), users, rows],
      );
    },
  },
  {
    // Services over ~2 years around the day of generation: past ones mostly Finished (finished_at set
    // exactly then, the check constraint of migration 007) or cancelled, coming ones Requested or Booked.
    // Each points at a bicycle and that bicycle's owner, at a buddy (a holder of the Buddy role), at an
    // active slot, with an origin type, an address and a point within Stockholm.
    name: 'services',
    table: 'services',
    rows: 2_000_000,
    async insert(db, from, to) {
      const { rows: slots } = await db.query<{ id: number; start_time: string }>('select id, start_time::text as start_time from service_slots where is_active order by id');
      const slotIds = slots.map((s) => Number(s.id));
      const slotStarts = slots.map((s) => `'${s.start_time}'`).join(',');
      const { rows: buddies } = await db.query<{ id: number }>(
        "select ur.user_id as id from user_roles ur join roles r on r.id = ur.role_id where r.name = 'Buddy' order by ur.user_id",
      );
      const buddyIds = buddies.map((b) => Number(b.id));
      if (!buddyIds.length || !slotIds.length) throw new Error('services need buddies and active service slots');
      const { rows: ranges } = await db.query<{ id: number }>('select id from operational_ranges order by id limit 3');
      const rangeIds = ranges.map((r) => Number(r.id));
      const { rows: types } = await db.query<{ id: number }>('select id from service_types order by id limit 4');
      const typeIds = types.map((r) => Number(r.id));
      // h(k): a cheap deterministic hash of the row number, one per attribute so attributes do not correlate.
      const h = (k: number) => `((g::bigint * ${HASH[k]!}) % 2147483647)`;
      await db.query(
        `insert into services (bicycle_id, owner_id, buddy_id, service_slot_id, service_date, service_time, status, origin_type, service_type_id,
                               operational_range_id, address, latitude, longitude, notes, finished_at, created_at, updated_at)
         select b.id, b.owner_id, v.buddy_id, v.slot_id, v.day, v.service_time, v.status, v.origin_type, v.service_type_id, v.range_id,
                v.address, v.latitude, v.longitude, v.notes,
                case when v.status = 4 then (v.day + v.slot_start + interval '1 hour' + (v.h % 180) * interval '1 minute') at time zone 'UTC' end,
                ((v.day - 1 - (v.h % 20)::int) + time '09:00') at time zone 'UTC',
                case when v.status = 4 then (v.day + v.slot_start + interval '1 hour' + (v.h % 180) * interval '1 minute') at time zone 'UTC'
                     else ((v.day - 1 - (v.h % 20)::int) + time '09:00') at time zone 'UTC' end
         from (
           select g, ${h(0)} as h,
                  $3::bigint + ${h(1)} % $4::int as bicycle_id,
                  (array[${buddyIds.join(',')}]::bigint[])[1 + ${h(2)} % ${buddyIds.length}] as buddy_id,
                  (array[${slotIds.join(',')}]::bigint[])[1 + ${h(3)} % ${slotIds.length}] as slot_id,
                  (array[${slotStarts}]::time[])[1 + ${h(3)} % ${slotIds.length}] as slot_start,
                  d.day, d.status,
                  case when ${h(4)} % 10 < 3 then (array[${slotStarts}]::time[])[1 + ${h(3)} % ${slotIds.length}] + (${h(4)} % 6) * interval '30 minutes' end as service_time,
                  case when ${h(5)} % 100 < 40 then 'one_off' when ${h(5)} % 100 < 75 then 'subscriber_' when ${h(5)} % 100 < 85 then 'e_commerce'
                       when ${h(5)} % 100 < 95 then 'b2b' else 'benefit_bike' end as origin_type,
                  ${typeIds.length ? `(array[${typeIds.join(',')}, null]::bigint[])[1 + ${h(6)} % ${typeIds.length + 1}]` : 'null'} as service_type_id,
                  ${rangeIds.length ? `(array[${rangeIds.join(',')}, null]::bigint[])[1 + ${h(7)} % ${rangeIds.length + 1}]` : 'null'} as range_id,
                  (${sqlArray(STREETS)})[1 + ${h(8)} % ${STREETS.length}] || ' ' || (1 + ${h(9)} % 120) || ', Stockholm' as address,
                  59.28 + (${h(10)} % 10000) / 100000.0 as latitude, 17.95 + (${h(11)} % 20000) / 100000.0 as longitude,
                  case when ${h(12)} % 10 = 0 then (${sqlArray(NOTES)})[1 + ${h(12)} / 10 % ${NOTES.length}] end as notes
           from generate_series($1::int, $2::int) g
           cross join lateral (
             select current_date - 640 + (${h(13)} % 730)::int as day) dd
           cross join lateral (
             select dd.day,
                    case when dd.day < current_date then
                           case when ${h(14)} % 100 < 80 then 4 when ${h(14)} % 100 < 87 then 5 when ${h(14)} % 100 < 93 then 3 when ${h(14)} % 100 < 97 then 2 else 1 end
                         else
                           case when ${h(14)} % 100 < 65 then 2 when ${h(14)} % 100 < 92 then 1 when ${h(14)} % 100 < 97 then 5 else 3 end
                    end as status) d
         ) v
         join bicycles b on b.id = v.bicycle_id`,
        [from, to, await firstId(db, 'bicycles'), await scaleRows(db, 'bicycles')],
      );
    },
  },
  {
    // Promo codes (50 on top of the demo's two) and their redemptions, one per user and code.
    name: 'promo_codes',
    table: 'promo_codes',
    rows: 50,
    async insert(db, from, to) {
      await db.query(
        `insert into promo_codes (code, company_name, duration_days, max_uses, uses, discount_percent, starts_at, expires_at)
         select 'BENCH' || lpad(g::text, 3, '0'), case when g % 3 = 0 then (${sqlArray(COMPANIES)})[1 + g % ${COMPANIES.length}] end,
                (array[14, 30, 90])[1 + g % 3], 100000, 0, (array[10, 15, 20, 25, 50])[1 + g % 5],
                current_date - 700 + g * 10, current_date + 30 + g * 5
         from generate_series($1::int, $2::int) g`,
        [from, to],
      );
    },
  },
  {
    name: 'promo_code_uses',
    table: 'promo_code_uses',
    rows: 100_000,
    noId: true,
    async insert(db, from, to) {
      // (code, user) pairs are distinct: 7919 is prime to the user count, so no user repeats below it.
      await db.query(
        `insert into promo_code_uses (promo_code_id, user_id, used_at)
         select $3::bigint + g % $4::int, $5::bigint + (g::bigint * 7919) % $6::int, now() - (g % 700) * interval '1 day'
         from generate_series($1::int, $2::int) g on conflict do nothing`,
        [from, to, await firstId(db, 'promo_codes'), await scaleRows(db, 'promo_codes'), await firstScaleUser(db), await scaleUsers(db)],
      );
    },
  },
  {
    // Subscriptions over two years: every status, persons (one or several bicycles) and companies.
    name: 'subscriptions',
    table: 'subscriptions',
    rows: 200_000,
    async insert(db, from, to) {
      const { rows: plans } = await db.query<{ id: number; slug: string }>('select id, slug from subscription_plans order by id');
      const plan = (slug: string) => Number(plans.find((p) => p.slug === slug)?.id ?? plans[0]?.id);
      if (!plans.length) throw new Error('subscriptions need the demo plans');
      const { rows: companies } = await db.query<{ id: number }>('select id from companies order by id');
      const companyIds = companies.map((c) => Number(c.id));
      const { rows: codes } = await db.query<{ id: number }>('select id from promo_codes order by id');
      const codeIds = codes.map((c) => Number(c.id));
      const h = (k: number) => `((g::bigint * ${HASH[k]!}) % 2147483647)`;
      await db.query(
        `insert into subscriptions (user_id, plan_id, status, current_period_start, current_period_end, cancel_at_period_end, promo_code_id,
                                    currency, amount, bicycles, company_id, canceled_at, created_at, updated_at)
         select v.user_id, v.plan_id, v.status, v.period_start, v.period_start + v.period_days, v.status = 'active' and v.r % 20 = 0,
                ${codeIds.length ? `case when v.r % 10 = 1 then (array[${codeIds.join(',')}]::bigint[])[1 + v.r / 10 % ${codeIds.length}] end` : 'null'},
                case when v.r % 7 = 0 then 'gbp' else 'sek' end, v.amount, v.bicycles, v.company_id,
                case when v.status = 'canceled' then v.created + (v.r % 90) * interval '1 day' end, v.created, v.created
         from (
           select g, ${h(0)} % 1000 as r, $3::bigint + ${h(1)} % $4::int as user_id, p.*, s.status,
                  now() - (${h(3)} % 730) * interval '1 day' - (${h(4)} % 600) * interval '1 minute' as created,
                  case when s.status in ('active', 'past_due', 'trialing') then current_date - (${h(5)} % 28)::int
                       else (now() - (${h(3)} % 730) * interval '1 day')::date end as period_start
           from generate_series($1::int, $2::int) g
           cross join lateral (
             select case when ${h(6)} % 100 < 58 then 'active' when ${h(6)} % 100 < 64 then 'trialing' when ${h(6)} % 100 < 69 then 'past_due'
                         when ${h(6)} % 100 < 94 then 'canceled' else 'incomplete' end as status) s
           cross join lateral (
             select case when ${h(2)} % 100 < 8 then ${plan('business')} when ${h(2)} % 100 < 26 then ${plan('family')}
                         when ${h(2)} % 100 < 36 then ${plan('single-yearly')} else ${plan('single')} end as plan_id,
                    case when ${h(2)} % 100 < 8 then 2 + ${h(7)} % 9 when ${h(2)} % 100 < 26 then 2 + ${h(7)} % 3 else 1 end as bicycles,
                    case when ${h(2)} % 100 < 12 and ${companyIds.length} > 0 then (array[${companyIds.join(',') || 'null'}]::bigint[])[1 + ${h(8)} % ${Math.max(1, companyIds.length)}] end as company_id,
                    case when ${h(2)} % 100 < 8 then 4500 when ${h(2)} % 100 < 26 then 499 when ${h(2)} % 100 < 36 then 1990 else 199 end as amount,
                    case when ${h(2)} % 100 < 8 then 91 when ${h(2)} % 100 < 26 then 30 when ${h(2)} % 100 < 36 then 365 else 30 end as period_days) p
         ) v`,
        [from, to, await firstScaleUser(db), await scaleUsers(db)],
      );
    },
  },
];

export async function tableExists(db: Db, table: string): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>('select to_regclass($1) is not null as ok', [table]);
  return Boolean(rows[0]?.ok);
}

/**
 * Trigram (GIN) indexes are dropped while a table is filled and built again afterwards: maintaining them
 * row by row made generation several times slower (PGlite above all). Their definitions are kept in
 * `bench_scale_indexes` first, so an interrupted run restores them the next time.
 */
async function setAsideGinIndexes(db: Db, table: string): Promise<void> {
  await db.exec('create table if not exists bench_scale_indexes (name text primary key, tablename text not null, definition text not null)');
  const { rows } = await db.query<{ indexname: string; indexdef: string }>("select indexname, indexdef from pg_indexes where tablename = $1 and indexdef ilike '% using gin %'", [
    table,
  ]);
  for (const index of rows) {
    await db.query('insert into bench_scale_indexes (name, tablename, definition) values ($1, $2, $3) on conflict (name) do nothing', [index.indexname, table, index.indexdef]);
    await db.exec(`drop index ${index.indexname}`);
  }
}

async function restoreGinIndexes(db: Db, table: string): Promise<void> {
  if (!(await tableExists(db, 'bench_scale_indexes'))) return;
  const { rows } = await db.query<{ name: string; definition: string }>('select name, definition from bench_scale_indexes where tablename = $1', [table]);
  for (const index of rows) {
    if (!(await tableExists(db, index.name))) await db.exec(index.definition);
    await db.query('delete from bench_scale_indexes where name = $1', [index.name]);
  }
}

export interface GenerateReport {
  table: string;
  rows: number;
  generated: number;
  seconds: number;
  skipped?: string;
}

/** Generates what is missing, in batches; returns what it did per table. */
export async function generateScaleData(db: Db, log: (line: string) => void, counts: Partial<Record<string, number>> = {}, batch = 100_000): Promise<GenerateReport[]> {
  await db.exec('create table if not exists bench_scale (name text primary key, rows integer not null, first_id bigint not null)');
  const reports: GenerateReport[] = [];
  for (const base of SCALE_TABLES) {
    const spec = { ...base, rows: counts[base.name] ?? base.rows };
    if (spec.rows === 0) continue;
    if (!(await tableExists(db, spec.table))) {
      reports.push({ table: spec.name, rows: 0, generated: 0, seconds: 0, skipped: `no ${spec.table} table on this branch yet` });
      continue;
    }
    const { rows } = await db.query<{ rows: number }>('select rows from bench_scale where name = $1', [spec.name]);
    let done = Number(rows[0]?.rows ?? 0);
    const started = performance.now();
    const before = done;
    if (done < spec.rows) await setAsideGinIndexes(db, spec.table);
    while (done < spec.rows) {
      const to = Math.min(spec.rows, done + batch);
      await db.transaction(async (tx) => {
        if (spec.noId) {
          await spec.insert(tx, done + 1, to, spec.rows);
          await tx.query('insert into bench_scale (name, rows, first_id) values ($1, $2, 0) on conflict (name) do update set rows = excluded.rows', [spec.name, to]);
          return;
        }
        const { rows: last } = await tx.query<{ id: number | null }>(`select max(id) as id from ${spec.table}`);
        await spec.insert(tx, done + 1, to, spec.rows);
        const { rows: first } = await tx.query<{ id: number }>(`select min(id) as id from ${spec.table} where id > $1`, [Number(last[0]?.id ?? 0)]);
        await tx.query('insert into bench_scale (name, rows, first_id) values ($1, $2, $3) on conflict (name) do update set rows = excluded.rows', [
          spec.name,
          to,
          Number(first[0]!.id),
        ]);
      });
      done = to;
      log(`  ${spec.name}: ${done.toLocaleString('en')} / ${spec.rows.toLocaleString('en')}`);
    }
    await restoreGinIndexes(db, spec.table);
    // Statistics for the planner, and the visibility map that lets counts use index-only scans.
    if (done > before) await db.exec(`vacuum analyze ${spec.table}`);
    reports.push({ table: spec.name, rows: done, generated: done - before, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) });
  }
  return reports;
}
