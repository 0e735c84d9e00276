import fc from 'fast-check';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { compactTallies } from '../../upstream/dashboard-tallies.ts';
import { adminDashboard, buddyDashboard, statistics } from '../../upstream/resources/dashboard.ts';
import { migrate, migrationsDir } from '../../upstream/migrate.ts';
import {
  applyWrite,
  applyWrites,
  createFixtures,
  expectTalliesMatchRecount,
  writeArb,
  writesArb,
  type Fixtures,
  type Write,
  type WriteTally,
} from '../support/dashboard-writes.ts';

/**
 * ADR 025: the dashboard's counters are kept current by the database's triggers, and must equal a recount
 * from the tables (ADR 016's definitions, upstream/resources/dashboard-recount.ts) after any writes — on
 * PGlite always, and on PostgreSQL when TEST_DATABASE_URL is set (each run makes its own databases).
 */
const adminUrl = process.env.TEST_DATABASE_URL;
const TALLIES_MIGRATION = '080-dashboard-tallies.sql';

interface Backend {
  name: string;
  runs: number;
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

function pgliteBackend(): Backend {
  return { name: 'PGlite', runs: 30, open: () => openDatabase(), cleanup: async () => undefined };
}

function postgresBackend(url: string): Backend {
  const admin = new pg.Client({ connectionString: url });
  const created: string[] = [];
  let connected: Promise<void> | undefined;
  return {
    name: 'PostgreSQL',
    runs: 20,
    async open() {
      connected ??= admin.connect().then(() => undefined);
      await connected;
      const name = `tally_${process.pid}_${Date.now()}_${created.length}`;
      await admin.query(`create database ${name}`);
      created.push(name);
      const dbUrl = new URL(url);
      dbUrl.pathname = `/${name}`;
      return openDatabase({ databaseUrl: dbUrl.toString() });
    },
    async cleanup() {
      if (!connected) return;
      for (const name of created) {
        // A closed pool's connections can take a moment to leave; forcing them out would surface as an
        // unhandled error of that (already closed) pool.
        for (let tries = 0; tries < 50; tries++) {
          const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await admin.query(`drop database if exists ${name}`);
      }
      await admin.end();
    },
  };
}

const ROLLBACK = new Error('roll back this run');
/** Runs `fn` in a transaction that is always rolled back, so every property run starts from the same rows. */
async function rolledBack(db: Db, fn: (tx: Db) => Promise<void>) {
  await db
    .transaction(async (tx) => {
      await fn(tx);
      throw ROLLBACK;
    })
    .catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
}

/** The migrations directory as it was before the tallies: a database that has data when 080 arrives. */
function migrationsBeforeTallies(): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-before-tallies-'));
  for (const file of readdirSync(migrationsDir())) if (file.endsWith('.sql') && file < TALLIES_MIGRATION) copyFileSync(join(migrationsDir(), file), join(dir, file));
  return dir;
}

const applied = (...writes: Write[]) => writes.map((write) => ({ write, undone: false }));
const user = (active: boolean, member: { day: number; second: number } | null = null) =>
  ({ kind: 'addUser', active, status: 'active', invitation: 'accepted', type: 4, member }) as const;
const service = (status: number, day: number, buddy = 0, finished = { day: 0, second: 43_200 }) =>
  ({ kind: 'addService', status, day, buddy, origin: 'one_off', finished }) as const;
const subscription = (user: number, status: 'active' | 'trialing') =>
  ({ kind: 'addSubscription', status, company: false, bicycles: 1, user, created: { day: 0, second: 0 } }) as const;

/** Hand-picked sequences the random ones reach only by luck: each names the change it covers. Rows are picked by position (0 is the fixtures' user). */
const SCENARIOS: { write: Write; undone: boolean }[][] = [
  // A buddy's role moved to Admin and back, their state flipped both ways, the role renamed and back.
  applied(
    { kind: 'grantRole', user: 0, role: 'Buddy' },
    { kind: 'changeRole', user: 0, from: 'Buddy', to: 'Admin' },
    { kind: 'changeRole', user: 0, from: 'Admin', to: 'Buddy' },
    { kind: 'updateUser', pick: 0, set: { active: false } },
    { kind: 'updateUser', pick: 0, set: { active: true, status: 'inactive' } },
    { kind: 'updateUser', pick: 0, set: { status: 'active' } },
    { kind: 'renameBuddyRole' },
    { kind: 'renameBuddyRole' },
    { kind: 'toggleActiveAndRevoke', user: 0 },
  ),
  // A buddy with a promo-code use deleted: their roles and uses go with them.
  applied(user(true), { kind: 'grantRole', user: 1, role: 'Buddy' }, { kind: 'addPromoUse', code: 0, user: 1 }, { kind: 'deleteUser', pick: 1 }),
  // Services moved across today, finished at a day's last second, reopened, given to another buddy.
  applied(
    user(true),
    service(2, 0),
    service(2, -1),
    service(4, -3, 0, { day: -29, second: 0 }),
    { kind: 'shiftServices', mod: 1, rem: 0, days: 1 },
    { kind: 'shiftServices', mod: 1, rem: 0, days: -2 },
    { kind: 'finishBooked', mod: 1, rem: 0, finished: { day: 0, second: 86_399 } },
    { kind: 'reopenFinished', mod: 2, rem: 0 },
    { kind: 'updateService', pick: 0, set: { buddy: 1 } },
    { kind: 'updateService', pick: 2, set: { finished: { day: -30, second: 86_399 } } },
    { kind: 'updateService', pick: 1, set: { status: 4, day: 5 } },
    { kind: 'deleteService', pick: 0 },
  ),
  // Subscriptions: two of one user, cancelled, moved to another user, paid by a company and back.
  applied(
    user(true),
    subscription(0, 'active'),
    subscription(0, 'trialing'),
    { kind: 'updateSubscription', pick: 0, set: { status: 'canceled' } },
    { kind: 'updateSubscription', pick: 1, set: { user: 1 } },
    { kind: 'updateSubscription', pick: 0, set: { company: true, status: 'active' } },
    { kind: 'updateSubscription', pick: 0, set: { company: false, bicycles: 3 } },
    { kind: 'deleteSubscription', pick: 1 },
  ),
  // Members on both sides of the 30-day edge and of a month's first day, then moved.
  applied(
    user(true, { day: -29, second: 0 }),
    user(true, { day: -30, second: 86_399 }),
    user(false, { day: -365, second: 0 }),
    { kind: 'updateUser', pick: 1, set: { member: { day: 0, second: 0 } } },
    { kind: 'updateUser', pick: 2, set: { member: null } },
  ),
  // Trial groups ending today, yesterday, never; changed; truncated.
  applied(
    { kind: 'addTrialGroup', end: 0 },
    { kind: 'addTrialGroup', end: -1 },
    { kind: 'addTrialGroup', end: null },
    { kind: 'updateTrialGroup', pick: 0, end: -1 },
    { kind: 'updateTrialGroup', pick: 1, end: null },
    { kind: 'truncate', table: 'trial_groups' },
  ),
];

const backends = [pgliteBackend(), ...(adminUrl ? [postgresBackend(adminUrl)] : [])];

for (const backend of backends) {
  describe(`dashboard tallies on ${backend.name} (ADR 025)`, () => {
    let db: Db;
    let fixtures: Fixtures;
    const opened: Db[] = [];
    const open = async () => {
      const next = await backend.open();
      opened.push(next);
      return next;
    };

    beforeAll(async () => {
      db = await open();
      await migrate(db);
      fixtures = await createFixtures(db);
    });
    afterAll(async () => {
      for (const each of opened) await each.close();
      await backend.cleanup();
    });

    it('equal a recount after any sequence of inserts, updates, deletes, role and state changes, before and after compaction', async () => {
      const tally: WriteTally = new Map();
      await fc.assert(
        fc.asyncProperty(writesArb(40), async (writes) => {
          await rolledBack(db, async (tx) => {
            await applyWrites(tx, fixtures, writes, tally);
            // Seen today, tomorrow and in a week: the per-day buckets hold what "today" later means.
            await expectTalliesMatchRecount(tx, [0, 1, 8]);
            await tx.query('select dashboard_compact()');
            expect(Number((await tx.query<{ n: number }>('select count(*) as n from dashboard_tally_deltas')).rows[0]!.n)).toBe(0);
            await expectTalliesMatchRecount(tx, [0]);
          });
        }),
        { numRuns: backend.runs },
      );
      // The writes did happen: every kind was tried and applied (deleting a user is often refused, rightly:
      // they still have services, subscriptions or bicycles).
      expect(tally.size).toBeGreaterThanOrEqual(20);
      for (const [kind, { applied, refused }] of tally) if (kind !== 'deleteUser') expect(applied, `${kind}: ${refused.slice(0, 3).join(' | ')}`).toBeGreaterThan(0);
    }, 240_000);

    it('equal a recount after each write of hand-picked scenarios (role moves, renames, dates across today and month edges, moves between users and buddies)', async () => {
      for (const scenario of SCENARIOS) {
        await rolledBack(db, async (tx) => {
          for (const [i, step] of scenario.entries()) {
            await applyWrites(tx, fixtures, [step]);
            await expectTalliesMatchRecount(tx, i === scenario.length - 1 ? [0, 1, 31] : [0]).catch((error: unknown) => {
              throw new Error(`after ${JSON.stringify(scenario.slice(0, i + 1).map((s) => s.write))}: ${String(error)}`);
            });
          }
        });
      }
    }, 120_000);

    it('are all a dashboard or statistics request reads: never the tables they count', async () => {
      const statements: string[] = [];
      const recording: Db = { ...db, query: (sql, params) => (statements.push(sql), db.query(sql, params)) };
      const { rows } = await db.query<{ id: number }>('select min(id) as id from users');
      await adminDashboard(recording, new Date());
      await buddyDashboard(recording, Number(rows[0]!.id), new Date());
      await statistics(recording, new Date());
      expect(statements.length).toBeGreaterThan(0);
      for (const sql of statements) expect(sql.match(/\b(from|join)\s+(\w+)/gi)?.map((m) => m.split(/\s+/).pop())).toEqual(['dashboard_tally_rows']);
    });

    it('backfills the tallies from the rows a database already holds when the migration runs', async () => {
      const before = migrationsBeforeTallies();
      try {
        await fc.assert(
          fc.asyncProperty(writesArb(60), async (writes) => {
            const fresh = await open();
            await migrate(fresh, before);
            const freshFixtures = await createFixtures(fresh);
            await fresh.transaction((tx) => applyWrites(tx, freshFixtures, writes));
            expect(await migrate(fresh)).toEqual([
              TALLIES_MIGRATION,
              ...readdirSync(migrationsDir())
                .filter((f) => f.endsWith('.sql') && f > TALLIES_MIGRATION)
                .sort(),
            ]);
            await expectTalliesMatchRecount(fresh, [0, 1]);
          }),
          { numRuns: 2 },
        );
      } finally {
        rmSync(before, { recursive: true, force: true });
      }
    }, 240_000);

    it.skipIf(backend.name !== 'PostgreSQL')(
      'stays exact with writers on many connections at once, compaction running among them',
      async () => {
        const writers = Array.from({ length: 6 }, () => fc.sample(writeArb, 60));
        // Races on the same few users: their state and their Buddy role, changed at the same moment.
        const { rows } = await db.query<{ id: number }>("insert into users (email) select 'race' || g || '-' || $1 || '@test.example' from generate_series(1, 3) g returning id", [
          process.pid,
        ]);
        const racers = rows.map((r) => Number(r.id));
        // And TRUNCATE, which recounts its table, against compaction folding that table's deltas.
        const truncations = [
          `insert into promo_code_uses (promo_code_id, user_id) select ${fixtures.promoCodes[1]}, id from users on conflict do nothing`,
          "insert into trial_groups (name) select 'Race ' || g || ' ' || random() from generate_series(1, 3) g",
          'truncate promo_code_uses',
          'truncate trial_groups cascade',
        ];
        const race = racers.flatMap((id) => [
          `update users set is_active = not is_active where id = ${id}`,
          `insert into user_roles (user_id, role_id) select ${id}, id from roles where name = 'Buddy' on conflict do nothing`,
          `delete from user_roles where user_id = ${id} and role_id = (select id from roles where name = 'Buddy')`,
          `update users set account_status = case account_status when 'active' then 'inactive' else 'active' end where id = ${id}`,
        ]);
        let writing = true;
        const compactor = (async () => {
          while (writing) {
            await compactTallies(db);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        })();
        const results = await Promise.all([
          ...writers.map(async (writes) => {
            let applied = 0;
            for (const write of writes) if (await applyWrite(db, fixtures, write)) applied += 1;
            return applied;
          }),
          ...[race, race, race, truncations, truncations].map(async (statements) => {
            let applied = 0;
            for (let i = 0; i < 40; i++)
              if (
                await db.query(statements[Math.floor(Math.random() * statements.length)]!).then(
                  () => true,
                  () => false,
                )
              )
                applied += 1;
            return applied;
          }),
        ]);
        writing = false;
        await compactor;
        expect(results.reduce((a, b) => a + b, 0)).toBeGreaterThan(200);
        await expectTalliesMatchRecount(db, [0, 1]);
        // The writers renamed the Buddy role an odd or even number of times: the tests after this one find it by name.
        await db.query("update roles set name = 'Buddy' where name = 'Buddy (renamed)'");
      },
      120_000,
    );

    it.skipIf(backend.name !== 'PostgreSQL')('recounts by hand (`select dashboard_rebuild()`) exactly while a writer is mid-transaction: the recount waits for it', async () => {
      const { rows } = await db.query<{ name: string }>('select current_database() as name');
      const url = new URL(adminUrl!);
      url.pathname = `/${rows[0]!.name}`;
      const [writer, rebuilder] = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })];
      await Promise.all([writer.connect(), rebuilder.connect()]);
      try {
        await writer.query('begin');
        await writer.query(
          `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, origin_type, latitude, longitude)
           values (current_date, $1, 2, $2, $3, 'one_off', 59.33, 18.06)`,
          [fixtures.slot, fixtures.owner, fixtures.bicycle],
        );
        let rebuilt = false;
        const rebuild = rebuilder.query('select dashboard_rebuild()').then(() => (rebuilt = true));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(rebuilt).toBe(false);
        await writer.query('commit');
        await rebuild;
      } finally {
        await Promise.all([writer.end(), rebuilder.end()]);
      }
      await expectTalliesMatchRecount(db, [0]);
    });

    it.skipIf(backend.name !== 'PostgreSQL')('recounts a TRUNCATEd table exactly while a compaction of its deltas is in flight', async () => {
      const { rows } = await db.query<{ name: string }>('select current_database() as name');
      const url = new URL(adminUrl!);
      url.pathname = `/${rows[0]!.name}`;
      const [compactor, truncator] = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })];
      await Promise.all([compactor.connect(), truncator.connect()]);
      try {
        // Uses whose deltas are not folded yet, under a key the folded tallies do not hold (a TRUNCATE removed it).
        await db.query('truncate promo_code_uses');
        await db.query('insert into promo_code_uses (promo_code_id, user_id) select $1, id from users on conflict do nothing', [fixtures.promoCodes[0]]);
        // A compaction folds them and has not committed yet when the table is truncated.
        await compactor.query('begin');
        await compactor.query('select dashboard_compact()');
        const truncated = truncator.query('truncate promo_code_uses');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await compactor.query('commit');
        await truncated;
      } finally {
        await Promise.all([compactor.end(), truncator.end()]);
      }
      await compactTallies(db);
      await expectTalliesMatchRecount(db, [0]);
    });

    it.skipIf(backend.name !== 'PostgreSQL')('counts a Buddy role granted while the role is being renamed away from Buddy, and back', async () => {
      const { rows } = await db.query<{ name: string }>('select current_database() as name');
      const url = new URL(adminUrl!);
      url.pathname = `/${rows[0]!.name}`;
      const { rows: people } = await db.query<{ id: number }>(
        "insert into users (email) select 'renamed' || g || '-' || $1 || '@test.example' from generate_series(1, 2) g returning id",
        [process.pid],
      );
      const buddyRole = Number((await db.query<{ id: number }>("select id from roles where name = 'Buddy'")).rows[0]!.id);
      const [renamer, granter] = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })];
      await Promise.all([renamer.connect(), granter.connect()]);
      const grantWhileRenaming = async (userId: number, newName: string) => {
        await renamer.query('begin');
        await renamer.query('update roles set name = $2 where id = $1', [buddyRole, newName]);
        const granted = granter.query('insert into user_roles (user_id, role_id) values ($1, $2)', [userId, buddyRole]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await renamer.query('commit');
        await granted;
        await expectTalliesMatchRecount(db, [0]);
      };
      try {
        await grantWhileRenaming(Number(people[0]!.id), 'Buddy (renamed)');
        await grantWhileRenaming(Number(people[1]!.id), 'Buddy');
      } finally {
        await db.query("update roles set name = 'Buddy' where id = $1", [buddyRole]);
        await Promise.all([renamer.end(), granter.end()]);
      }
    });

    it.skipIf(backend.name !== 'PostgreSQL')(
      'keeps no counter row that one writer holds while another waits (no hot row)',
      async () => {
        const { rows } = await db.query<{ name: string }>('select current_database() as name');
        const url = new URL(adminUrl!);
        url.pathname = `/${rows[0]!.name}`;
        const [first, second] = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })];
        await Promise.all([first.connect(), second.connect()]);
        const writeEverything = async (client: pg.Client, n: number) => {
          const { rows: service } = await client.query(
            `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, origin_type, latitude, longitude)
           values (current_date, $1, 2, $2, $3, 'one_off', 59.33, 18.06) returning id`,
            [fixtures.slot, fixtures.owner, fixtures.bicycle],
          );
          await client.query('update services set status = 4, finished_at = now() where id = $1', [service[0].id]);
          const { rows: user } = await client.query('insert into users (email, member_since) values ($1, now()) returning id', [`hot-${n}-${process.pid}@test.example`]);
          await client.query(
            "insert into subscriptions (user_id, plan_id, status, current_period_start, current_period_end, amount) values ($1, $2, 'active', current_date, current_date + 30, 99)",
            [user[0].id, fixtures.plan],
          );
          await client.query('insert into promo_code_uses (promo_code_id, user_id) values ($1, $2)', [fixtures.promoCodes[0], user[0].id]);
          await client.query('insert into trial_groups (name, end_date) values ($1, current_date)', [`Hot ${n} ${process.pid}`]);
        };
        try {
          // The first writer books and finishes a service today for a buddy, adds a member, a subscription,
          // a promo-code use and a trial group, and keeps its transaction open…
          await first.query('begin');
          await writeEverything(first, 1);
          // …while the second does the same for the same buddy, day and counters: none of it may wait.
          await second.query("set lock_timeout = '2s'");
          await writeEverything(second, 2);
          await second.query('select dashboard_compact()');
          await first.query('commit');
        } finally {
          await Promise.all([first.end(), second.end()]);
        }
        await expectTalliesMatchRecount(db, [0]);
      },
      60_000,
    );
  });
}
