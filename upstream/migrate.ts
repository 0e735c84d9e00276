import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import type { Db } from './db.ts';
import { NO_TRANSACTION_MARKER, runsOutsideTransaction, splitStatements, type SqlStatement } from './lib/sql-statements.ts';

export function migrationsDir(): string {
  return join(projectRoot(import.meta.url), 'upstream', 'migrations');
}

export interface MigrateOptions {
  /**
   * How long a statement of a migration run in a transaction waits for a table's lock before the migration is
   * rolled back and tried again (ADR 060). While an `alter table` waits behind a long query, every other query of
   * that table waits behind the `alter table`: a short wait, given up, keeps that queue short.
   */
  lockTimeoutMs?: number;
  /** Attempts of such a migration before the run fails (the waits between them double from `retryWaitMs`). */
  attempts?: number;
  retryWaitMs?: number;
  /** How often a runner waiting for another one's run asks again. */
  pollMs?: number;
}

const DEFAULTS: Required<MigrateOptions> = { lockTimeoutMs: 3000, attempts: 5, retryWaitMs: 1000, pollMs: 250 };
const LOCK_KEY = "hashtext('schema_migrations')";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Applies the plain SQL files of upstream/migrations in name order, each once: each in a transaction, or, when
 * its first line is `-- migrate: no-transaction`, statement by statement outside one (an index built
 * `concurrently`, ADR 060). One runner at a time: on one connection of its own, holding a session advisory lock.
 */
export async function migrate(db: Db, dir = migrationsDir(), options: MigrateOptions = {}): Promise<string[]> {
  const settings = { ...DEFAULTS, ...options };
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return db.session(async (conn) => {
    await takeLock(conn, settings.pollMs);
    let locked = true;
    const unlock = async () => {
      if (locked) await conn.query(`select pg_advisory_unlock(${LOCK_KEY})`).catch(() => undefined);
      locked = false;
    };
    try {
      // Only when missing: `create table if not exists` needs the right to create in the schema even when the
      // table is there, which the API's own role (not the owner, ADR 067) does not have.
      const { rows: known } = await conn.query<{ t: string | null }>("select to_regclass('schema_migrations')::text as t");
      if (!known[0]?.t) {
        if (!(await mayMigrate(conn))) {
          await unlock();
          process.emitWarning(`migrate: the database has no tables yet, and this role may not create them: waiting for npm run migrate as the tables' owner`);
          await waitForMigrations(conn, files, settings.pollMs * 4);
          return [];
        }
        await conn.exec('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
      }
      const { rows } = await conn.query<{ name: string }>('select name from schema_migrations');
      const alreadyApplied = new Set(rows.map((r) => r.name));
      const pending = files.filter((f) => !alreadyApplied.has(f));
      if (pending.length > 0 && !(await mayMigrate(conn))) {
        // The API's own role (ADR 067): the owner's `npm run migrate` applies them; wait for it, without the lock.
        await unlock();
        process.emitWarning(`migrate: ${pending.length} migration(s) pending (${pending[0]}…), which this role may not apply: waiting for npm run migrate as the tables' owner`);
        await waitForMigrations(conn, pending, settings.pollMs * 4);
        return [];
      }
      const ran: string[] = [];
      for (const file of files) {
        if (alreadyApplied.has(file)) continue;
        const sql = readFileSync(join(dir, file), 'utf8');
        try {
          if (runsOutsideTransaction(sql)) await applyOutsideTransaction(conn, file, sql);
          else await applyInTransaction(conn, file, sql, settings);
        } catch (error) {
          throw failure(file, error);
        }
        ran.push(file);
      }
      return ran;
    } finally {
      await unlock();
    }
  });
}

/**
 * Asked again and again rather than waited for: a session waiting in `pg_advisory_lock` holds a snapshot, and an
 * index built `concurrently` by the runner holding the lock waits for every older snapshot to end — each would
 * wait for the other (PostgreSQL then cancels one of them as a deadlock).
 */
async function takeLock(conn: Db, pollMs: number): Promise<void> {
  for (;;) {
    const { rows } = await conn.query<{ ok: boolean }>(`select pg_try_advisory_lock(${LOCK_KEY}) as ok`);
    if (rows[0]?.ok) return;
    await sleep(pollMs);
  }
}

/** Whether this connection's role may create in the schema: the tables' owner may, the API's own role (ADR 067) not. */
async function mayMigrate(conn: Db): Promise<boolean> {
  const { rows } = await conn.query<{ ok: boolean }>("select has_schema_privilege(current_user, 'public', 'create') as ok");
  return rows[0]?.ok !== false;
}

async function waitForMigrations(conn: Db, pending: readonly string[], pollMs: number): Promise<void> {
  for (;;) {
    const { rows: table } = await conn.query<{ t: string | null }>("select to_regclass('schema_migrations')::text as t");
    if (!table[0]?.t) {
      await sleep(pollMs);
      continue;
    }
    // Not granted yet (the owner's run grants the API's role after migrating): ask again.
    const rows = await conn
      .query<{ n: number | string }>('select count(*) as n from schema_migrations where name = any($1::text[])', [pending])
      .then((r) => r.rows)
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === '42501') return [{ n: -1 }];
        throw error;
      });
    if (Number(rows[0]!.n) === pending.length) return;
    await sleep(pollMs);
  }
}

