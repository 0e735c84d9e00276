import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import {
  getErrorShape,
  getHTTPStatusCode,
  getProcedureAtPath,
  getTRPCErrorFromUnknown,
  isAsyncIterable,
  isObject,
  isPromise,
  transformTRPCResponse,
  TRPCError,
  type AnyProcedure,
  type AnyRouter,
  type TRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';

/**
 * `/trpc/:path` (ADR 070). tRPC's Fastify adapter turns every request into a Fetch API `Request` (its `Headers`,
 * a `URL`, an `AbortController` it aborts when the response closes, which builds a `DOMException` with its stack
 * every time) and sends a Fetch `Response`, whose body Fastify pipes through a web stream. For the back office's
 * commonest request, a query, that was the largest part of what it spends beyond a bare Fastify + undici hop.
 *
 * Queries sent as GET (one, or a batch of them, as httpBatchLink sends them) are answered here, with tRPC's own
 * pieces and in its own way: the input parsed and deserialised as its JSON content handler does, the same
 * procedures called with the same options, errors shaped by the router's error formatter (`getErrorShape`), the
 * status from `getHTTPStatusCode` (207 for a batch of mixed outcomes), the body from `transformTRPCResponse`,
 * and the same `vary` and `content-type`. Their `signal` is aborted when the client goes away before the answer,
 * not after every answer. Anything else (mutations, a streamed batch asked for by `trpc-accept`, a
 * subscription, an unknown procedure, a malformed input or batch, connection params) goes to tRPC's adapter
 * unchanged, decided before any procedure runs.
 */
export interface TrpcRouteOptions<TRouter extends AnyRouter> {
  router: TRouter;
  createContext: (opts: { req: FastifyRequest; res: FastifyReply }) => unknown;
  maxBatchSize?: number;
}

interface QueryCall {
  path: string;
  procedure: AnyProcedure;
  input: unknown;
}

/** tRPC's `getAcceptHeader` on Node's headers: a streamed (JSON lines) answer was asked for. */
function wantsStream(req: FastifyRequest): boolean {
  const trpcAccept = req.headers['trpc-accept'];
  if (trpcAccept !== undefined) return true;
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.split(',').some((type) => type.trim() === 'application/jsonl');
}

/** tRPC's `isDataStream`: a result it could only send on a streamed answer. */
function isDataStream(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (isAsyncIterable(value)) return true;
  const values = Object.values(value);
  return values.some(isPromise) || values.some(isAsyncIterable);
}

const EMPTY = Symbol('empty');

/**
 * The query calls of a GET, as tRPC's JSON content handler would read them; null when the request is anything
 * tRPC's adapter should answer itself (nothing has run yet).
 */
async function queryCalls(router: AnyRouter, req: FastifyRequest, rawPath: string, maxBatchSize: number | undefined): Promise<{ calls: QueryCall[]; isBatch: boolean } | null> {
  if (req.method !== 'GET' || wantsStream(req)) return null;
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !contentType.startsWith('application/json')) return null;
  const at = req.url.indexOf('?');
  const searchParams = new URLSearchParams(at < 0 ? '' : req.url.slice(at + 1));
  if (searchParams.has('connectionParams')) return null;
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  const isBatch = searchParams.get('batch') === '1';
  const paths = isBatch ? path.split(',') : [path];
  if (isBatch && typeof maxBatchSize === 'number' && paths.length > maxBatchSize) return null;
  const deserialize = router._def._config.transformer.input.deserialize;
  let inputs: unknown = EMPTY;
  const queryInput = searchParams.get('input');
  if (queryInput) {
    try {
      inputs = JSON.parse(queryInput);
    } catch {
      return null;
    }
  }
  if (isBatch && inputs !== EMPTY && !isObject(inputs)) return null;
  const calls: QueryCall[] = [];
  for (let index = 0; index < paths.length; index++) {
    const procedure = (await getProcedureAtPath(router, paths[index]!)) as AnyProcedure | null;
    if (!procedure || procedure._def.type !== 'query') return null;
    let input: unknown = undefined;
    if (inputs !== EMPTY) {
      const raw = isBatch ? (inputs as Record<number, unknown>)[index] : inputs;
      if (raw !== undefined) input = deserialize(raw);
    }
    calls.push({ path: paths[index]!, procedure, input });
  }
  return { calls, isBatch };
}

/** A signal aborted when the client goes away before the answer is written (not after every answer). */
function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const raw = reply.raw;
  raw.once('close', () => {
    if (!raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

async function answerQueries(router: AnyRouter, calls: QueryCall[], isBatch: boolean, req: FastifyRequest, reply: FastifyReply, opts: TrpcRouteOptions<AnyRouter>) {
  const config = router._def._config;
  let ctx: unknown;
  let ctxError: TRPCError | null = null;
  try {
    ctx = await opts.createContext({ req, res: reply });
  } catch (cause) {
    ctxError = getTRPCErrorFromUnknown(cause);
  }
  const signal = clientGoneSignal(reply);
  const streamLike = () => new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink' });
  const outcomes = await Promise.all(
    calls.map(async (call, batchIndex): Promise<[TRPCError, undefined] | [undefined, unknown]> => {
      try {
        if (ctxError) throw ctxError;
        return [undefined, await call.procedure({ path: call.path, getRawInput: async () => call.input, ctx, type: 'query', signal, batchIndex })];
      } catch (cause) {
        return [getTRPCErrorFromUnknown(cause), undefined];
      }
    }),
  );
  const responses = outcomes.map(([error, data], index): TRPCResponse => {
    const call = calls[index]!;
    const shape = (error: TRPCError, named: boolean) =>
      getErrorShape({ config, ctx: ctxError ? undefined : ctx, error, input: named ? call.input : undefined, path: named ? call.path : undefined, type: 'query' });
    if (error) return { error: shape(error, true) };
    // As tRPC: in a batch the call's own error; alone, the request's (without the call's path).
    if (isDataStream(data)) return { error: shape(streamLike(), isBatch) };
    return { result: { data } };
  });
  const json = isBatch ? responses : responses[0]!;
  return reply
    .code(getHTTPStatusCode(json))
    .header('vary', 'trpc-accept, accept')
    .header('content-type', 'application/json')
    .send(JSON.stringify(transformTRPCResponse(config, json)));
}

/** Registers `/trpc/:path` under `prefix`: GET queries answered here, everything else by tRPC's Fastify adapter. */
export async function registerTrpcRoute<TRouter extends AnyRouter>(app: FastifyInstance, prefix: string, opts: TrpcRouteOptions<TRouter>): Promise<void> {
  await app.register(
    async (scope) => {
      // As tRPC's plugin does: bodies reach its handler as text (JSON) or untouched (form data).
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
      scope.removeContentTypeParser('multipart/form-data');
      scope.addContentTypeParser('multipart/form-data', {}, (_req, body, done) => done(null, body));
      scope.all('/:path', async (req, reply) => {
        const path = (req.params as { path: string }).path;
        const queries = await queryCalls(opts.router, req, path, opts.maxBatchSize);
        if (queries) return answerQueries(opts.router, queries.calls, queries.isBatch, req, reply, opts as TrpcRouteOptions<AnyRouter>);
        await fastifyRequestHandler({ router: opts.router, createContext: opts.createContext as never, maxBatchSize: opts.maxBatchSize, req, res: reply, path });
        return reply;
      });
    },
    { prefix },
  );
}
