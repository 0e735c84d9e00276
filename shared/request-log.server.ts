import { randomUUID } from 'node:crypto';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Public routes whose path carries a one-time secret (and an e-mail address): logged without it. */
const SECRET_PATH = /^\/(reset-password|accept-invitation|confirm-email)\/.*$/;

/** A request path as it may appear in a log: no query string, no one-time tokens. */
export function loggablePath(url: string): string {
  return url.split('?')[0]!.replace(SECRET_PATH, '/$1/[redacted]');
}

/**
 * Fastify's request log lines without query strings or token-bearing path segments: signed upload
 * URLs and one-time links carry secrets there. Used by the back office and the reference API alike.
 */
export class PathOnlyLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    void reply;
    request.log.info({ method: request.method, path: loggablePath(request.url) }, 'incoming request');
  }
}

/** A request id taken from X-Request-Id (the back office's, or a proxy's in front of it): short, plain characters. */
const REQUEST_ID = /^[\w-]{1,64}$/;

/** Fastify's `genReqId` of both services: the incoming X-Request-Id when it looks like one, else a fresh id. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
