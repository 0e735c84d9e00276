import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { initTRPC, TRPCError } from '@trpc/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerTrpcRoute } from '../../server/trpc/fastify-handler.ts';

/**
 * `/trpc/:path` (ADR 070): GET queries are answered without tRPC's Fetch API adapter, everything else by it. Every
 * request below is sent to both (this route and tRPC's own Fastify plugin, over the same router) and must get the
 * same status, body, media type and `vary`; a query's signal is aborted only when its client went away.
 */
interface Ctx {
  user: string | null;
  signals: AbortSignal[];
}

const t = initTRPC.context<Ctx>().create({
  errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, stack: undefined, cause: error.cause instanceof Error ? error.cause.name : null } }),
});
const authed = t.procedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Please sign in.' });
  return next();
});
const router = t.router({
  list: t.procedure
    .input(z.object({ page: z.number().int().positive(), search: z.string().optional() }))
    .query(({ input }) => ({ results: [{ id: input.page, q: input.search ?? null }] })),
  me: authed.query(({ ctx }) => ({ user: ctx.user })),
  plain: t.procedure.query(() => 'no input'),
  boom: t.procedure.query(() => {
    throw new Error('internal detail');
  }),
  forbidden: t.procedure.query(() => {
    throw new TRPCError({ code: 'FORBIDDEN', message: 'not yours' });
  }),
  streamLike: t.procedure.query(() => ({ later: Promise.resolve(1) })),
  remember: t.procedure.input(z.object({ wait: z.boolean() })).query(async ({ ctx, input, signal }) => {
    ctx.signals.push(signal!);
    if (input.wait) await new Promise((resolve) => signal!.addEventListener('abort', resolve, { once: true }));
    return 'done';
  }),
  save: t.procedure.input(z.object({ name: z.string() })).mutation(({ input }) => ({ saved: input.name })),
});

const signals: AbortSignal[] = [];
const createContext = ({ req }: { req: { headers: Record<string, string | string[] | undefined> } }): Ctx => ({
  user: typeof req.headers['x-user'] === 'string' ? req.headers['x-user'] : null,
  signals,
});

let ours: FastifyInstance;
let theirs: FastifyInstance;
beforeAll(async () => {
  ours = Fastify({ logger: false });
  await registerTrpcRoute(ours, '/trpc', { router, createContext, maxBatchSize: 3 });
  theirs = Fastify({ logger: false });
  await theirs.register(fastifyTRPCPlugin, { prefix: '/trpc', trpcOptions: { router, createContext, maxBatchSize: 3 } });
  await Promise.all([ours.ready(), theirs.ready()]);
});
afterAll(async () => {
  await Promise.all([ours?.close(), theirs?.close()]);
});

const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

describe('tRPC route (ADR 070)', () => {
  const cases: { name: string; method?: 'GET' | 'POST'; url: string; headers?: Record<string, string>; body?: string }[] = [
    { name: 'a query', url: `/trpc/list?input=${input({ page: 2, search: 'röd cykel' })}` },
    { name: 'a query without input', url: '/trpc/plain' },
    { name: 'a batch of one', url: `/trpc/list?batch=1&input=${input({ 0: { page: 1 } })}` },
    { name: 'a batch of three', url: `/trpc/list,plain,list?batch=1&input=${input({ 0: { page: 1 }, 2: { page: 3 } })}` },
    { name: 'a batch without input', url: '/trpc/plain,plain?batch=1' },
    { name: 'invalid input (400 with the zod cause)', url: `/trpc/list?input=${input({ page: -1 })}` },
    { name: 'an error thrown by a middleware, without and with a user', url: '/trpc/me' },
    { name: 'a signed-in query', url: '/trpc/me', headers: { 'x-user': 'ada' } },
    { name: 'an internal error', url: '/trpc/boom' },
    { name: 'a batch of mixed outcomes (207)', url: `/trpc/list,forbidden,boom?batch=1&input=${input({ 0: { page: 1 } })}` },
    { name: 'a batch of the same error', url: '/trpc/forbidden,forbidden?batch=1' },
    { name: 'a result only a stream can carry', url: '/trpc/streamLike' },
    { name: 'an unknown procedure', url: '/trpc/nothing' },
    { name: 'an unknown procedure in a batch', url: '/trpc/plain,nothing?batch=1' },
    { name: 'a batch over the limit', url: '/trpc/plain,plain,plain,plain?batch=1' },
    { name: 'malformed input', url: '/trpc/list?input=%7Bnot-json' },
    { name: 'a batch whose input is not an object', url: `/trpc/list?batch=1&input=${input([1])}` },
    { name: 'a mutation sent as GET', url: `/trpc/save?input=${input({ name: 'x' })}` },
    { name: 'a query sent as POST', method: 'POST', url: '/trpc/plain', headers: { 'content-type': 'application/json' }, body: '{}' },
    { name: 'a mutation', method: 'POST', url: '/trpc/save', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }) },
    { name: 'a batched mutation', method: 'POST', url: '/trpc/save?batch=1', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ 0: { name: 'Ada' } }) },
    { name: 'a streamed batch', url: `/trpc/list?batch=1&input=${input({ 0: { page: 1 } })}`, headers: { 'trpc-accept': 'application/jsonl' } },
  ];

  for (const c of cases) {
    it(`answers ${c.name} as tRPC's own adapter does`, async () => {
      const send = (app: FastifyInstance) => app.inject({ method: c.method ?? 'GET', url: c.url, headers: c.headers, payload: c.body });
      const [mine, reference] = await Promise.all([send(ours), send(theirs)]);
      expect(mine.statusCode).toBe(reference.statusCode);
      // The same media type; a JSON string sent by Fastify also names its charset (utf-8, as JSON always is).
      const mediaType = (header: unknown) => String(header).split(';')[0];
      expect(mediaType(mine.headers['content-type'])).toBe(mediaType(reference.headers['content-type']));
      expect(mine.headers.vary).toBe(reference.headers.vary);
      expect(mine.body).toBe(reference.body);
    });
  }

  it('leaves a finished query’s signal alone, and aborts it when the client goes away first', async () => {
    const own = Fastify({ logger: false });
    const seen: AbortSignal[] = [];
    await registerTrpcRoute(own, '/trpc', { router, createContext: () => ({ user: null, signals: seen }) });
    const address = await own.listen({ port: 0, host: '127.0.0.1' });
    try {
      const done = await request(`${address}/trpc/remember?input=${input({ wait: false })}`);
      expect(await done.body.json()).toEqual({ result: { data: 'done' } });
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).toHaveLength(1);
      // tRPC's adapter aborts every request's signal when its response closes (a DOMException with its stack each time).
      expect(seen[0]!.aborted).toBe(false);

      const leaving = new AbortController();
      const pending = request(`${address}/trpc/remember?input=${input({ wait: true })}`, { signal: leaving.signal }).catch((error: unknown) => error);
      await expect.poll(() => seen.length).toBe(2);
      leaving.abort();
      await pending;
      await expect.poll(() => seen[1]!.aborted).toBe(true);
    } finally {
      await own.close();
    }
  });
});
