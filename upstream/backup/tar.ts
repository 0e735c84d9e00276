import type { Readable } from 'node:stream';

/**
 * The little of POSIX ustar that a backup archive needs (ADR 057): regular files only, written and read as a
 * stream, so `tar -tzf` and `tar -xzf` open an archive too. Sizes past ustar's eleven octal digits (8 GiB) are
 * written in base-256, as GNU tar does and reads.
 */
const BLOCK = 512;
const OCTAL_SIZE_LIMIT = 8 ** 11;

function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  header.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  const cut = name.lastIndexOf('/', 155);
  if (cut > 0 && Buffer.byteLength(name.slice(0, cut)) <= 155 && Buffer.byteLength(name.slice(cut + 1)) <= 100) return { prefix: name.slice(0, cut), base: name.slice(cut + 1) };
  throw new Error(`tar: the name ${name} is too long`);
}

/** The 512-byte header of a regular file of `size` bytes. */
export function tarHeader(name: string, size: number, mtime = new Date()): Buffer {
  const header = Buffer.alloc(BLOCK, 0);
  const { prefix, base } = splitName(name);
  header.write(base, 0, 100, 'utf8');
  writeOctal(header, 0o644, 100, 8);
  writeOctal(header, 0, 108, 8);
  writeOctal(header, 0, 116, 8);
  if (size < OCTAL_SIZE_LIMIT) writeOctal(header, size, 124, 12);
  else {
    header[124] = 0x80;
    let rest = BigInt(size);
    for (let i = 135; i > 124; i--, rest >>= 8n) header[i] = Number(rest & 0xffn);
  }
  writeOctal(header, Math.floor(mtime.getTime() / 1000), 136, 12);
  header.write('0', 156, 1, 'ascii');
  header.write('ustar\0' + '00', 257, 8, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return header;
}

/** Zero bytes that fill a file's last block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK, 0);
}

/** Two zero blocks end an archive. */
export const TAR_END = Buffer.alloc(2 * BLOCK, 0);

function readSize(header: Buffer): number {
  if (header[124]! & 0x80) {
    let value = 0n;
    for (let i = 125; i < 136; i++) value = (value << 8n) | BigInt(header[i]!);
    return Number(value);
  }
  return parseInt(header.toString('ascii', 124, 136).replace(/\0.*$/, '').trim() || '0', 8);
}

function readString(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.toString('utf8', 0, end === -1 ? length : end);
}

function checksumHolds(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return parseInt(readString(header, 148, 8).trim(), 8) === sum;
}

export interface TarEntry {
  name: string;
  size: number;
  /** The file's bytes: read them (or call `skip`) before asking for the next entry. */
  body: AsyncGenerator<Buffer>;
}

/** Reads a byte stream in exact amounts, keeping what a chunk carried beyond them. */
class Reader {
  private pending: Buffer[] = [];
  private buffered = 0;
  private readonly source: AsyncIterator<Buffer>;
  constructor(stream: Readable) {
    this.source = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }
  /** Up to `max` bytes (fewer only at the end of the stream, then an empty buffer). */
  async next(max: number): Promise<Buffer> {
    while (this.buffered === 0) {
      const { value, done } = await this.source.next();
      if (done) return Buffer.alloc(0);
      if (value.length === 0) continue;
      this.pending.push(value);
      this.buffered += value.length;
    }
    const first = this.pending[0]!;
    const taken = first.subarray(0, max);
    if (taken.length === first.length) this.pending.shift();
    else this.pending[0] = first.subarray(max);
    this.buffered -= taken.length;
    return taken;
  }
  async exactly(size: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (let got = 0; got < size;) {
      const part = await this.next(size - got);
      if (part.length === 0) throw new Error('tar: the archive ends in the middle of a file');
      parts.push(part);
      got += part.length;
    }
    return Buffer.concat(parts, size);
  }
}

/** The regular files of a tar stream, in order; anything else (directories, links) is refused. */
export async function* readTar(stream: Readable): AsyncGenerator<TarEntry> {
  const reader = new Reader(stream);
  for (;;) {
    const header = await reader.exactly(BLOCK);
    if (header.every((byte) => byte === 0)) return;
    if (!checksumHolds(header)) throw new Error('tar: a header is damaged (its checksum does not hold)');
    const type = String.fromCharCode(header[156]!);
    if (type !== '0' && type !== '\0') throw new Error(`tar: an entry of type ${JSON.stringify(type)} is not a regular file`);
    const prefix = readString(header, 345, 155);
    const base = readString(header, 0, 100);
    const size = readSize(header);
    let left = size;
    const body = (async function* () {
      while (left > 0) {
        const part = await reader.next(left);
        if (part.length === 0) throw new Error('tar: the archive ends in the middle of a file');
        left -= part.length;
        yield part;
      }
    })();
    yield { name: prefix ? `${prefix}/${base}` : base, size, body };
    // What the reader left of this file is skipped (read past), whether or not it closed the body.
    while (left > 0) {
      const part = await reader.next(left);
      if (part.length === 0) throw new Error('tar: the archive ends in the middle of a file');
      left -= part.length;
    }
    const padding = tarPadding(size).length;
    if (padding > 0) await reader.exactly(padding);
  }
}

/** A whole entry's bytes (for the small ones: the manifest, the checksums). */
export async function entryBytes(entry: TarEntry): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of entry.body) parts.push(part);
  return Buffer.concat(parts);
}
