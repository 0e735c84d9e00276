import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { migrate } from '../../upstream/migrate.ts';
import { createTestDatabase } from '../support/postgres.ts';

/**
 * The migration runner's migrations outside a transaction (ADR 060): an index built `concurrently`, a failed
 * build's INVALID index dropped and built again on the next run, and on PostgreSQL what it is for: writes go on
 * while the index is built, two runners at once, a migration that gives up waiting for a lock and tries again.
 * Each case has migrations and tables of its own names, in a folder of its own.
 */
const adminUrl = process.env.TEST_DATABASE_URL;
const OUTSIDE = '-- migrate: no-transaction\n';
const folders: string[] = [];
let serial = 0;

/** A folder with the migrations `files` (names prefixed with the case's own, so cases share one database). */
function folder(files: Record<string, string>): { dir: string; names: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  folders.push(dir);
  const prefix = `m${process.pid}_${++serial}`;
  const names = Object.entries(files).map(([name, sql]) => {
    writeFileSync(join(dir, `${prefix}-${name}.sql`), sql);
    return `${prefix}-${name}.sql`;
  });
  return { dir, names };
}

const unique = (base: string) => `${base}_${process.pid}_${++serial}`;
const isValid = async (db: Db, index: string) => (await db.query<{ v: boolean }>('select indisvalid as v from pg_index where indexrelid = to_regclass($1)', [index])).rows[0]?.v;
const applied = async (db: Db, names: string[]) =>
  (await db.query<{ name: string }>('select name from schema_migrations where name = any($1::text[]) order by name', [names])).rows.map((r) => r.name);

afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function runnerCases(kind: 'pglite' | 'postgres', database: () => Db) {
  it(`${kind}: builds an index concurrently from a no-transaction migration of several statements, once`, async () => {
    const db = database();
    const t = unique('mig_rows');
    const { dir, names } = folder({
      '001-table': `create table ${t} (id bigint primary key, v int); insert into ${t} select g, g % 7 from generate_series(1, 500) g;`,
      '002-index': `${OUTSIDE}-- ${t}'s v; a comment; with semicolons\ncreate index concurrently if not exists ${t}_v_idx on ${t} (v);\nanalyze ${t};`,
    });
    expect(await migrate(db, dir)).toEqual(names);
    expect(await isValid(db, `${t}_v_idx`)).toBe(true);
    expect(await migrate(db, dir)).toEqual([]);
    expect(await applied(db, names)).toEqual(names);
  });

  it(`${kind}: a failed concurrent build leaves an INVALID index; the next run drops it and builds it again`, async () => {
    const db = database();
    const t = unique('mig_dupes');
    const { dir, names } = folder({
      '001-table': `create table ${t} (id bigint primary key, v int); insert into ${t} values (1, 1), (2, 1), (3, 2);`,
      '002-unique': `${OUTSIDE}create unique index concurrently if not exists ${t}_v_key on ${t} (v);`,
    });
    await expect(migrate(db, dir)).rejects.toThrow(new RegExp(`migration ${names[1]} failed: could not create unique index`));
    // What PostgreSQL leaves behind: the index under its name, never valid; `if not exists` alone would keep it.
    expect(await isValid(db, `${t}_v_key`)).toBe(false);
    expect(await applied(db, names)).toEqual([names[0]]);

    await db.query(`delete from ${t} where id = 2`);
    expect(await migrate(db, dir)).toEqual([names[1]]);
    expect(await isValid(db, `${t}_v_key`)).toBe(true);
    await expect(db.query(`insert into ${t} values (4, 1)`)).rejects.toThrow(/duplicate key/);
  });

  it(`${kind}: a statement that refuses a transaction, in a file without the marker, fails naming the marker`, async () => {
    const db = database();
    const t = unique('mig_marker');
    const { dir, names } = folder({ '001-table': `create table ${t} (v int);`, '002-index': `create index concurrently if not exists ${t}_v_idx on ${t} (v);` });
    await expect(migrate(db, dir)).rejects.toThrow(/-- migrate: no-transaction/);
    expect(await applied(db, names)).toEqual([names[0]]);
  });
}

describe('migrations outside a transaction on PGlite', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase();
  }, 120_000);
  afterAll(async () => db?.close());
  runnerCases('pglite', () => db);
});

