import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Hands a raw request to the in-process reference API's router (its Fastify `routing`). */
export type RawHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The browser's part of the in-process reference API (ADR 029): uploaded files (`GET /files/…`), the
 * signed upload target (`PUT /files/upload/…`) and their CORS preflight, served on the back office's own
 * port and origin. The API itself listens on loopback only, so in a container nothing else of it is
 * reachable from outside, and files share the back office's https address (no mixed content, one port).
 * The request goes to the API's router untouched: its body is not read here (the API checks size,
 * signature, type and magic bytes), and the answer is the API's own.
 */
export async function registerInProcessFiles(app: FastifyInstance, handle: RawHandler): Promise<void> {
  await app.register(async (scope) => {
    // Leave every body to the API: nothing of it is parsed or buffered here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const forward = async (req: FastifyRequest, reply: FastifyReply) => {
      // The back office's security headers (HSTS among them) go out too; the API's own headers win.
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.hijack();
      handle(req.raw, reply.raw);
    };
    scope.route({ method: ['GET', 'OPTIONS'], url: '/files/*', handler: forward });
    scope.route({ method: 'PUT', url: '/files/upload/*', handler: forward });
  });
}
