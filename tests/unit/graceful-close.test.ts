import { Agent, request } from 'node:http';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { closeConnectionsWhenDraining } from '../../shared/graceful-close.server.ts';

const agents: Agent[] = [];
afterEach(() => agents.splice(0).forEach((a) => a.destroy()));

/** A server whose one route sends its headers at once and the body 300 ms later. */
async function slowServer(drain: boolean) {
  const app = Fastify();
  if (drain) closeConnectionsWhenDraining(app);
  app.get('/slow', async (_req, reply) => {
    const body = new Readable({ read() {} });
    reply.raw.flushHeaders();
    setTimeout(() => body.push(null), 300);
    body.push('first part ');
    return reply.header('content-type', 'text/plain').send(body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return { app, port };
}

/** Starts a keep-alive request and resolves once its headers are in, with the full body to come. */
function startRequest(port: number) {
  const agent = new Agent({ keepAlive: true });
  agents.push(agent);
  return new Promise<{ body: Promise<string> }>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/slow', agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      resolve({ body: new Promise((done) => res.on('end', () => done(text))) });
    })
      .on('error', reject)
      .end();
  });
}

describe('closing while a keep-alive response is still being sent', () => {
  it('answers the request in flight, then closes its connection instead of waiting for the keep-alive timeout', async () => {
    const { app, port } = await slowServer(true);
    const inFlight = await startRequest(port);
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await inFlight.body).toBe('first part ');
  });

  it('without it, Fastify waits on that connection (the hang this guards against)', async () => {
    const { app, port } = await slowServer(false);
    await startRequest(port);
    const closed = await Promise.race([app.close().then(() => true), new Promise((r) => setTimeout(() => r(false), 1500))]);
    expect(closed).toBe(false);
    app.server.closeAllConnections();
  });
});
