import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerLoadShedding } from '../../server/load-shedding.ts';

/**
 * Load shedding (ADR 008, 058): a shed request answers 503 and its handler never runs (it used to run after the
 * 503, failing on a reply already sent); a logout is never shed.
 */
describe('load shedding', () => {
  it('answers 503 without running the route, and lets a logout through', async () => {
    const app = Fastify({ logger: false });
    let shed = 0;
    const ran: string[] = [];
    await registerLoadShedding(app, { maxHeapUsedBytes: 1 }, () => shed++, 10);
    // As the app's own (cache-control, compression): the 503 is written only after it, so the request went on meanwhile.
    app.addHook('onSend', async (_req, _reply, payload) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return payload;
    });
    app.get('/page', async () => {
      ran.push('page');
      return { ok: true };
    });
    app.post('/logout', async () => {
      ran.push('logout');
      return { ok: true };
    });
    app.post('/trpc/auth.logout', async () => {
      ran.push('trpc logout');
      return { ok: true };
    });
    app.post('/trpc/auth.logout,users.list', async () => {
      ran.push('batch');
      return { ok: true };
    });
    await app.ready();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100)); // sampled every 10 ms here
      const page = await app.inject({ method: 'GET', url: '/page' });
      expect(page.statusCode).toBe(503);
      expect(page.headers['retry-after']).toBe('10');
      expect(page.json().error.data.appCode).toBe('overloaded');
      expect((await app.inject({ method: 'POST', url: '/trpc/auth.logout,users.list?batch=1' })).statusCode).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ran).toEqual([]);
      expect(shed).toBe(2);
      expect((await app.inject({ method: 'POST', url: '/logout' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'POST', url: '/trpc/auth.logout?batch=1' })).statusCode).toBe(200);
      expect(ran).toEqual(['logout', 'trpc logout']);
    } finally {
      await app.close();
    }
  });
});
