import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { compactTallies } from '../../upstream/dashboard-tallies.ts';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { publicTables } from '../../upstream/backup/manifest.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * `npm run backup` and `npm run restore` (ADR 057): a running API is backed up, more is written, and the archive
 * restored into an empty database and upload store holds exactly what was there at the backup — every table's
 * rows, every upload's bytes — with a change history that `npm run audit:verify` still proves; a target that
 * holds data is refused. On embedded PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
const root = join(import.meta.dirname, '..', '..');
const ADMIN_URL = process.env.TEST_DATABASE_URL;
const AUDIT_KEY = 'backup-test-audit-key-that-is-long-enough';
const PNG = (fill: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(300, fill)]);
const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A script of scripts/ as npm runs it, on the data named by `env` alone (none of the runner's own database variables). */
async function script(name: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = { ...process.env, DATABASE_URL: '', UPSTREAM_DATA_DIR: '', UPSTREAM_UPLOAD_DIR: '', AUDIT_KEY, ...env };
  try {
    const { stdout, stderr } = await run(process.execPath, [join(root, 'scripts', `${name}.ts`), ...args], { env: base, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Every row of every table, as text in a fixed order: what two databases must agree on. */
async function contents(db: Db): Promise<Record<string, string>> {
  const all: Record<string, string> = {};
  for (const table of await publicTables(db)) {
    const { rows } = await db.query<{ rows: string }>(`select coalesce(json_agg(t order by t::text), '[]'::json)::text as rows from public."${table}" t`);
    all[table] = rows[0]!.rows;
  }
  return all;
}

interface Place {
  /** The variables that name it for the scripts. */
  env: Record<string, string>;
  open: () => Promise<Db>;
  uploadDir: string;
}

/** A fresh place for data: a PGlite directory, or a new database on the test server; its upload store beside. */
async function freshPlace(kind: 'pglite' | 'postgres', dir: string, name: string): Promise<Place> {
  const uploadDir = join(dir, `${name}-uploads`);
  if (kind === 'pglite') {
    const dataDir = join(dir, `${name}-pglite`);
    return { env: { UPSTREAM_DATA_DIR: dataDir, UPSTREAM_UPLOAD_DIR: uploadDir }, open: () => openDatabase({ dataDir }), uploadDir };
  }
  const db = `backup_${name}_${process.pid}_${Date.now()}`;
  const { admin, url } = await createTestDatabase(ADMIN_URL!, db);
  cleanups.push(async () => {
    await admin.query(`drop database if exists ${db} with (force)`);
    await admin.end();
  });
  return { env: { DATABASE_URL: url, UPSTREAM_UPLOAD_DIR: uploadDir }, open: () => openDatabase({ databaseUrl: url }), uploadDir };
}

const kinds = ['pglite', ...(ADMIN_URL ? ['postgres' as const] : [])] as const;

describe.each(kinds)('backup and restore (%s)', (kind) => {
  it('backs up a running API; the restore holds every row and file of that moment, audit:verify holds, and a non-empty target is refused', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-backup-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const source = await freshPlace(kind, dir, 'source');
    const up = await startUpstream({
      port: 0,
      ...(kind === 'pglite' ? { dataDir: source.env.UPSTREAM_DATA_DIR } : { databaseUrl: source.env.DATABASE_URL }),
      seedDemo: true,
      demoPassword: DEMO_PASSWORD,
      logger: testLogger(`upstream-backup-${kind}`),
      config: { scryptCost: 1024, auditKey: AUDIT_KEY, uploadDir: source.uploadDir },
    });
    cleanups.push(() => up.close());
    const login = await fetch(up.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(up.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const company = async (name: string) => expect((await call('POST', 'companies/', { name })).status).toBe(201);
    const upload = async (bytes: Buffer): Promise<string> => {
      const signed = (await (await call('GET', 'upload/?kind=company_logo&content_type=image%2Fpng')).json()) as { data: { url: string; access_url: string } };
      expect((await fetch(signed.data.url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } })).status).toBe(200);
      return signed.data.access_url.replace(/^.*\/files\//, '');
    };

    const unique = `${kind}-${Date.now()}`;
    await company(`Before ${unique}`);
    const kept = await upload(PNG(1));
    await compactTallies(up.db);
    const before = await contents(up.db);
    const archive = join(dir, 'archive.tar.gz');
    const backup = await script('backup', ['--out', archive], source.env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain('1 uploads');

    // Written after the backup: in the source only.
    await company(`After ${unique}`);
    const later = await upload(PNG(2));

    const target = await freshPlace(kind, dir, 'target');
    const restore = await script('restore', [archive], target.env);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toContain('restore: ok');
    const restored = await target.open();
    try {
      expect(await contents(restored)).toEqual(before);
      const names = (await restored.query<{ name: string }>('select name from companies where name like $1', [`%${unique}`])).rows.map((r) => r.name);
      expect(names).toEqual([`Before ${unique}`]);
    } finally {
      await restored.close();
    }
    expect(readFileSync(join(target.uploadDir, kept))).toEqual(PNG(1));
    expect(readdirSync(join(target.uploadDir, 'company_logo'))).toEqual([kept.split('/')[1]]);
    expect(readFileSync(join(source.uploadDir, later))).toEqual(PNG(2));

    const verify = await script('audit-verify', [], target.env);
    expect(verify.stdout, verify.stderr).toMatch(/^ok: \d+ entries, the chain holds\n$/);
    expect(verify.code).toBe(0);

    const again = await script('restore', [archive], target.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('refusing to restore over existing data');
    const intoRunning = await script('restore', [archive], source.env);
    expect(intoRunning.code).toBe(1);
    expect(intoRunning.stderr).toMatch(kind === 'pglite' ? /an API is running on/ : /refusing to restore over existing data/);
  });
});

describe('restore refuses what it cannot restore', () => {
  it('names a missing archive and one that is not a backup, without a stack trace', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-backup-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env = { UPSTREAM_DATA_DIR: join(dir, 'pglite'), UPSTREAM_UPLOAD_DIR: join(dir, 'uploads') };
    const missing = await script('restore', [join(dir, 'nothing.tar.gz')], env);
    expect(missing).toMatchObject({ code: 1, stderr: `restore: ${join(dir, 'nothing.tar.gz')} does not exist\n` });
    const notBackup = join(dir, 'notes.tar.gz');
    writeFileSync(notBackup, 'not an archive');
    const refused = await script('restore', [notBackup], env);
    expect(refused).toMatchObject({
      code: 1,
      stderr: `restore: ${notBackup} cannot be restored: it is not a backup of this application (its manifest is missing or of another format)\n`,
    });
    const usage = await script('restore', [], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run restore -- <archive> [--force]');
  });
});
