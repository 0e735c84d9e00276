import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import pg from 'pg';
import { openDatabase } from '../db.ts';
import { snapshotFromRunningApi } from './control.ts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  CHECKSUMS_ENTRY,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  UPLOADS_PREFIX,
  readDatabaseState,
  type DatabaseState,
  type Manifest,
} from './manifest.ts';
import { findPgTool, pgConnection, runPgTool } from './pg-tools.ts';
import { TAR_END, tarHeader, tarPadding } from './tar.ts';

/** Where the data is: a PostgreSQL server, or a PGlite directory; and the upload store. */
export interface DataLocation {
  databaseUrl?: string;
  dataDir?: string;
  uploadDir: string;
}

/** The database's part of an archive: the state read in the dump's snapshot, and the dump's bytes. */
interface DatabaseDump {
  state: DatabaseState;
  size: number;
  bytes: () => Readable;
  cleanup: () => Promise<void>;
}

async function pgliteDump(dataDir: string): Promise<DatabaseDump> {
  // The API that holds the directory takes it; with none running the directory is opened here (and so held meanwhile).
  const fromApi = await snapshotFromRunningApi(dataDir);
  if (fromApi) return { state: fromApi.state, size: fromApi.tar.length, bytes: () => Readable.from([fromApi.tar]), cleanup: async () => undefined };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) throw new Error(`there is no database in ${dataDir} (UPSTREAM_DATA_DIR), and no API running on it`);
  const db = await openDatabase({ dataDir });
  try {
    const { result, tar } = await db.snapshotDataDir!(readDatabaseState);
    const bytes = Buffer.from(await tar.arrayBuffer());
    return { state: result, size: bytes.length, bytes: () => Readable.from([bytes]), cleanup: async () => undefined };
  } finally {
    await db.close();
  }
}

/**
 * pg_dump's custom format (uncompressed: the archive is compressed once, as a whole) of the snapshot in which
 * the manifest's counts were read: a repeatable-read transaction exports it and stays open until pg_dump is done.
 */
async function postgresDump(url: string, tempFile: string): Promise<DatabaseDump> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
    const state = await readDatabaseState({ query: async (sql, params) => ({ rows: (await client.query(sql, params as unknown[])).rows }) });
    const { dbname, env } = pgConnection(url);
    await runPgTool(
      findPgTool('pg_dump'),
      ['--format=custom', '--compress=0', '--no-owner', '--no-privileges', `--snapshot=${rows[0]!.id}`, `--file=${tempFile}`, `--dbname=${dbname}`],
      env,
    );
    await client.query('commit');
    const { size } = await stat(tempFile);
    return { state, size, bytes: () => createReadStream(tempFile), cleanup: () => rm(tempFile, { force: true }) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The file of an upload key, refusing a key that would leave the store. */
export function uploadPath(root: string, key: string): string {
  const path = resolve(root, key);
  if (!path.startsWith(resolve(root) + sep) || key.split('/').some((part) => part === '' || part === '.' || part === '..'))
    throw new Error(`upload key ${JSON.stringify(key)} is not a path inside the store`);
  return path;
}

async function storedFiles(uploadDir: string, keys: readonly string[]) {
  const present: { key: string; size: number }[] = [];
  const missing: string[] = [];
  for (const key of keys) {
    const info = await stat(uploadPath(uploadDir, key)).catch(() => null);
    if (info?.isFile()) present.push({ key, size: info.size });
    else missing.push(key);
  }
  return { present, missing };
}

async function* archiveParts(manifest: Manifest, dump: DatabaseDump, uploadDir: string, files: { key: string; size: number }[]): AsyncGenerator<Buffer> {
  const json = Buffer.from(JSON.stringify(manifest, null, 2) + '\n');
  yield tarHeader(MANIFEST_ENTRY, json.length);
  yield Buffer.concat([json, tarPadding(json.length)]);
  yield tarHeader(manifest.database.entry, dump.size);
  let written = 0;
  for await (const part of dump.bytes() as AsyncIterable<Buffer>) {
    written += part.length;
    yield part;
  }
  if (written !== dump.size) throw new Error('the database dump changed while it was archived');
  yield tarPadding(dump.size);
  const sums: string[] = [];
  for (const { key, size } of files) {
    yield tarHeader(UPLOADS_PREFIX + key, size);
    const hash = createHash('sha256');
    let read = 0;
    for await (const part of createReadStream(uploadPath(uploadDir, key)) as AsyncIterable<Buffer>) {
      hash.update(part);
      read += part.length;
      yield part;
    }
    if (read !== size) throw new Error(`the upload ${key} changed while it was archived`);
    yield tarPadding(size);
    sums.push(`${hash.digest('hex')}  ${key}`);
  }
  const checksums = Buffer.from(sums.map((line) => line + '\n').join(''));
  yield tarHeader(CHECKSUMS_ENTRY, checksums.length);
  yield Buffer.concat([checksums, tarPadding(checksums.length), TAR_END]);
}

/**
 * Writes one archive (tar, gzip) of the database and the upload store to `outFile` (ADR 057): the manifest, the
 * dump, the files of the uploads the snapshot names, their SHA-256 sums. It is written beside as `.partial` and
 * renamed when complete, so a file of that name is always a whole archive.
 */
export async function createBackup(location: DataLocation, outFile: string, now = new Date()): Promise<Manifest> {
  const kind = location.databaseUrl ? 'postgres' : 'pglite';
  const partial = `${outFile}.partial`;
  const dump = location.databaseUrl ? await postgresDump(location.databaseUrl, `${outFile}.pgdump.partial`) : await pgliteDump(location.dataDir ?? join('data', 'pglite'));
  try {
    const { uploadKeys, ...state } = dump.state;
    const { present, missing } = await storedFiles(location.uploadDir, uploadKeys);
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      createdAt: now.toISOString(),
      database: { kind, entry: DATABASE_ENTRY[kind] },
      ...state,
      uploads: { count: present.length, bytes: present.reduce((sum, f) => sum + f.size, 0), missing },
    };
    await pipeline(Readable.from(archiveParts(manifest, dump, location.uploadDir, present)), createGzip(), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, outFile);
    return manifest;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await dump.cleanup();
  }
}
