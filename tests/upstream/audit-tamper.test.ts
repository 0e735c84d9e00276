import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { openMigrated } from '../support/pglite-template.ts';
import { AUDIT_CHANNEL, chainHead, headHolds, recordChange, verifyChain } from '../../upstream/lib/audit.ts';
import { readHeadFile, witnessHead } from '../../upstream/lib/audit-head.ts';
import { pruneHistory, PruneRefused } from '../../upstream/lib/audit-retention.ts';
import { migrate } from '../../upstream/migrate.ts';
import { pruneAuditHistory, startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';

/**
 * The change history against someone with the API's database access (ADR 059): the API's role cannot
 * rewrite it (triggers, on PGlite and on PostgreSQL), and what an owner does around those triggers — an
 * entry back-dated before a pruning, entries cut from the tail, the head row set back — is named by the
 * verifier, by the pruning (which refuses), and by the head kept outside the database.
 */
const key = 'tamper-key-'.padEnd(40, 'x');
const root = join(import.meta.dirname, '..', '..');
const adminUrl = process.env.TEST_DATABASE_URL;

/** One database per test: each starts from an empty history. */
async function freshPglite(): Promise<{ db: Db; close: () => Promise<void> }> {
  const db = await openMigrated();
  return { db, close: () => db.close() };
}

async function write(db: Db, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await db.transaction((tx) =>
      recordChange(tx, key, { userId: 1, role: 'Admin', address: null, requestId: null, entity: 'assets', recordId: i + 1, action: 'update', changes: { name: [null, `n${i}`] } }),
    );
}

/** As the table's owner or a superuser may: around the history's triggers. */
function aroundTriggers(db: Db, ...statements: string[]) {
  return db.transaction(async (tx) => {
    await tx.query('set local session_replication_role = replica');
    for (const sql of statements) await tx.query(sql);
  });
}

const entryIds = async (db: Db) => (await db.query<{ id: number }>('select id from audit_log order by id')).rows.map((r) => Number(r.id));

describe('the API’s role cannot rewrite the change history (PGlite)', () => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await freshPglite()), 120_000);
  afterAll(() => close?.());

  it('refuses updates, deletes and truncation of entries and checkpoints, and a head set back; pruning still works', async () => {
    await refusesRewrites(db);
  });
});

describe.skipIf(!adminUrl)('the API’s role cannot rewrite the change history (PostgreSQL)', () => {
  const name = `up_audit_tamper_${process.pid}_${Date.now()}`;
  let admin: pg.Client;
  let db: Db;
  beforeAll(async () => {
    let url: string;
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    db = await openDatabase({ databaseUrl: url });
    await migrate(db);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    await admin?.query(`drop database if exists ${name}`);
    await admin?.end();
  });

  it('refuses updates, deletes and truncation of entries and checkpoints, and a head set back; pruning still works', async () => {
    await refusesRewrites(db);
  });
});

async function refusesRewrites(db: Db) {
  await write(db, 5);
  const refused = /append-only/;
  await expect(db.query("update audit_log set at = at - interval '400 days' where id = 3")).rejects.toThrow(refused);
  await expect(db.query('delete from audit_log where id in (4, 5)')).rejects.toThrow(refused);
  await expect(db.query('delete from audit_log')).rejects.toThrow(refused);
  await expect(db.query('truncate audit_log')).rejects.toThrow(refused);
  await expect(db.query('update audit_head set last_id = 3')).rejects.toThrow(refused);
  await expect(db.query('delete from audit_head')).rejects.toThrow(refused);
  // An entry that does not follow the head (an id taken again) is refused too.
  await expect(db.query("insert into audit_log (id, entity, action, hash) values (7, 'assets', 'update', 'x')")).rejects.toThrow(refused);
  expect(await verifyChain(db, key)).toEqual({ ok: true, count: 5 });

  // Pruning removes behind its checkpoint, through the same triggers.
  expect(await pruneHistory(db, key, new Date(Date.now() + 60_000))).toBe(4);
  expect(await entryIds(db)).toEqual([5]);
  await expect(db.query('update audit_checkpoints set removed = 1')).rejects.toThrow(refused);
  await expect(db.query('delete from audit_checkpoints')).rejects.toThrow(refused);
  await write(db, 1);
  expect(await verifyChain(db, key)).toEqual({ ok: true, count: 2, prunedUpTo: 4 });
}

