import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import pg from 'pg';
import { openDatabase, type Db } from '../db.ts';
import { uploadPath, type DataLocation } from './backup.ts';
import { heldByRunningApi } from './control.ts';
import { CHECKSUMS_ENTRY, MANIFEST_ENTRY, UPLOADS_PREFIX, countDifferences, countRows, manifestProblem, publicTables, type Manifest, type Queryable } from './manifest.ts';
import { findPgTool, pgConnection, runPgTool } from './pg-tools.ts';
import { entryBytes, readTar, type TarEntry } from './tar.ts';

/** A restore refused or failed for a reason the operator can act on; the command prints its message alone. */
export class RestoreError extends Error {}

async function isEmptyDir(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
  return names.length === 0;
}

async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pgQueryable = (client: pg.Client): Queryable => ({ query: async (sql, params) => ({ rows: (await client.query(sql, params as unknown[])).rows }) });

/**
 * Refuses a target that holds data (a database with tables, an upload store with files) unless `force`, and an
 * embedded directory its API holds in any case; with `force`, empties them. Checked before anything is written.
 */
async function prepareTargets(target: DataLocation, force: boolean): Promise<void> {
  const full: string[] = [];
  if (target.databaseUrl) {
    const tables = await withPg(target.databaseUrl, async (client) => publicTables(pgQueryable(client)));
    if (tables.length > 0) full.push(`the database holds ${tables.length} tables`);
  } else {
    if (await heldByRunningApi(target.dataDir!))
      throw new RestoreError(`an API is running on ${target.dataDir}: stop it first (PGlite opens a directory from one process at a time)`);
    if (!(await isEmptyDir(target.dataDir!))) full.push(`${target.dataDir} is not empty`);
  }
  if (!(await isEmptyDir(target.uploadDir))) full.push(`the upload store ${target.uploadDir} is not empty`);
  if (full.length > 0 && !force)
    throw new RestoreError(`refusing to restore over existing data: ${full.join('; ')}. Restore into an empty database and upload store, or pass --force to replace them.`);
  if (full.length === 0) return;
  if (target.databaseUrl) await withPg(target.databaseUrl, (client) => client.query('drop schema public cascade; create schema public'));
  else await rm(target.dataDir!, { recursive: true, force: true });
  await rm(target.uploadDir, { recursive: true, force: true });
}

async function restoreDatabase(entry: TarEntry, target: DataLocation): Promise<Db> {
  if (target.databaseUrl) {
    // pg_restore reads a file (the custom format seeks); it is written where nobody else can read it, and removed.
    const dir = await mkdtemp(join(tmpdir(), 'bike-restore-'));
    const file = join(dir, 'database.pgdump');
    try {
      await pipeline(Readable.from(entry.body), createWriteStream(file, { mode: 0o600 }));
      const { dbname, env } = pgConnection(target.databaseUrl);
      await runPgTool(findPgTool('pg_restore'), ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${dbname}`, file], env);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return openDatabase({ databaseUrl: target.databaseUrl });
  }
  const tar = await entryBytes(entry);
  return openDatabase({ dataDir: target.dataDir, loadDataDir: new Blob([new Uint8Array(tar)]) });
}

async function restoreUploads(next: () => Promise<TarEntry | undefined>, uploadDir: string): Promise<{ sums: Map<string, string>; checksums: string }> {
  const sums = new Map<string, string>();
  await mkdir(uploadDir, { recursive: true });
  for (let entry = await next(); entry; entry = await next()) {
    if (entry.name === CHECKSUMS_ENTRY) return { sums, checksums: (await entryBytes(entry)).toString('utf8') };
    if (!entry.name.startsWith(UPLOADS_PREFIX)) throw new RestoreError(`the archive holds an unexpected entry ${entry.name}`);
    const key = entry.name.slice(UPLOADS_PREFIX.length);
    const path = uploadPath(uploadDir, key);
    await mkdir(dirname(path), { recursive: true });
    const hash = createHash('sha256');
    const hashed = (async function* () {
      for await (const part of entry.body) {
        hash.update(part);
        yield part;
      }
    })();
    await pipeline(Readable.from(hashed), createWriteStream(path, { mode: 0o644 }));
    sums.set(key, hash.digest('hex'));
  }
  throw new RestoreError('the archive ends before its upload checksums: it is incomplete');
}

/** What the restored data does not match of the manifest and the checksums, one line each. */
async function verify(db: Db, manifest: Manifest, sums: Map<string, string>, checksums: string): Promise<string[]> {
  const problems = countDifferences(manifest.tables, await countRows(db, await publicTables(db)));
  const expected = new Map(
    checksums
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(66), line.slice(0, 64)] as const),
  );
  if (expected.size !== manifest.uploads.count || sums.size !== manifest.uploads.count)
    problems.push(`uploads: ${sums.size} restored, the manifest names ${manifest.uploads.count}`);
  for (const [key, sum] of expected) if (sums.get(key) !== sum) problems.push(`uploads: ${key} does not match its checksum`);
  const head = manifest.auditChainHead;
  if (head) {
    const { rows } = await db.query<{ id: number; hash: string }>('select id, hash from audit_log order by id desc limit 1');
    if (Number(rows[0]?.id) !== head.id || rows[0]?.hash !== head.hash) problems.push(`audit_log: the chain ends at entry ${rows[0]?.id ?? 'none'}, the backup's at ${head.id}`);
  }
  return problems;
}

/**
 * Restores an archive into an empty database and upload store (ADR 057), then checks every table's rows, the
 * change history's last entry and every file's checksum against the archive; answers the manifest.
 */
export async function restoreBackup(archive: string, target: DataLocation, force = false): Promise<Manifest> {
  if (!(await stat(archive).catch(() => null))?.isFile()) throw new RestoreError(`${archive} does not exist`);
  const gunzip = createGunzip();
  createReadStream(archive)
    .on('error', (error) => gunzip.destroy(error))
    .pipe(gunzip);
  const entries = readTar(gunzip);
  const next = async () => (await entries.next()).value || undefined;
  const manifest = await next().then(
    async (first) => (first?.name === MANIFEST_ENTRY ? (JSON.parse((await entryBytes(first)).toString('utf8')) as unknown) : null),
    () => null, // not gzip, not tar, or cut short before its manifest ends
  );
  const problem = manifestProblem(manifest);
  if (problem) throw new RestoreError(`${archive} cannot be restored: ${problem}`);
  const m = manifest as Manifest;
  const kind = target.databaseUrl ? 'postgres' : 'pglite';
  if (m.database.kind !== kind)
    throw new RestoreError(
      m.database.kind === 'pglite'
        ? 'this is a backup of an embedded (PGlite) database: restore it with DATABASE_URL unset'
        : 'this is a backup of a PostgreSQL server: restore it with DATABASE_URL set',
    );
  await prepareTargets(target, force);
  const dbEntry = await next();
  if (dbEntry?.name !== m.database.entry) throw new RestoreError(`the archive has no ${m.database.entry} after its manifest`);
  const db = await restoreDatabase(dbEntry, target);
  try {
    const { sums, checksums } = await restoreUploads(next, target.uploadDir);
    const problems = await verify(db, m, sums, checksums);
    if (problems.length > 0) throw new RestoreError(`the restored data does not match the backup:\n  ${problems.join('\n  ')}`);
    return m;
  } finally {
    await db.close();
  }
}
