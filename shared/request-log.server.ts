import { randomBytes } from 'node:crypto';
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

/** A request id taken from X-Request-Id (a proxy's in front): short, plain characters. */
const REQUEST_ID = /^[\w-]{1,64}$/;
/** W3C Trace Context: version 00, a trace id (not all zeros), a parent span id, flags. */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACE_ID = /^[0-9a-f]{32}$/;

/**
 * Fastify's `genReqId` of both services (ADR 038): the trace id of an incoming W3C `traceparent` (the back
 * office's calls to the API carry one; so may a proxy or a tracing agent in front), else an incoming
 * X-Request-Id when it looks like one, else a fresh trace id. One id then names a request in both services'
 * logs and in the change history.
 */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const traceparent = req.headers.traceparent;
  const trace = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (trace) return trace[1]!;
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomBytes(16).toString('hex');
}

/** The `traceparent` of a call made for request `requestId`: its trace, a new span; none when the id is not a trace id. */
export function traceparentOf(requestId: string): string | undefined {
  return TRACE_ID.test(requestId) ? `00-${requestId}-${randomBytes(8).toString('hex')}-01` : undefined;
}
