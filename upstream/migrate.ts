import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import type { Db } from './db.ts';

export function migrationsDir(): string {
  return join(projectRoot(import.meta.url), 'upstream', 'migrations');
}

const LOCK = "select pg_advisory_xact_lock(hashtext('schema_migrations'))";

/** Applies the plain SQL files of upstream/migrations in name order, each once, each in a transaction. */
export async function migrate(db: Db, dir = migrationsDir()): Promise<string[]> {
  await db.transaction(async (tx) => {
    // `create table if not exists` is not safe against itself: two instances starting on one empty
    // PostgreSQL both try to create it. The lock makes the second wait and then find the table.
    await tx.query(LOCK);
    await tx.exec('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
  });
  const { rows } = await db.query<{ name: string }>('select name from schema_migrations');
  const alreadyApplied = new Set(rows.map((r) => r.name));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const ran: string[] = [];
  for (const file of files) {
    if (alreadyApplied.has(file)) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
    const applied = await db.transaction(async (tx) => {
      // Two instances starting against one PostgreSQL: the second waits here, then sees the file as applied.
      await tx.query(LOCK);
      const { rows: done } = await tx.query('select 1 from schema_migrations where name = $1', [file]);
      if (done.length > 0) return false;
      await tx.exec(sql);
      await tx.query('insert into schema_migrations (name) values ($1)', [file]);
      return true;
    });
    if (applied) ran.push(file);
  }
  return ran;
}
