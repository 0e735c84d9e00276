import type { FastifyInstance } from 'fastify';

/**
 * Lets `app.close()` finish as soon as the requests in flight are answered, for the back office and
 * the reference API alike. Fastify closes the connections that are idle when close() begins; a
 * keep-alive connection whose response was still being sent then would stay open until its
 * keep-alive timeout (72 s). While closing, every answer says `connection: close`, and connections
 * that have gone idle since are closed every 50 ms.
 */
export function closeConnectionsWhenDraining(app: FastifyInstance): void {
  let draining = false;
  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    draining = true;
    sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
    sweeper.unref();
  });
  app.addHook('onClose', async () => clearInterval(sweeper));
  app.addHook('onSend', async (_req, reply) => {
    if (draining) reply.header('connection', 'close');
  });
}
