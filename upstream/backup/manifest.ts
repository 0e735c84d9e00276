import type { Db } from '../db.ts';

/** What an archive says about itself (ADR 057): `manifest.json`, its first entry. */
/** What the manifest's reads need: a database, a transaction, or a pg client in the dump's snapshot. */
export type Queryable = Pick<Db, 'query'>;

export const ARCHIVE_FORMAT = 'bike-backoffice-backup';
export const ARCHIVE_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';
export const CHECKSUMS_ENTRY = 'uploads.sha256';
export const UPLOADS_PREFIX = 'uploads/';
export const DATABASE_ENTRY = { postgres: 'database.pgdump', pglite: 'database.pglite.tar' } as const;

/** The database as one snapshot saw it: read in the same snapshot as the dump, so the counts are the dump's. */
export interface DatabaseState {
  /** The last file of upstream/migrations applied, and how many were. */
  lastMigration: string | null;
  migrations: number;
  /** Every table of the schema `public` with its rows. */
  tables: Record<string, number>;
  /** The change history's newest entry (ADR 035): what a restored chain must end with. */
  auditChainHead: { id: number; hash: string } | null;
  /** Keys of the uploads stored (their file written) as of the snapshot. */
  uploadKeys: string[];
  serverVersion: string;
}

export interface Manifest extends Omit<DatabaseState, 'uploadKeys'> {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  createdAt: string;
  database: { kind: Db['kind']; entry: string };
  /** Files of the upload store in the archive (`uploads/<key>`), and the stored uploads whose file was gone. */
  uploads: { count: number; bytes: number; missing: string[] };
}

/** Tables of `public`, by name. */
export async function publicTables(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1",
  );
  return rows.map((r) => r.name);
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Rows of each table, counted exactly. */
export async function countRows(db: Queryable, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await db.query<{ n: number | string }>(`select count(*) as n from public.${quoteIdent(table)}`);
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

async function exists(db: Queryable, table: string): Promise<boolean> {
  const { rows } = await db.query<{ name: string | null }>('select to_regclass($1)::text as name', [`public.${table}`]);
  return Boolean(rows[0]?.name);
}

/** Reads the state a manifest records; `db` must be the snapshot (a repeatable-read transaction, or PGlite between statements). */
export async function readDatabaseState(db: Queryable): Promise<DatabaseState> {
  const tables = await countRows(db, await publicTables(db));
  const migrations = (await exists(db, 'schema_migrations')) ? (await db.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name) : [];
  const head = (await exists(db, 'audit_log'))
    ? (await db.query<{ id: number | string; hash: string }>('select id, hash from audit_log order by id desc limit 1')).rows[0]
    : undefined;
  const uploadKeys = (await exists(db, 'uploads'))
    ? (await db.query<{ key: string }>('select key from uploads where uploaded_at is not null order by key')).rows.map((r) => r.key)
    : [];
  const { rows: version } = await db.query<{ v: string }>("select current_setting('server_version') as v");
  return {
    lastMigration: migrations.at(-1) ?? null,
    migrations: migrations.length,
    tables,
    auditChainHead: head ? { id: Number(head.id), hash: head.hash } : null,
    uploadKeys,
    serverVersion: version[0]!.v,
  };
}

/** Why a manifest cannot be restored by this version, or null. */
export function manifestProblem(value: unknown): string | null {
  const m = value as Partial<Manifest> | null;
  if (!m || typeof m !== 'object' || m.format !== ARCHIVE_FORMAT) return 'it is not a backup of this application (its manifest is missing or of another format)';
  if (m.version !== ARCHIVE_VERSION) return `its format version ${String(m.version)} is not one this version reads (${ARCHIVE_VERSION})`;
  if (!m.database || !(m.database.kind in DATABASE_ENTRY) || typeof m.tables !== 'object' || !m.uploads) return 'its manifest is incomplete';
  return null;
}

/** Differences between the rows a manifest recorded and those of a restored database, one line each. */
export function countDifferences(expected: Record<string, number>, actual: Record<string, number>): string[] {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  return names.flatMap((name) => {
    if (!(name in actual)) return [`${name}: missing (expected ${expected[name]} rows)`];
    if (!(name in expected)) return [`${name}: not in the backup (${actual[name]} rows)`];
    return expected[name] === actual[name] ? [] : [`${name}: ${actual[name]} rows, expected ${expected[name]}`];
  });
}
