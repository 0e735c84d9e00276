import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../upstream/lib/audit.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';

/**
 * What PGlite cannot show, because it runs one statement at a time: races on a real PostgreSQL.
 * `.ci/run` starts a server and sets TEST_DATABASE_URL (an admin connection); each run gets its own database.
 */
const adminUrl = process.env.TEST_DATABASE_URL;
type Upstream = Awaited<ReturnType<typeof startUpstream>>;

describe.skipIf(!adminUrl)('reference API on PostgreSQL under concurrency', () => {
  const name = `up_race_${process.pid}_${Date.now()}`;
  let uploads: string | undefined;
  // Both instances store files in one throw-away directory, as instances behind one object store would.
  const uploadDir = () => (uploads ??= mkdtempSync(join(tmpdir(), 'bo-race-uploads-')));
  let admin: pg.Client;
  let instances: Upstream[] = [];

  beforeAll(async () => {
    let url: string;
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    const options = {
      port: 0,
      databaseUrl: url,
      seedDemo: true,
      demoPassword: 'race-password',
      logger: testLogger('upstream-race'),
      config: { scryptCost: 1024, jwtSecret: 'race-secret-race-secret-race-secret!', uploadDir: uploadDir() },
    };
    // Two instances migrating and seeding one empty database at the same moment.
    const started = await Promise.allSettled([startUpstream(options), startUpstream(options)]);
    instances = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    for (const r of started) if (r.status === 'rejected') throw r.reason;
  });
  afterAll(async () => {
    await Promise.all(instances.map((up) => up.close()));
    rmSync(uploadDir(), { recursive: true, force: true });
    await admin?.query(`drop database if exists ${name}`);
    await admin?.end();
  });

  const post = async (up: Upstream, path: string, body: unknown, token?: string, init: { method?: string; ip?: string } = {}) => {
    const res = await fetch(up.url + path, {
      method: init.method ?? 'POST',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(init.ip ? { 'x-forwarded-for': init.ip, 'x-forwarded-secret': up.config.forwardedSecret! } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { success: boolean; data: any; error: any } };
  };

  it('applies each migration once and seeds once', async () => {
    expect(instances).toHaveLength(2);
    const db = instances[0]!.db;
    const migrations = (await db.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name);
    expect(migrations).toEqual([...new Set(migrations)]);
    expect((await db.query<{ n: number }>("select count(*)::int as n from users where email = 'admin@example.com'")).rows[0]!.n).toBe(1);
  });

  it('gives every instance refreshing the same token at once the same new pair', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const first = (await post(a, 'account/login', { email: 'buddy@example.com', password: 'race-password' })).body.data;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 ? a : b, 'account/refresh-token', { refresh_token: first.refresh_token })));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((r) => r.body.data.refresh_token)).size).toBe(1);
    expect((await post(b, 'account/refresh-token', { refresh_token: answers[0]!.body.data.refresh_token })).status).toBe(200);
  });

  it('lets exactly one of several simultaneous invites of one address succeed', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const token = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(i % 2 ? a : b, 'users/invite/', { email: 'twice@example.com' }, token)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.body.error?.message === 'user_exists')).toHaveLength(5);
  });

  it('lets simultaneous wrong passwords from one address, over both instances, past the free allowance only (ADR 018)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(i % 2 ? a : b, 'account/login', { email: 'shop@example.com', password: 'wrong' }, undefined, { ip: '192.0.2.77' })),
    );
    expect(answers.filter((r) => r.status === 400)).toHaveLength(5);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(7);
    // Another address is not slowed by any of it.
    expect((await post(a, 'account/login', { email: 'shop@example.com', password: 'race-password' }, undefined, { ip: '192.0.2.78' })).status).toBe(200);
  });

  it('lets two Admins removing each other at once leave one Admin (ADR 018)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const first = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const invited = await post(a, 'users/invite/', { email: 'second.admin@example.com', roles: ['Admin'] }, first);
    const { rows } = await a.db.query<{ link: string }>("select link from outbox where to_email = 'second.admin@example.com' order by id desc limit 1");
    const token = rows[0]!.link.split('/').pop();
    expect((await post(b, 'account/accept-invite', { token, password: 'second-pass', password_confirm: 'second-pass' })).status).toBe(200);
    const second = (await post(b, 'account/login', { email: 'second.admin@example.com', password: 'second-pass' })).body.data.token;
    const adminId = (await a.db.query<{ id: number }>("select id from users where email = 'admin@example.com'")).rows[0]!.id;
    try {
      const answers = await Promise.all([
        post(a, `users/${invited.body.data.id}/roles/Admin/`, undefined, first, { method: 'DELETE' }),
        post(b, `users/${adminId}/roles/Admin/`, undefined, second, { method: 'DELETE' }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const { rows: admins } = await a.db.query<{ n: number }>("select count(*)::int as n from user_roles ur join roles r on r.id = ur.role_id where r.name = 'Admin'");
      expect(admins[0]!.n).toBe(1);
    } finally {
      // The tests after this one sign in as admin@example.com.
      await a.db.query("insert into user_roles (user_id, role_id) select $1, id from roles where name = 'Admin' on conflict do nothing", [adminId]);
    }
  });

  it('lets exactly one of many simultaneous bookings across instances take the last place in a slot (ADR 010)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const token = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const buddy = (await a.db.query<{ id: number }>("select id from users where email = 'buddy@example.com'")).rows[0]!.id;
    // One place left for the day: the second service of a day whose limit is 2, in two slots.
    for (const slot of [1, 2]) {
      expect((await post(a, 'buddy-work-slots/', { buddy_id: buddy, service_date: '2098-03-03', service_slot_id: slot, max_services_per_day: 2 }, token)).status).toBe(201);
    }
    const booking = (slot: number) => ({
      buddy_id: buddy,
      bicycle_id: 1,
      service_slot_id: slot,
      service_date: '2098-03-03',
      status: 2,
      origin_type: 'one_off',
      latitude: 59.33258,
      longitude: 18.0649,
    });
    expect((await post(a, 'services/', booking(1), token)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 ? a : b, 'services/', booking(1 + (i % 2)), token)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.body.error?.message === 'day_full')).toHaveLength(7);
    const { rows } = await a.db.query<{ n: number }>("select count(*)::int as n from services where buddy_id = $1 and service_date = '2098-03-03'", [buddy]);
    expect(rows[0]!.n).toBe(2);
  });

  it('refunds a paid period once when admins on two instances cancel it at the same moment (issue 12 H2)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const token = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const { rows } = await a.db.query<{ id: number }>(
      `insert into subscriptions (plan_id, user_id, status, current_period_start, current_period_end, amount, currency)
       values (1, (select id from users where email = 'user@example.com'), 'active', current_date - 3, current_date + 27, 199, 'sek') returning id`,
    );
    const id = rows[0]!.id;
    await a.db.query(
      `insert into subscription_payments (subscription_id, period_start, period_end, amount_minor, currency, source) values ($1, current_date - 3, current_date + 27, 19900, 'sek', 'provider')`,
      [id],
    );
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => post(i % 2 ? a : b, `subscriptions/${id}/cancel/`, {}, token)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((r) => r.body.data.refund !== null)).toHaveLength(1);
    // And activate/cancel raced against each other never refund more than was paid.
    await Promise.all(Array.from({ length: 10 }, (_, i) => post(i % 2 ? a : b, `subscriptions/${id}/${i % 3 ? 'activate' : 'cancel'}/`, {}, token)));
    const { rows: refunds } = await a.db.query<{ n: number; total: number }>(
      'select count(*)::int as n, coalesce(sum(amount_minor), 0)::int as total from subscription_refunds where subscription_id = $1',
      [id],
    );
    expect(refunds[0]!.n).toBe(1);
    expect(refunds[0]!.total).toBeLessThanOrEqual(19_900);
  });

  it('lets exactly one of several simultaneous PUTs to one signed address store its file, across instances (issue 12 L4)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const token = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const signed = (await (await fetch(`${a.url}upload/?kind=bicycle&content_type=image%2Fpng`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      data: { url: string; key: string };
    };
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 3)]);
    const target = new URL(signed.data.url);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).origin}${target.pathname}${target.search}`, {
          method: 'PUT',
          body: new Uint8Array(png),
          headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(403)]);
    const { rows } = await a.db.query<{ used: boolean }>('select used_at is not null and uploaded_at is not null as used from uploads where key = $1', [signed.data.key]);
    expect(rows[0]!.used).toBe(true);
  });

  it('chains the change history of writers on both instances at once in one unbroken order (ADR 035)', async () => {
    const [a, b] = instances as [Upstream, Upstream];
    const token = (await post(a, 'account/login', { email: 'admin@example.com', password: 'race-password' })).body.data.token;
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i % 2 ? a : b, 'assets/', { name: `Race van ${i}`, asset_type: 'van', status: 1 }, token)));
    expect(created.map((r) => r.status)).toEqual(Array(12).fill(201));
    const edited = await Promise.all(
      created.map((r, i) => post(i % 2 ? b : a, `assets/${r.body.data.id}/`, { version: r.body.data.version, notes: `edited ${i}` }, token, { method: 'PATCH' })),
    );
    expect(edited.map((r) => r.status)).toEqual(Array(12).fill(200));
    const { rows } = await a.db.query<{ n: number }>("select count(*)::int as n from audit_log where entity = 'assets' and record_id = any($1)", [
      created.map((r) => r.body.data.id),
    ]);
    expect(rows[0]!.n).toBe(24);
    // Both instances found the same generated key (kept in the database, as the JWT secret would be).
    expect(a.config.auditKey).toBe(b.config.auditKey);
    expect(await verifyChain(a.db, a.config.auditKey)).toMatchObject({ ok: true });
  });

  it('keeps serving when PostgreSQL ends its idle connections (a restart or failover), instead of crashing', async () => {
    const up = instances[0]!;
    // Fill the pool with idle connections, then have the server end them all.
    await Promise.all(Array.from({ length: 5 }, () => up.db.query('select pg_sleep(0.05)')));
    const { rows } = await admin.query('select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    expect(rows.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await fetch(up.origin + '/healthz');
    expect(res.status).toBe(200);
    // The next queries get fresh connections.
    expect((await up.db.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
    expect((await post(up, 'account/forgot-password', { email: 'nobody-idle@example.com' })).status).toBeLessThan(500);
  });
});
