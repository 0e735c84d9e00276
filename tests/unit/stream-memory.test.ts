import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { scavengingWhileStreaming } from '../../server/stream-memory.ts';

describe('scavengingWhileStreaming (the export pass-through, ADR 047)', () => {
  it('passes every byte through in order, across many collections', async () => {
    const chunks = Array.from({ length: 200 }, (_, i) => Buffer.alloc(64 * 1024, i % 251));
    const out = scavengingWhileStreaming(Readable.from(chunks), 256 * 1024);
    const received: Buffer[] = [];
    for await (const chunk of out) received.push(chunk as Buffer);
    expect(Buffer.concat(received).equals(Buffer.concat(chunks))).toBe(true);
  });

  it("ends with the source's error when the source fails midway", async () => {
    const source = new Readable({ read() {} });
    const out = scavengingWhileStreaming(source, 1024);
    source.push(Buffer.alloc(4096));
    setImmediate(() => source.destroy(new Error('upstream went away')));
    await expect(
      (async () => {
        for await (const _ of out) void _;
      })(),
    ).rejects.toThrow('upstream went away');
  });

  it('stops reading the source when the reader goes away (a closed download)', async () => {
    const source = new Readable({ read() {} });
    const out = scavengingWhileStreaming(source, 1024);
    out.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
  });
});
