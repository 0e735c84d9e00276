import fastifyUnderPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface PressureLimits {
  maxEventLoopDelayMs?: number;
  maxHeapUsedBytes?: number;
  maxRssBytes?: number;
}

/** A logout, by the app's tRPC call or the no-JS form: never shed, so a session ends when its user says so (ADR 058). */
export function neverShed(req: Pick<FastifyRequest, 'method' | 'url'>): boolean {
  if (req.method !== 'POST') return false;
  const path = req.url.split('?')[0];
  return path === '/logout' || path === '/trpc/auth.logout';
}

/**
 * Sheds load before it piles up (ADR 008): 503 + Retry-After while the event loop or memory is overloaded.
 * The handler answers the 503's body and the plugin sends it and stops there (ADR 058): sending it here and
 * answering nothing let the plugin go on to the route, whose handler ran anyway ("Reply was already sent").
 */
export async function registerLoadShedding(app: FastifyInstance, limits: PressureLimits | undefined, onShed: () => void, sampleIntervalMs?: number) {
  await app.register(fastifyUnderPressure, {
    maxEventLoopDelay: limits?.maxEventLoopDelayMs ?? 1000,
    maxHeapUsedBytes: limits?.maxHeapUsedBytes ?? 1024 * 1024 * 1024,
    maxRssBytes: limits?.maxRssBytes ?? 1536 * 1024 * 1024,
    retryAfter: 10,
    ...(sampleIntervalMs ? { sampleInterval: sampleIntervalMs } : {}),
    // The plugin sends what the handler answers (not a promise, not nothing) and runs nothing after it;
    // answering nothing lets the request go on, as a logout does.
    pressureHandler: ((req: FastifyRequest, reply, type) => {
      if (neverShed(req)) return undefined;
      onShed();
      reply.code(503).header('retry-after', '10');
      return { error: { message: 'Server busy, try again shortly.', data: { appCode: 'overloaded', reason: type } } };
    }) as (...args: Parameters<NonNullable<Parameters<typeof fastifyUnderPressure>[1]['pressureHandler']>>) => void,
  });
}
