import { randomFillSync } from 'node:crypto';
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

/**
 * Random bytes as hex, taken from a pool the CSPRNG fills 4 KB at a time (as Node's own `randomUUID` does): a
 * `randomBytes` call per id cost a buffer and a call into the CSPRNG twice per tRPC call (ADR 070). The bytes
 * are as random; each is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;
export function randomHex(bytes: number): string {
  if (taken + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    taken = 0;
  }
  const hex = pool.toString('hex', taken, taken + bytes);
  taken += bytes;
  return hex;
}

/** A fresh request id: a W3C trace id, so the calls it makes carry it as a `traceparent`. */
export const freshRequestId = (): string => randomHex(16);

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
  return TRACE_ID.test(requestId) ? `00-${requestId}-${randomHex(8)}-01` : undefined;
}
