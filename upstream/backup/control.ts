import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Db } from '../db.ts';
import { readDatabaseState, type DatabaseState } from './manifest.ts';

/**
 * How `npm run backup` reaches an embedded database its API holds (ADR 057). PGlite opens a data directory from
 * one process at a time, so while the API runs only the API can copy it: it answers on a Unix socket beside
 * the directory, readable by its own user only (no network address, no token to leak). The socket serves one
 * thing, a snapshot: the manifest's state and the data directory's copy, taken with nothing else running.
 */

/** The socket of a data directory: beside it, or (a path too long for a socket) in the temporary directory under its digest. */
export function controlSocketPath(dataDir: string): string {
  const beside = `${resolve(dataDir)}.backup.sock`;
  if (Buffer.byteLength(beside) <= 100) return beside;
  return join(tmpdir(), `bike-backup-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)}.sock`);
}

const STATE_HEADER = 'x-database-state';

/** Serves snapshots of `db` on the data directory's socket until closed. */
export async function serveBackupControl(db: Db, dataDir: string, onError: (error: unknown) => void): Promise<{ close(): Promise<void> }> {
  const path = controlSocketPath(dataDir);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/ping') return void res.writeHead(200).end('ok');
    if (req.method !== 'POST' || req.url !== '/snapshot' || !db.snapshotDataDir) return void res.writeHead(404).end();
    db.snapshotDataDir(readDatabaseState).then(
      async ({ result, tar }) => {
        const bytes = Buffer.from(await tar.arrayBuffer());
        res.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': bytes.length, [STATE_HEADER]: Buffer.from(JSON.stringify(result)).toString('base64url') });
        res.end(bytes);
      },
      (error: unknown) => {
        onError(error);
        res.writeHead(500).end();
      },
    );
  });
  // A socket file left by a process that ended without closing it (a crash): nobody listens on it any more,
  // since a second process on one PGlite directory is not a thing this API does.
  rmSync(path, { force: true });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(path, () => done()));
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function call(path: string, method: string, route: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer } | null> {
  return new Promise((done, fail) => {
    // A connection of its own (agent: false): a kept-alive one from an earlier call may have been closed since.
    const req = request({ socketPath: path, method, path: route, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', fail);
    });
    // No socket, or nobody listening on it: no API holds the directory.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? done(null) : fail(error)));
    req.end();
  });
}

/** Whether an API holds the data directory (answers on its socket). */
export async function heldByRunningApi(dataDir: string): Promise<boolean> {
  return (await call(controlSocketPath(dataDir), 'GET', '/ping'))?.status === 200;
}

/** A snapshot from the API that holds the directory; null when none does (then the directory may be opened directly). */
export async function snapshotFromRunningApi(dataDir: string): Promise<{ state: DatabaseState; tar: Buffer } | null> {
  const answer = await call(controlSocketPath(dataDir), 'POST', '/snapshot');
  if (!answer) return null;
  const state = answer.headers[STATE_HEADER];
  if (answer.status !== 200 || typeof state !== 'string') throw new Error(`the running API could not take the snapshot (status ${answer.status}); its log says why`);
  return { state: JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) as DatabaseState, tar: answer.body };
}
