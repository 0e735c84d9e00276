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

/** A request id taken from the back office's X-Request-Id: short, plain characters. */
const REQUEST_ID = /^[\w-]{1,64}$/;
/** W3C Trace Context: version 00, a trace id (not all zeros), a parent span id, flags. */
const TRACEPARENT = /^00-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACE_ID = /^[0-9a-f]{32}$/;

/** A fresh request id: a W3C trace id, so the calls it makes carry it as a `traceparent`. */
export const freshRequestId = (): string => randomBytes(16).toString('hex');

/**
 * Fastify's `genReqId` of both services (ADR 038, 058): from a `trusted` sender, the trace id of its
 * `traceparent`, else its X-Request-Id when it looks like one; otherwise a fresh trace id. The id goes into the
 * change history, so only a trusted sender picks it: for the API the back office (its secret came with the
 * request), for the back office a proxy it was told to trust (TRUST_PROXY; deploy/haproxy sets its own id).
 */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }, trusted: boolean): string {
  if (!trusted) return freshRequestId();
  const traceparent = req.headers.traceparent;
  const trace = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (trace) return trace[1]!;
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : freshRequestId();
}

/** The `traceparent` of a call made for request `requestId`: its trace, a new span; none when the id is not a trace id. */
export function traceparentOf(requestId: string): string | undefined {
  return TRACE_ID.test(requestId) ? `00-${requestId}-${randomBytes(8).toString('hex')}-01` : undefined;
}
