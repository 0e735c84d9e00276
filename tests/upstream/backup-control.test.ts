import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { controlSocketPath, heldByRunningApi, serveBackupControl, snapshotFromRunningApi } from '../../upstream/backup/control.ts';
import { TAR_END, entryBytes, readTar, tarHeader, tarPadding } from '../../upstream/backup/tar.ts';
import { openDatabase } from '../../upstream/db.ts';

/** The parts of `npm run backup` below the commands (ADR 057): the archive's tar, and the socket a running PGlite API is copied through. */
const dir = mkdtempSync(join(tmpdir(), 'bo-backup-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tarOf = (files: [string, Buffer][]) => Buffer.concat([...files.flatMap(([name, body]) => [tarHeader(name, body.length), body, tarPadding(body.length)]), TAR_END]);

describe('the archive tar', () => {
  it('reads back what it wrote, in chunks of any size, with names beyond ustar’s 100 bytes', async () => {
    const long = `uploads/${'d'.repeat(120)}/${'f'.repeat(90)}.png`;
    const files: [string, Buffer][] = [
      ['manifest.json', Buffer.from('{"a":1}')],
      ['empty', Buffer.alloc(0)],
      [long, Buffer.alloc(1500, 7)],
    ];
    const bytes = tarOf(files);
    expect(bytes.length % 512).toBe(0);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 97) }, (_, i) => bytes.subarray(i * 97, (i + 1) * 97));
    const read: [string, Buffer][] = [];
    for await (const entry of readTar(Readable.from(chunks))) read.push([entry.name, await entryBytes(entry)]);
    expect(read).toEqual(files);
  });

  it('skips a body the reader left unread, and refuses a damaged header or a cut archive', async () => {
    const bytes = tarOf([
      ['a', Buffer.alloc(700, 1)],
      ['b', Buffer.from('second')],
    ]);
    const names: string[] = [];
    for await (const entry of readTar(Readable.from([bytes]))) names.push(entry.name);
    expect(names).toEqual(['a', 'b']);
    const damaged = Buffer.from(bytes);
    damaged[0] = 0x7a;
    await expect(readTar(Readable.from([damaged])).next()).rejects.toThrow(/checksum/);
    const cut = readTar(Readable.from([bytes.subarray(0, 800)]));
    await expect(cut.next().then((r) => entryBytes(r.value!))).rejects.toThrow(/ends in the middle of a file/);
  });

  it('writes sizes past 8 GiB in base-256, as GNU tar reads them', () => {
    const header = tarHeader('big', 2 ** 34);
    expect(header[124]).toBe(0x80);
    expect(header.readUIntBE(130, 6)).toBe(2 ** 34);
  });
});

describe('the socket of a running PGlite API', () => {
  it('answers a snapshot to its own user only (0600), and nothing once closed', { timeout: 120_000 }, async () => {
    const dataDir = join(dir, 'pglite');
    const db = await openDatabase({ dataDir });
    try {
      await db.exec('create table notes (id int); insert into notes values (1), (2), (3)');
      const control = await serveBackupControl(db, dataDir, () => undefined);
      expect(statSync(controlSocketPath(dataDir)).mode & 0o777).toBe(0o600);
      expect(await heldByRunningApi(dataDir)).toBe(true);
      const snapshot = await snapshotFromRunningApi(dataDir);
      expect(snapshot!.state.tables).toEqual({ notes: 3 });
      expect(snapshot!.tar.subarray(257, 262).toString()).toBe('ustar');
      await control.close();
      expect(await heldByRunningApi(dataDir)).toBe(false);
      expect(await snapshotFromRunningApi(dataDir)).toBeNull();
    } finally {
      await db.close();
    }
  });

  it('puts a socket whose path would be too long in the temporary directory, one per data directory', () => {
    const deep = join(dir, 'x'.repeat(120), 'pglite');
    expect(controlSocketPath(deep).startsWith(tmpdir())).toBe(true);
    expect(controlSocketPath(deep)).not.toBe(controlSocketPath(`${deep}2`));
    expect(controlSocketPath('/srv/data/pglite')).toBe('/srv/data/pglite.backup.sock');
  });
});
