import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, preHandlerHookHandler } from 'fastify';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../db.ts';
import { IDEMPOTENCY_HEADER, isIdempotencyKey } from '../../shared/http-headers.ts';
import { ApiError } from './api-error.ts';

/** How long a key is remembered: replays come within hours (a dead spot), not days. */
const KEEP_HOURS = 24;
/** A key claimed this long ago with no answer stored belongs to a request that died mid-way: it may be claimed again. */
const ABANDONED_SECONDS = 120;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Claim {
  userId: number;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

/**
 * What is kept of a request and its answer for a day (ADR 058, I1): answers and bodies carry personal data (a
 * social security number), so the request is kept only as an HMAC (a plain hash of a short number can be
 * reversed by trying them all) and the answer encrypted (AES-256-GCM), both keyed from the API's secret.
 */
export function idempotencySealer(secret: string) {
  const key = createHmac('sha256', secret).update('idempotency-keys/v1').digest();
  const PREFIX = 'enc:v1:';
  return {
    fingerprintOf(req: FastifyRequest): string {
      const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? req.body : JSON.stringify(req.body);
      return `${req.method} ${req.routeOptions.url ?? req.url} ${JSON.stringify(req.params ?? {})} ${createHmac('sha256', key).update(body).digest('base64url')}`;
    },
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${PREFIX}${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${data.toString('base64url')}`;
    },
    /** A stored answer; one stored before this change (plain, gone within a day) as it is. */
    open(stored: string): string {
      if (!stored.startsWith(PREFIX)) return stored;
      const [iv, tag, data] = stored.slice(PREFIX.length).split('.') as [string, string, string];
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
type Sealer = ReturnType<typeof idempotencySealer>;

interface Stored {
  fingerprint: string;
  status: number | null;
  content_type: string | null;
  body: string | null;
  fresh: boolean;
}

/**
 * Runs after the route's own preHandlers (the bearer check sets `req.user`): claims the key for this user, or
 * answers the stored result of the request that claimed it before. Only signed-in writes take part, since a
 * key is scoped to its user: the same key from another user is another key, and never sees this one's answer.
 */
function idempotencyPreHandler(db: Db, sealer: Sealer): preHandlerHookHandler {
  return async function (req: FastifyRequest, reply: FastifyReply) {
    const header = req.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !req.user) return;
    if (!isIdempotencyKey(header)) throw new ApiError(400, 'validation_error', 'The Idempotency-Key header is not a valid key.');
    const userId = req.user.id;
    const fingerprint = sealer.fingerprintOf(req);
    const claimed = await db.query(`insert into idempotency_keys (user_id, key, fingerprint) values ($1, $2, $3) on conflict (user_id, key) do nothing returning key`, [
      userId,
      header,
      fingerprint,
    ]);
    if (claimed.rows.length > 0) {
      req.idempotencyClaim = { userId, key: header };
      // Forget keys past their day now and then (indexed by created_at).
      if (Math.random() < 0.05) await db.query(`delete from idempotency_keys where created_at < now() - make_interval(hours => $1)`, [KEEP_HOURS]);
      return;
    }
    const { rows } = await db.query<Stored>(
      `select fingerprint, status, content_type, body, created_at > now() - make_interval(secs => $3) as fresh from idempotency_keys where user_id = $1 and key = $2`,
      [userId, header, ABANDONED_SECONDS],
    );
    const stored = rows[0];
    if (!stored) throw new ApiError(409, 'idempotency_in_progress');
    if (stored.fingerprint !== fingerprint) throw new ApiError(422, 'idempotency_key_reused');
    if (stored.status === null) {
      if (stored.fresh) throw new ApiError(409, 'idempotency_in_progress');
      // Abandoned: the request that claimed it never answered (the process died). Claim it again.
      const again = await db.query(
        `update idempotency_keys set created_at = now() where user_id = $1 and key = $2 and status is null and created_at <= now() - make_interval(secs => $3) returning key`,
        [userId, header, ABANDONED_SECONDS],
      );
      if (again.rows.length === 0) throw new ApiError(409, 'idempotency_in_progress');
      req.idempotencyClaim = { userId, key: header };
      return;
    }
    reply.code(stored.status).header('idempotent-replayed', 'true');
    if (stored.content_type) reply.header('content-type', stored.content_type);
    let answer = '';
    try {
      answer = stored.body ? sealer.open(stored.body) : '';
    } catch {
      // Not sealed with this key (a tampered row): no replay to give.
      throw new ApiError(422, 'idempotency_key_reused');
    }
    return reply.send(answer);
  };
}

/**
 * Idempotent writes for every route (ADR 042): a POST, PUT, PATCH or DELETE with an `Idempotency-Key` header
 * is done once per user and key; sending it again answers what the first answered (`Idempotent-Replayed:
 * true`), without touching the data. Nothing declares it: each write route gets the check appended to its
 * preHandlers as it is registered, and its answer is stored as it is sent. An answer of 5xx (or none) gives
 * the key back, so the same request may be tried again.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, secret: string) {
  const sealer = idempotencySealer(secret);
  const preHandler = idempotencyPreHandler(db, sealer);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => WRITE_METHODS.has(m))) return;
    const own = route.preHandler ? [route.preHandler].flat() : [];
    route.preHandler = [...own, preHandler];
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const claim = req.idempotencyClaim;
    if (!claim) return payload;
    req.idempotencyClaim = undefined;
    if (reply.statusCode >= 500 || (payload !== null && typeof payload !== 'string' && !Buffer.isBuffer(payload))) {
      await db.query(`delete from idempotency_keys where user_id = $1 and key = $2`, [claim.userId, claim.key]);
      return payload;
    }
    const contentType = reply.getHeader('content-type');
    await db.query(`update idempotency_keys set status = $3, content_type = $4, body = $5 where user_id = $1 and key = $2`, [
      claim.userId,
      claim.key,
      reply.statusCode,
      typeof contentType === 'string' ? contentType : null,
      payload === null ? '' : sealer.seal(String(payload)),
    ]);
    return payload;
  });
  // A request that ended without an answer being sent (the client went away mid-write) keeps its claim until it is abandoned.
}