describe.skipIf(!adminUrl)('migrations outside a transaction on PostgreSQL', () => {
  const name = `bo_migrate_${process.pid}_${Date.now()}`;
  let admin: pg.Client;
  let url: string;
  let db: Db;
  const clients: pg.Client[] = [];
  /** A connection of the test's own (another instance's request, a long transaction). */
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    db = await openDatabase({ databaseUrl: url });
  });
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await db?.close();
    await admin?.query(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });

  runnerCases('postgres', () => db);

  /** Resolves once a session runs `pattern` and waits for a lock. */
  async function waitingOn(pattern: string): Promise<void> {
    for (;;) {
      const { rows } = await db.query("select 1 from pg_stat_activity where query ilike $1 and wait_event_type = 'Lock'", [`%${pattern}%`]);
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('writes go on while an index is built concurrently; the plain build makes them wait', async () => {
    const t = unique('mig_writes');
    const { dir: tableDir } = folder({
      '001-table': `create table ${t} (id bigint generated always as identity, v int); insert into ${t} (v) select g from generate_series(1, 500) g;`,
    });
    await migrate(db, tableDir);
    const writer = await connect();
    const other = await connect();
    await other.query("set lock_timeout = '1s'");
    for (const [form, sql] of [
      ['concurrently', `${OUTSIDE}create index concurrently if not exists ${t}_c_idx on ${t} (v);`],
      ['plain', `create index ${t}_p_idx on ${t} (v);`],
    ] as const) {
      // A request's transaction that wrote to the table and has not ended: each build waits for it.
      await writer.query(`begin; insert into ${t} (v) values (0)`);
      const { dir } = folder({ [`002-${form}`]: sql });
      const running = migrate(db, dir, { lockTimeoutMs: 60_000 });
      await waitingOn(`${t}_${form[0]}_idx`);
      // Meanwhile another request writes (lock_timeout: it would wait 1 s, then fail).
      const write = other.query(`insert into ${t} (v) values (1)`).then(
        () => 'written',
        (error: { code?: string }) => error.code,
      );
      expect(await write, form).toBe(form === 'concurrently' ? 'written' : '55P03');
      await writer.query('commit');
      await running;
      expect(await isValid(db, `${t}_${form[0]}_idx`)).toBe(true);
    }
  });

  it('two runners at once, one file built concurrently: each file runs once, neither waits on the other forever', async () => {
    const t = unique('mig_two');
    const { dir, names } = folder({
      '001-table': `create table ${t} (id bigint primary key, v int); insert into ${t} select g, g from generate_series(1, 2000) g;`,
      '002-index': `${OUTSIDE}create index concurrently if not exists ${t}_v_idx on ${t} (v);`,
      '003-column': `alter table ${t} add column note text;`,
    });
    const second = await openDatabase({ databaseUrl: url });
    try {
      const [a, b] = await Promise.all([migrate(db, dir, { pollMs: 20 }), migrate(second, dir, { pollMs: 20 })]);
      expect([...a, ...b].sort()).toEqual(names);
      expect(await applied(db, names)).toEqual(names);
      expect(await isValid(db, `${t}_v_idx`)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('a migration that waits for a lock past lock_timeout is rolled back and tried again, and fails after its attempts', async () => {
    const t = unique('mig_wait');
    const { dir: tableDir } = folder({ '001-table': `create table ${t} (id bigint primary key);` });
    await migrate(db, tableDir);
    const reader = await connect();
    // A long read: `alter table` needs the table to itself and waits for it.
    await reader.query(`begin; select * from ${t}`);
    const { dir, names } = folder({ '002-column': `alter table ${t} add column note text;` });
    await expect(migrate(db, dir, { lockTimeoutMs: 100, attempts: 2, retryWaitMs: 10 })).rejects.toMatchObject({
      code: '55P03',
      message: expect.stringContaining(`migration ${names[0]} failed`),
    });
    expect(await applied(db, names)).toEqual([]);

    // Tried again once the read has ended (ended when the runner says it gives up the first time).
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if (!warning.message.includes(names[0]!)) return;
      warnings.push(warning.message);
      if (warnings.length === 1) void reader.query('commit');
    };
    process.on('warning', onWarning);
    try {
      expect(await migrate(db, dir, { lockTimeoutMs: 100, attempts: 6, retryWaitMs: 200 })).toEqual(names);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings[0]).toContain(`${names[0]} waited 100 ms for a lock`);
    expect(await applied(db, names)).toEqual(names);
  });
});
