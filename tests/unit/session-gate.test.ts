import Fastify from 'fastify';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { overlapSessionCheck, registerSessionGate } from '../../upstream/lib/auth.ts';
import type { SessionCheck } from '../../upstream/lib/sessions.ts';

/**
 * The session gate (ADR 052) on its own: a handler runs while its session check is under way; the answer
 * waits for the check, and a refused session replaces it whole, status, body and the handler's headers.
 */
async function gatedApp(check: () => Promise<SessionCheck>) {
  const app = Fastify();
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });
  registerSessionGate(app, (error) => ({ status: (error as { status?: number }).status ?? 500, body: { success: false, error: { code: error.message } } }));
  const overlapped = {
    preHandler: async (req: Parameters<typeof overlapSessionCheck>[0], reply: Parameters<typeof overlapSessionCheck>[1]) => overlapSessionCheck(req, reply, check()),
  };
  app.get('/rows', overlapped, async (_req, reply) => {
    reply.header('x-total-rows', '42').header('retry-after', '2');
    return { success: true, data: { results: [{ id: 1, secret: 'row' }] } };
  });
  app.get('/stream', overlapped, async (_req, reply) => {
    reply.type('text/plain');
    return Readable.from(['secret ', 'rows']);
  });
  await app.ready();
  return app;
}

const slowly = (state: SessionCheck | Error) => () =>
  new Promise<SessionCheck>((resolve, reject) => setTimeout(() => (state instanceof Error ? reject(state) : resolve(state)), 30));

describe('the session gate (ADR 052)', () => {
  it('sends the answer as it is when the session stands', async () => {
    const app = await gatedApp(slowly('ok'));
    const res = await app.inject('/rows');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.results).toHaveLength(1);
    expect(res.headers['x-total-rows']).toBe('42');
    await app.close();
  });

  it("replaces a revoked session's answer with the 401 and the headers it had before the handler, for GET, HEAD and streams", async () => {
    const app = await gatedApp(slowly('ended'));
    for (const [method, url] of [
      ['GET', '/rows'],
      ['HEAD', '/rows'],
      ['GET', '/stream'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.body).not.toContain('secret');
      expect(res.headers['x-total-rows']).toBeUndefined();
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      if (method === 'GET') expect(res.json().success).toBe(false);
    }
    await app.close();
  });

  it('answers a check that fails with its error, never with the rows', async () => {
    const app = await gatedApp(slowly(new Error('database unavailable')));
    const res = await app.inject('/rows');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('secret');
    await app.close();
  });
});