describe('tampering around the triggers shows (ADR 059)', () => {
  let db: Db;
  let close: () => Promise<void>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bo-audit-head-'));
    ({ db, close } = await freshPglite());
  }, 120_000);
  afterAll(async () => {
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });
  /** An empty history for each test (a fresh PGlite's migrations take seconds). */
  const fresh = () => aroundTriggers(db, 'truncate audit_log, audit_checkpoints', 'update audit_head set last_id = 0, last_hash = null');

  it('a back-dated entry pulls nothing into a pruning, and the verifier names it', async () => {
    await fresh();
    await write(db, 12);
    await aroundTriggers(db, "update audit_log set at = at - interval '400 days' where id = 9");
    expect(await pruneHistory(db, key, new Date(Date.now() - 30 * 24 * 3600 * 1000))).toBe(0);
    expect(await entryIds(db)).toHaveLength(12);
    expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 9, reason: 'edited' });
  });

  it('a pruning verifies the entries it removes and refuses an edited run, removing nothing', async () => {
    await fresh();
    await write(db, 6);
    await aroundTriggers(db, `update audit_log set changes = '{"name": [null, "forged"]}' where id = 3`);
    const pruning = pruneHistory(db, key, new Date(Date.now() + 60_000));
    await expect(pruning).rejects.toBeInstanceOf(PruneRefused);
    await expect(pruning).rejects.toMatchObject({ firstBadId: 3, reason: 'edited' });
    expect(await entryIds(db)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await db.query('select * from audit_checkpoints')).rows).toEqual([]);
    expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 3, reason: 'edited' });
  });

  it('the API says a refused pruning at error level, naming the entry', async () => {
    await fresh();
    await write(db, 4);
    await aroundTriggers(db, "update audit_log set at = at - interval '400 days', request_id = 'forged' where id <= 2");
    const said: { level: string; fields: unknown; msg: string }[] = [];
    const log = Object.fromEntries(['info', 'warn', 'error'].map((level) => [level, (fields: unknown, msg: string) => said.push({ level, fields, msg })]));
    await pruneAuditHistory(db, { auditKey: key, auditRetentionDays: 30 }, log as never);
    expect(said).toEqual([
      { level: 'error', fields: { firstBadId: 1, reason: 'edited' }, msg: expect.stringMatching(/^CHANGE HISTORY TAMPERED WITH: .*entry 1 \(edited\).*nothing removed/) },
    ]);
    expect(await entryIds(db)).toEqual([1, 2, 3, 4]);
  });

  it('announces a committed entry with its insert (one statement), and a rolled-back one never (ADR 037)', async () => {
    await fresh();
    const heard: string[] = [];
    const unlisten = await db.listen(AUDIT_CHANNEL, (payload) => heard.push(payload));
    try {
      await expect(
        db.transaction(async (tx) => {
          await recordChange(tx, key, { userId: 1, role: null, address: null, requestId: null, entity: 'assets', recordId: 7, action: 'update', changes: {} });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await write(db, 1);
      await expect.poll(() => heard.length).toBe(1);
      expect(JSON.parse(heard[0]!)).toMatchObject({ id: 1, entity: 'assets', record_id: 1, action: 'update' });
    } finally {
      await unlisten();
    }
  });

  it('prunes a long run in verified chunks, each behind its checkpoint', async () => {
    await fresh();
    await write(db, 9);
    expect(await pruneHistory(db, key, new Date(Date.now() + 60_000), 3)).toBe(8);
    expect((await db.query<{ up_to_id: number }>('select up_to_id from audit_checkpoints order by id')).rows.map((r) => Number(r.up_to_id))).toEqual([3, 6, 8]);
    expect(await verifyChain(db, key)).toEqual({ ok: true, count: 1, prunedUpTo: 8 });
  });

  it('entries cut from the tail show by the head row, and their ids are not taken again', async () => {
    await fresh();
    await write(db, 12);
    await aroundTriggers(db, 'delete from audit_log where id in (11, 12)');
    expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 11, reason: 'removed' });
    await write(db, 1);
    expect(await entryIds(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13]);
    expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 11, reason: 'removed' });
  });

  it('entries cut from the tail with the head row set back show by the signed head kept outside the database', async () => {
    await fresh();
    const file = join(dir, 'cut-audit-head.json');
    await write(db, 12);
    const first = await witnessHead(db, key, file, null);
    expect(first).toMatchObject({ written: { id: 12 } });
    expect(readHeadFile(file)).toEqual((first as { written: unknown }).written);
    const head = readHeadFile(file)!;
    await aroundTriggers(db, 'delete from audit_log where id in (11, 12)');
    await aroundTriggers(db, 'update audit_head set last_id = 10, last_hash = (select hash from audit_log where id = 10)');
    // The database alone cannot tell; the head kept outside it can.
    expect(await verifyChain(db, key)).toEqual({ ok: true, count: 10 });
    expect(await verifyChain(db, key, { head })).toEqual({ ok: false, firstBadId: 11, reason: 'removed' });
    // The witness does not write the lower head over the kept one.
    expect(await witnessHead(db, key, file, null)).toMatchObject({ behind: { kept: { id: 12 }, database: { id: 10 } } });
    expect(readHeadFile(file)).toEqual(head);
    // Writes after the cut take ids 11 and 12 again: not the entries the head names.
    await write(db, 2);
    expect(await chainHead(db)).toMatchObject({ id: 12 });
    expect(await verifyChain(db, key, { head })).toEqual({ ok: false, firstBadId: 12, reason: 'removed' });
    // A head edited without the key is named, not believed.
    expect(await verifyChain(db, key, { head: { ...head, id: 10 } })).toEqual({ ok: false, firstBadId: 10, reason: 'head' });
  });

  it('npm run audit:verify reads the head kept outside the database', { timeout: 180_000 }, async () => {
    const data = join(dir, 'pglite');
    const file = join(dir, 'verify-audit-head.json');
    const disk = await openMigrated(data);
    try {
      await write(disk, 12);
      await witnessHead(disk, key, file, null);
      await aroundTriggers(disk, 'delete from audit_log where id in (11, 12)');
      await aroundTriggers(disk, 'update audit_head set last_id = 10, last_hash = (select hash from audit_log where id = 10)');
    } finally {
      await disk.close();
    }
    const run = (headFile: string) =>
      spawnSync(process.execPath, [join(root, 'scripts', 'audit-verify.ts')], {
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: '', UPSTREAM_DATA_DIR: data, AUDIT_KEY: key, AUDIT_HEAD_FILE: headFile },
      });
    const cut = run(file);
    expect(cut.stdout).toBe('BROKEN: entry 11 was removed\n');
    expect(cut.status).toBe(1);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"id":12', '"id":10'));
    const forged = run(file);
    expect(forged.stdout).toBe("BROKEN: the chain's head does not hold at entry 10 (a signed head forged, or the head row set back around its triggers)\n");
    expect(forged.status).toBe(1);
  });
});

describe('the API writes its signed head outside the database (ADR 059)', () => {
  it('at start, every interval when it moved, and at close: to AUDIT_HEAD_FILE and to the log', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-audit-head-api-'));
    const file = join(dir, 'head.json');
    const lines: string[] = [];
    const up = await startUpstream({
      port: 0,
      seedDemo: false,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
      config: { scryptCost: 1024, auditKey: key, auditHeadFile: file, auditHeadIntervalMs: 50 },
    });
    try {
      expect(readHeadFile(file)).toMatchObject({ id: 0, hash: null });
      await write(up.db, 3);
      await expect.poll(() => readHeadFile(file)?.id, { timeout: 60_000 }).toBe(3);
      await write(up.db, 1);
    } finally {
      await up.close();
    }
    // The last head, written at close whatever the interval, holds under the key and names the newest entry.
    const head = readHeadFile(file)!;
    expect(head.id).toBe(4);
    expect(headHolds(key, head)).toBe(true);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; auditHead?: unknown }).filter((l) => l.msg === 'change history head');
    expect(logged.at(-1)!.auditHead).toEqual(head);
    rmSync(dir, { recursive: true, force: true });
  });
});