/** A role name as PostgreSQL quotes it: the API's role comes from configuration, not from a user. */
const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The API's own role (ADR 067): where the migrations run as the tables' owner and the API connects as another
 * role, that role gets what the API does and no more — reads and writes of the app's tables, but of the change
 * history only reads and appends: no update, delete or truncate of `audit_log` and `audit_checkpoints` (pruning
 * goes through `audit_prune_to_checkpoint()`, migration 096, which runs as the owner and checks what it
 * removes), no delete of `audit_head` (its update, the chain's lock, is kept forward-only by its trigger), and
 * only reads of `schema_migrations`. Not the owner, it cannot drop or disable the history's triggers either.
 * Run after every migration (`npm run migrate` with API_DATABASE_URL); the tables and sequences a later migration
 * of this role creates are also granted by default privileges, so a running API (and the nightly `pg_dump`) can
 * read them before the next grant. Creates the role (LOGIN, with `password`) when it does not exist, which needs CREATEROLE; an
 * existing role's password is left as it is.
 */
export async function grantApiRole(db: Db, role: string, password?: string): Promise<void> {
  const r = quoteIdent(role);
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ owner: boolean; exists: boolean }>('select exists (select 1 from pg_roles where rolname = $1) as exists, $1 = current_user as owner', [role]);
    if (rows[0]!.owner) throw new Error(`the API's role ${role} is the role the migrations run as: give the API a role of its own (ADR 067)`);
    if (!rows[0]!.exists) {
      if (password === undefined) throw new Error(`the API's role ${role} does not exist`);
      // The password as a literal (a role's password cannot be a parameter); quote_literal does the quoting.
      const { rows: lit } = await tx.query<{ p: string }>('select quote_literal($1::text) as p', [password]);
      await tx.exec(`create role ${r} login password ${lit[0]!.p}`);
    }
    const { rows: owned } = await tx.query<{ n: number | string }>(
      "select count(*) as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and pg_get_userbyid(c.relowner) = $1",
      [role],
    );
    if (Number(owned[0]!.n) > 0) throw new Error(`the API's role ${role} owns tables of the schema: the migrations' role must own them (ADR 067)`);
    await tx.exec(`
      grant usage on schema public to ${r};
      revoke create on schema public from ${r};
      grant select, insert, update, delete on all tables in schema public to ${r};
      revoke truncate, references, trigger on all tables in schema public from ${r};
      revoke update, delete on audit_log, audit_checkpoints from ${r};
      revoke delete on audit_head from ${r};
      revoke insert, update, delete on schema_migrations from ${r};
      grant usage, select on all sequences in schema public to ${r};
      grant execute on function audit_prune_to_checkpoint() to ${r};
      alter default privileges in schema public grant select, insert, update, delete on tables to ${r};
      alter default privileges in schema public grant usage, select on sequences to ${r};
    `);
  });
}

/** 55P03: a lock not obtained within `lock_timeout`. */
const isLockTimeout = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

async function applyInTransaction(conn: Db, file: string, sql: string, settings: Required<MigrateOptions>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await conn.transaction(async (tx) => {
        await tx.exec(`set local lock_timeout = ${Math.max(0, Math.floor(settings.lockTimeoutMs))}`);
        await tx.exec(sql);
        await tx.query('insert into schema_migrations (name) values ($1)', [file]);
      });
      return;
    } catch (error) {
      if (!isLockTimeout(error) || attempt >= settings.attempts) throw error;
      process.emitWarning(`migrate: ${file} waited ${settings.lockTimeoutMs} ms for a lock; rolled back, trying again (${attempt + 1} of ${settings.attempts})`);
      await sleep(settings.retryWaitMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * Each statement on its own (PostgreSQL runs the statements of one query string in one transaction). A failed
 * `create index concurrently` leaves an INVALID index under its name, which `if not exists` would then take as
 * built: before the file runs (again), such an index of one of its statements is dropped, so it is built anew.
 * The file is recorded once every statement has run; they must be safe to run again (`if not exists`).
 */
async function applyOutsideTransaction(conn: Db, file: string, sql: string): Promise<void> {
  const statements = splitStatements(sql);
  for (const name of await invalidIndexes(conn, statements)) {
    process.emitWarning(`migrate: ${file}: the index ${name} was left invalid by a build that failed; dropping it to build it again`);
    await conn.exec(`drop index concurrently if exists ${name}`);
  }
  for (const statement of statements) await conn.exec(statement.text);
  await conn.query('insert into schema_migrations (name) values ($1)', [file]);
}

/** The indexes the statements build concurrently that exist but are not valid (a failed build). */
async function invalidIndexes(conn: Db, statements: readonly SqlStatement[]): Promise<string[]> {
  const names = statements.flatMap((s) => /^create (?:unique )?index concurrently (?:if not exists )?([a-z_][\w$.]*)/.exec(s.words)?.[1] ?? []);
  if (names.length === 0) return [];
  const { rows } = await conn.query<{ name: string }>(`select n as name from unnest($1::text[]) n join pg_index i on i.indexrelid = to_regclass(n) where not i.indisvalid`, [
    names,
  ]);
  return rows.map((r) => r.name);
}

/** The error of a failed migration, naming its file (and the marker, for a statement that refuses a transaction). */
function failure(file: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const hint = /cannot run inside a transaction block/i.test(message) ? ` (start the file with the line "${NO_TRANSACTION_MARKER}", ADR 060)` : '';
  const code = (error as { code?: unknown } | null)?.code;
  return Object.assign(new Error(`migration ${file} failed: ${message}${hint}`, { cause: error }), code === undefined ? {} : { code });
}
