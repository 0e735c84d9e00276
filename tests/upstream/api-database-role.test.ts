import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { verifyChain } from '../../upstream/lib/audit.ts';
import { pruneHistory } from '../../upstream/lib/audit-retention.ts';
import { grantApiRole, migrate, migrationsDir } from '../../upstream/migrate.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * The API as a role that does not own the tables (ADR 067), on PostgreSQL: the migrations run as the owner
 * and grant the API's role what it needs (`grantApiRole`, as `npm run migrate` with API_DATABASE_URL does).
 * Connected as that role, the change history cannot be updated, deleted, truncated, nor its triggers dropped
 * or bypassed; the API started on that role still migrates (nothing to do), seeds, writes its history and
 * prunes it (through migration 096's function).
 */
const adminUrl = process.env.TEST_DATABASE_URL;
const key = 'api-role-key-'.padEnd(40, 'x');
const PASSWORD = 'api-role-demo-password';

describe.skipIf(!adminUrl)('the API’s own database role (PostgreSQL)', () => {
  const name = `up_api_role_${process.pid}_${Date.now()}`;
  const role = `bike_api_${process.pid}_${Date.now()}`;
  const rolePassword = `pw-${Date.now()}`;
  let admin: pg.Client;
  let owner: Db;
  let roleUrl: string;
  let up: Awaited<ReturnType<typeof startUpstream>> | undefined;
  let asRole: pg.Client;

  beforeAll(async () => {
    let url: string;
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    owner = await openDatabase({ databaseUrl: url });
    await migrate(owner);
    await grantApiRole(owner, role, rolePassword);
    const u = new URL(url);
    u.username = role;
    u.password = rolePassword;
    roleUrl = u.toString();
    up = await startUpstream({
      databaseUrl: roleUrl,
      seedDemo: true,
      demoPassword: PASSWORD,
      logger: testLogger('api-database-role'),
      backgroundJobs: false,
      config: { auditKey: key, scryptCost: 1024 },
    });
    asRole = new pg.Client({ connectionString: roleUrl });
    await asRole.connect();
  }, 180_000);

  afterAll(async () => {
    await asRole?.end();
    await up?.close();
    await owner?.close();
    await admin?.query(`drop database if exists ${name}`);
    await admin?.query(`drop role if exists ${role}`);
    await admin?.end();
  });

  /** The SQLSTATE a statement run as the API's role fails with (null: it ran). */
  async function refusal(sql: string): Promise<string | null> {
    await asRole.query('begin');
    try {
      await asRole.query(sql);
      return null;
    } catch (error) {
      return (error as { code?: string }).code ?? 'unknown';
    } finally {
      await asRole.query('rollback');
    }
  }

  it('is not the owner: the history is only read and appended, its triggers stay', async () => {
    // A sign-in is an entry of the history (an account event, ADR 038).
    expect((await upstreamCall(up!.url, 'account/login', { body: { email: 'admin@example.com', password: PASSWORD } })).status).toBe(200);
    const { rows } = await asRole.query<{ n: string }>('select count(*) as n from audit_log');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    // 42501: insufficient privilege (refused by the grants, before any trigger runs).
    expect(await refusal("update audit_log set at = at - interval '400 days' where id = 1")).toBe('42501');
    expect(await refusal('delete from audit_log where id = (select max(id) from audit_log)')).toBe('42501');
    expect(await refusal('truncate audit_log')).toBe('42501');
    expect(await refusal('delete from audit_checkpoints')).toBe('42501');
    expect(await refusal("update audit_checkpoints set up_to_hash = 'x'")).toBe('42501');
    expect(await refusal('delete from audit_head')).toBe('42501');
    expect(await refusal('drop trigger audit_log_no_update on audit_log')).toBe('42501');
    expect(await refusal('alter table audit_log disable trigger all')).toBe('42501');
    expect(await refusal('set session_replication_role = replica')).toBe('42501');
    expect(await refusal('drop function audit_prune_to_checkpoint()')).toBe('42501');
    expect(await refusal("insert into schema_migrations (name) values ('999-x.sql')")).toBe('42501');
    expect(await refusal('create table intruder (a int)')).toBe('42501');
  });

  it('runs the app: writes through the API append to the history, and pruning removes the old entries through the owner’s function', async () => {
    const login = await upstreamCall<{ data: { token: string } }>(up!.url, 'account/login', { body: { email: 'admin@example.com', password: PASSWORD } });
    expect(login.status).toBe(200);
    const before = await asRole.query<{ id: string }>('select max(id) as id from audit_log');
    const created = await upstreamCall<{ data: { id: number }; error: unknown }>(up!.url, 'companies/', {
      body: { name: `Role test AB ${Date.now()}` },
      token: login.body.data.token,
    });
    expect(created.body.error).toBeNull();
    const { rows: entries } = await asRole.query<{ entity: string; record_id: string }>('select entity, record_id from audit_log where id > $1', [before.rows[0]!.id]);
    expect(entries.map((e) => [e.entity, Number(e.record_id)])).toContainEqual(['companies', Number(created.body.data.id)]);

    const { rows: counted } = await asRole.query<{ n: string; last: string }>('select count(*) as n, max(id) as last from audit_log');
    const roleDb = await openDatabase({ databaseUrl: roleUrl });
    try {
      // Everything older than a minute from now: all but the newest entry, which pruning always keeps.
      const removed = await pruneHistory(roleDb, key, new Date(Date.now() + 60_000));
      expect(removed).toBe(Number(counted[0]!.n) - 1);
      const { rows: left } = await asRole.query<{ id: string }>('select id from audit_log');
      expect(left.map((r) => Number(r.id))).toEqual([Number(counted[0]!.last)]);
      expect((await verifyChain(roleDb, key)).ok).toBe(true);
    } finally {
      await roleDb.close();
    }
  });

  it('prunes only behind a checkpoint that names the chain: a checkpoint the role writes for another entry removes nothing', async () => {
    await upstreamCall(up!.url, 'account/login', { body: { email: 'admin@example.com', password: PASSWORD } });
    const { rows } = await asRole.query<{ id: string }>('select max(id) as id from audit_log');
    const last = Number(rows[0]!.id);
    await asRole.query('begin');
    try {
      await asRole.query("insert into audit_checkpoints (at, up_to_id, up_to_hash, removed, hash) values (now(), $1, 'not-the-hash', 0, 'x')", [last - 1]);
      await expect(asRole.query('select audit_prune_to_checkpoint()')).rejects.toThrow(/is not the one it names/);
    } finally {
      await asRole.query('rollback');
    }
    const { rows: after } = await asRole.query<{ id: string }>('select max(id) as id from audit_log');
    expect(Number(after[0]!.id)).toBe(last);
  });

  it('cannot migrate: with a migration pending it waits for the owner’s run instead of failing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-api-role-migrations-'));
    try {
      cpSync(migrationsDir(), dir, { recursive: true });
      writeFileSync(join(dir, '999-role-test.sql'), 'create table role_test_later (a int);');
      const roleDb = await openDatabase({ databaseUrl: roleUrl });
      try {
        const warned = new Promise<string>((resolve) => {
          const onWarning = (warning: Error) => {
            if (!warning.message.includes('999-role-test.sql')) return;
            process.off('warning', onWarning);
            resolve(warning.message);
          };
          process.on('warning', onWarning);
        });
        let done = false;
        const waiting = migrate(roleDb, dir, { pollMs: 20 }).then((ran) => {
          done = true;
          return ran;
        });
        // The role's run has seen the pending file, let go of the lock, and waits.
        expect(await warned).toMatch(/may not apply: waiting for npm run migrate/);
        expect(done).toBe(false);
        expect(await migrate(owner, dir, { pollMs: 20 })).toEqual(['999-role-test.sql']);
        expect(await waiting).toEqual([]);
        expect(done).toBe(true);
        const { rows } = await owner.query<{ owner: string }>("select tableowner as owner from pg_tables where tablename = 'role_test_later'");
        expect(rows[0]?.owner).not.toBe(role);
        // A table a later migration adds is the role's to use at once (default privileges), not to own.
        expect((await roleDb.query<{ n: number }>('select count(*)::int as n from role_test_later')).rows[0]!.n).toBe(0);
      } finally {
        await roleDb.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await owner.query('drop table if exists role_test_later');
      await owner.query("delete from schema_migrations where name = '999-role-test.sql'");
    }
  });

  it('is enough for the nightly backup: npm run backup as the API’s role (pg_dump reads every table)', { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-api-role-backup-'));
    try {
      const archive = join(dir, 'role.tar.gz');
      const run = spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', 'scripts', 'backup.ts'), '--out', archive], {
        env: { ...process.env, DATABASE_URL: roleUrl, UPSTREAM_DATA_DIR: '', UPSTREAM_UPLOAD_DIR: join(dir, 'uploads'), AUDIT_KEY: key },
        encoding: 'utf8',
      });
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
      expect(statSync(archive).size).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
