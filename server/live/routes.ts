import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';
import { LIVE_PATH } from '../../shared/live.ts';
import { isCrossSite } from '../csrf.ts';
import type { Context } from '../trpc/context.ts';
import { SessionExpiredError } from '../session/request-session.ts';
import { sessionIdOf } from '../session/tokens.ts';
import { UpstreamError, type UpstreamClient } from '../upstream/client.ts';
import type { Language } from '../../shared/languages.ts';
import type { LiveHub, LiveStream } from './hub.ts';

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
  deps: {
    hub: LiveHub | null;
    createContext: (req: FastifyRequest, reply: FastifyReply) => Context;
    upstream: UpstreamClient;
    translate: (lang: Language, key: string) => Promise<string>;
  },
) {
  const { hub } = deps;
  app.get(LIVE_PATH, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    if (isCrossSite(req)) return reply.code(403).send('Forbidden');
    // Without the API's secret (UPSTREAM_URL without UPSTREAM_FORWARDED_SECRET) there is nothing to relay: browsers poll.
    if (!hub) return reply.code(404).send('Live updates are off');
    const ctx = deps.createContext(req, reply);
    if (!ctx.session.isAuthenticated()) return reply.code(401).send('Unauthorized');
    // Past the caps (ADR 058) before asking the API anything: a flood of streams costs one cookie check each.
    const tooMany = async () =>
      reply
        .code(429)
        .header('retry-after', '60')
        .type('text/plain; charset=utf-8')
        .send(await deps.translate(ctx.lang, 'errors.too_many_streams'));
    const claimed = ctx.session.info();
    const claimedToken = ctx.session.accessToken();
    if (claimed?.userId && claimedToken && hub.full({ sessionId: sessionIdOf(claimedToken), viewer: { userId: Number(claimed.userId), roles: claimed.roles } })) return tooMany();
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
    let detach: () => void = () => undefined;
    const end = () => {
      if (ended) return;
      ended = true;
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
      // Asked by the hub for the session's newest stream, every 30 s and when the account changes (ADR 037, 058).
      // A 401: ended, or only this token outdated (roles changed); either way the browsers reconnect through the checks.
      recheck: () =>
        deps.upstream.call({ method: 'GET', path: 'account/', token, lang: ctx.lang }).then(
          () => true,
          (error: unknown) => !(error instanceof UpstreamError && error.status === 401),
        ),
    };
    reply.raw.on('close', end);
    body.write('retry: 3000\n: live\n\n');
    const attached = await hub.attach(stream, lastEventId(req));
    if (!attached) {
      body.destroy();
      return tooMany();
    }
    detach = attached;
    if (ended) detach();
    return reply.header('content-type', 'text/event-stream; charset=utf-8').header('x-accel-buffering', 'no').send(body);
  });
}
