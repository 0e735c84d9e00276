import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { LIVE_PATH } from '../../shared/live.ts';
import { isCrossSite } from '../csrf.ts';
import type { Context } from '../trpc/context.ts';
import { SessionExpiredError } from '../session/request-session.ts';
import { sessionIdOf } from '../session/tokens.ts';
import { UpstreamError, type UpstreamClient } from '../upstream/client.ts';
import type { LiveHub, LiveStream } from './hub.ts';

/** A comment this often keeps proxies and the browser from taking a quiet stream for a dead one. */
const HEARTBEAT_MS = 15_000;
/** How often a stream asks the API whether its session still stands (ended elsewhere: another process's logout, a deactivation). */
export const SESSION_RECHECK_MS = 30_000;

function lastEventId(req: FastifyRequest): number | null {
  const raw = req.headers['last-event-id'];
  const value = Number(typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : NaN);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * `GET /live` (ADR 037): the signed-in user's stream of changes they may see. Not `/events`, which is the
 * Events screen. Same-origin only (the cookies are SameSite=Lax, and Fetch Metadata is checked too).
 */
export function registerLiveRoutes(
  app: FastifyInstance,
  deps: { hub: LiveHub | null; createContext: (req: FastifyRequest, reply: FastifyReply) => Context; upstream: UpstreamClient; recheckMs?: number },
) {
  const { hub } = deps;
  app.get(LIVE_PATH, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    if (isCrossSite(req)) return reply.code(403).send('Forbidden');
    // Without the API's secret (UPSTREAM_URL without UPSTREAM_FORWARDED_SECRET) there is nothing to relay: browsers poll.
    if (!hub) return reply.code(404).send('Live updates are off');
    const ctx = deps.createContext(req, reply);
    if (!ctx.session.isAuthenticated()) return reply.code(401).send('Unauthorized');
    try {
      // The session still stands upstream (refreshed here when its token expired, the new cookies set on this answer).
      await ctx.session.call({ method: 'GET', path: 'account/', lang: ctx.lang });
    } catch (error) {
      if (error instanceof SessionExpiredError || (error instanceof UpstreamError && error.status === 401)) return reply.code(401).send('Unauthorized');
      req.log.warn({ err: error }, 'live updates: session check failed');
      return reply.code(503).header('retry-after', '10').send('Unavailable');
    }
    const info = ctx.session.info();
    const token = ctx.session.accessToken();
    if (!info?.userId || !token) return reply.code(401).send('Unauthorized');
    // Signed in without a role of the back office (/forbidden): nothing here is theirs to follow.
    if (info.roles.length === 0) return reply.code(403).send('Forbidden');
    const body = new PassThrough();
    let ended = false;
    const timers: NodeJS.Timeout[] = [];
    let detach: () => void = () => undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      for (const timer of timers) clearInterval(timer);
      detach();
      body.end();
    };
    const stream: LiveStream = {
      viewer: { userId: Number(info.userId), roles: info.roles },
      sessionId: sessionIdOf(token),
      write: (frame) => {
        if (!ended) body.write(frame);
      },
      end,
      usable: () => info.exp === undefined || info.exp * 1000 > Date.now(),
      recheck: () => {
        if (ended) return;
        deps.upstream.call({ method: 'GET', path: 'account/', token, lang: ctx.lang }).catch((error: unknown) => {
          // Ended, or only this token outdated (roles changed): either way the browser reconnects through the checks.
          if (error instanceof UpstreamError && error.status === 401) end();
        });
      },
    };
    timers.push(
      setInterval(() => {
        if (!stream.usable()) return end();
        body.write(': ping\n\n');
      }, HEARTBEAT_MS),
      // Besides the hub's at-once recheck when the account changes (ADR 037): a session ended with no change of it.
      setInterval(() => stream.recheck!(), deps.recheckMs ?? SESSION_RECHECK_MS),
    );
    for (const timer of timers) timer.unref();
    reply.raw.on('close', end);
    body.write('retry: 3000\n: live\n\n');
    detach = await hub.attach(stream, lastEventId(req));
    if (ended) detach();
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').send(body);
  });
}
