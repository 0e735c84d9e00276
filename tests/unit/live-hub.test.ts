import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveHub, LIVE_WINDOW, type LiveStream } from '../../server/live/hub.ts';
import type { Viewer } from '../../server/live/filter.ts';

/**
 * The back office's one subscription (ADR 037) against a fake API stream: fan-out filtered per viewer, the
 * ring buffer's replay and its gap once changes fell out of it, and the reconnect with Last-Event-ID.
 */
let server: Server;
let api: ServerResponse | null = null;
const requests: IncomingHttpHeaders[] = [];
let hub: ReturnType<typeof createLiveHub>;
const silent = { warn: () => undefined } as unknown as FastifyBaseLogger;

const change = (id: number, owner: number[] | null = null, entity = 'services') =>
  `id: ${id}\nevent: change\ndata: ${JSON.stringify({ id, entity, record_id: id, action: 'update', user_id: 1, owner })}\n\n`;

function collector(viewer: Viewer): LiveStream & { frames: string[]; ended: boolean } {
  const stream = {
    viewer,
    sessionId: 's',
    frames: [] as string[],
    ended: false,
    write: (f: string) => stream.frames.push(f),
    end: () => (stream.ended = true),
    usable: () => true,
  };
  return stream;
}

const ids = (frames: string[]) => frames.flatMap((f) => /^id: (\d+)/.exec(f)?.[1] ?? []).map(Number);
const until = async (test: () => boolean) => {
  for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(test()).toBe(true);
};

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: ready\ndata: ${JSON.stringify({ last: 10 })}\n\n`);
    api = res;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  hub = createLiveHub({ upstreamUrl: `http://127.0.0.1:${port}/api/`, forwardedSecret: 'secret', log: silent });
});
afterAll(async () => {
  await hub.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the live hub', () => {
  it('passes each change to the streams that may see it, with the secret, replays what a reconnect missed, and says gap past its window', async () => {
    const admin = collector({ userId: 1, roles: ['Admin'] });
    const buddy = collector({ userId: 7, roles: ['Buddy'] });
    await hub.attach(admin, null);
    await hub.attach(buddy, null);
    await until(() => api !== null);
    expect(requests[0]!['x-forwarded-secret']).toBe('secret');
    expect(requests[0]!['last-event-id']).toBeUndefined();

    api!.write(change(11, [7]) + change(12, [8]) + change(13, [7, 8]));
    await until(() => admin.frames.length === 3);
    expect(ids(admin.frames)).toEqual([11, 12, 13]);
    await until(() => buddy.frames.length === 2);
    expect(ids(buddy.frames)).toEqual([11, 13]);
    expect(buddy.frames.join('')).not.toContain('owner');

    // A browser back after missing 12 and 13: sent those it may see, from the buffer.
    const back = collector({ userId: 7, roles: ['Buddy'] });
    await hub.attach(back, 11);
    expect(ids(back.frames)).toEqual([13]);

    // More changes than the buffer keeps: a browser from before the oldest one kept is told of a gap.
    api!.write(Array.from({ length: LIVE_WINDOW.entries }, (_, i) => change(14 + i)).join(''));
    const last = 13 + LIVE_WINDOW.entries;
    await until(() => ids(admin.frames).at(-1) === last);
    const late = collector({ userId: 1, roles: ['Admin'] });
    await hub.attach(late, 12);
    expect(late.frames).toEqual(['event: gap\ndata: {}\n\n']);
    const inTime = collector({ userId: 1, roles: ['Admin'] });
    await hub.attach(inTime, last - 2);
    expect(ids(inTime.frames)).toEqual([last - 1, last]);
  });

  it('reconnects after the API stream ends, from the last change it saw', async () => {
    const seen = requests.length;
    api!.end();
    api = null;
    await until(() => requests.length > seen);
    expect(requests.at(-1)!['last-event-id']).toBe(String(13 + LIVE_WINDOW.entries));
    expect(hub.openStreams).toBeGreaterThan(0);
  });
});

describe('the live hub’s caps and shared session checks (ADR 058)', () => {
  const limits = { perSession: 3, perUser: 5 };
  /** A hub whose API never answers: these tests need no changes, only streams. */
  const quietHub = (recheckMs = 60_000) =>
    createLiveHub({ upstreamUrl: 'http://127.0.0.1:9/api/', forwardedSecret: 'secret', log: silent, limits, recheckMs, heartbeatMs: 60_000 });

  function checked(userId: number, sessionId: string, answers: { standing: Set<string>; asked: string[] }) {
    const stream = collector({ userId, roles: ['Buddy'] });
    stream.sessionId = sessionId;
    return Object.assign(stream, {
      recheck: async () => {
        answers.asked.push(sessionId);
        return answers.standing.has(sessionId);
      },
    });
  }

  it('refuses a stream past the cap of its session and of its user, and takes one again once a stream left', async () => {
    const capped = quietHub();
    const answers = { standing: new Set(['a', 'b']), asked: [] as string[] };
    try {
      const first = await Promise.all([1, 2, 3].map(() => capped.attach(checked(4, 'a', answers), null)));
      expect(first.every((detach) => detach !== null)).toBe(true);
      expect(capped.full({ sessionId: 'a', viewer: { userId: 4, roles: ['Buddy'] } })).toBe(true);
      expect(await capped.attach(checked(4, 'a', answers), null)).toBeNull();
      // Another session of the same user: two more, then the user's cap.
      expect(await capped.attach(checked(4, 'b', answers), null)).not.toBeNull();
      expect(await capped.attach(checked(4, 'b', answers), null)).not.toBeNull();
      expect(await capped.attach(checked(4, 'c', answers), null)).toBeNull();
      // Someone else is not held back by them.
      expect(await capped.attach(checked(5, 'd', answers), null)).not.toBeNull();
      first[0]!();
      expect(await capped.attach(checked(4, 'a', answers), null)).not.toBeNull();
      expect(capped.openStreams).toBe(6);
    } finally {
      await capped.close();
    }
  });

  it('asks the API once per session, not per stream, and a no ends every stream of that session only', async () => {
    const checking = quietHub(100);
    const answers = { standing: new Set(['a', 'b']), asked: [] as string[] };
    try {
      const mine = [1, 2, 3].map(() => checked(4, 'a', answers));
      const other = checked(5, 'b', answers);
      for (const stream of [...mine, other]) await checking.attach(stream, null);
      await until(() => answers.asked.length >= 4);
      // Each tick asks once for 'a' (three streams) and once for 'b'.
      const a = answers.asked.filter((s) => s === 'a').length;
      const b = answers.asked.filter((s) => s === 'b').length;
      expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
      answers.standing.delete('a');
      await until(() => mine.every((stream) => stream.ended));
      const asked = answers.asked.length;
      await until(() => answers.asked.length >= asked + 2);
      expect(other.ended).toBe(false);
    } finally {
      await checking.close();
    }
  });
});
