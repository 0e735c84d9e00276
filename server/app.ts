import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PathOnlyLogController, requestIdOf } from '../shared/request-log.server.ts';
import { closeConnectionsWhenDraining } from '../shared/graceful-close.server.ts';
import { ASSET_DIR } from '../shared/static-assets.ts';
import { IDEMPOTENCY_HEADER, isIdempotencyKey } from '../shared/http-headers.ts';
import { registerSecurityHeaders } from './security-headers.ts';
import { guardRoute, matchRoute, safeRedirectPath } from '../shared/route-table.ts';
import { csrfRefusal } from './csrf.ts';
import { createCookieSealer } from './session/cookie-crypto.ts';
import { createRefreshCoordinator } from './session/refresh-coordinator.ts';
import { createProfileCache } from './session/profile-cache.ts';
import type { SessionUser } from '../shared/schemas/auth.ts';
import { SessionExpiredError, createRequestSession, type RequestSession } from './session/request-session.ts';
import { createSsrRenderer, type SsrMode, type SsrRenderer } from './ssr/renderer.ts';
import { RenderUnavailableError } from './ssr/render-pool.ts';
import { registerInProcessFiles, type RawHandler } from './in-process-files.ts';
import { languageOf, type Context } from './trpc/context.ts';
import { appRouter } from './trpc/router.ts';
import { registerTrpcRoute } from './trpc/fastify-handler.ts';
import { createUpstreamClient, type UpstreamClient } from './upstream/client.ts';
import { createMetrics, instrument, pathTemplate, type Metrics } from './metrics.ts';
import { createLoginGuard, type LoginGuard, type LoginLimits } from './login-limiter.ts';
import { registerExports } from './export.ts';
import { createGeocoder } from './geocoder.ts';
import { tileOrigin } from './map-config.ts';
import { DEFAULT_OPERATION_RANGE, type MapConfig, type OperationRange } from '../shared/geo.ts';
import { sendCompressed } from './compress.ts';
import { registerPublicForms } from './public-forms.ts';
import type { PublicFormResult } from '../shared/ssr-contract.ts';
import { createLiveHub, type LiveHub } from './live/hub.ts';
import { registerLiveRoutes } from './live/routes.ts';
import { registerLoadShedding } from './load-shedding.ts';
import fastifyRateLimit from '@fastify/rate-limit';

export interface BuildAppOptions {
  upstreamUrl: string;
  cookieSecrets: readonly string[];
  /** Secure + `__Host-` cookies and HSTS; on when served over HTTPS. */
  secureCookies: boolean;
  ssr: SsrMode;
  version: string;
  logger?: FastifyServerOptions['logger'] | FastifyServerOptions['loggerInstance'];
  googleClientId?: string;
  /** Origin of uploaded files (the signed-upload storage), allowed in CSP img-src/connect-src. */
  uploadOrigin?: string;
  upstreamTimeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** The API's shared secret for forwarded client addresses (`UPSTREAM_FORWARDED_SECRET`, or the in-process API's; ADR 028). */
  upstreamForwardedSecret?: string;
  /** Which proxies' X-Forwarded-For to believe: how many stand in front, or their addresses (`TRUST_PROXY`; ADR 018). */
  trustProxy?: boolean | number | string[];
  sessionMaxAgeSeconds?: number;
  /** Required as a Bearer token on /metrics when set. */
  metricsToken?: string;
  /** Serve /metrics without a token (development only); unset and without a token, /metrics is a 404. */
  metricsOpen?: boolean;
  /** Load shedding thresholds (@fastify/under-pressure). */
  pressure?: { maxEventLoopDelayMs?: number; maxHeapUsedBytes?: number; maxRssBytes?: number };
  /** Sign-in attempts allowed per IP per minute, and per account per 15 minutes. */
  loginLimits?: LoginLimits;
  /** Maps (ADR 011): the operation range drawn, the tile URL template (its origin joins CSP img-src). */
  map?: { range?: OperationRange; tileUrl?: string | null; tileAttribution?: string };
  /** Base URL of a Nominatim-compatible geocoder; unset: places are picked on the map. */
  geocoderUrl?: string;
  /** Sent to the geocoder as User-Agent (its usage policy asks for one). */
  publicUrl?: string;
  /** The in-process reference API's router: the back office serves its `/files` routes (ADR 029). */
  inProcessFiles?: RawHandler;
  /** Called after each server render with its route and timings (benchmarks); also in /metrics. */
  onSsrRender?: (route: string, timings: { prefetchMs: number; renderMs: number; renderCpuMs: number }) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    upstream: UpstreamClient;
    metrics: Metrics;
    refreshStats: { refreshes: number; rejected: number; failures: number };
    /** The render workers now serving (ADR 027); the memory bench reads their heaps. */
    renderThreads: () => readonly import('node:worker_threads').Worker[];
    /** From now on `/readyz` answers 503 while everything else is still served: the drain before a stop (ADR 046). */
    markNotReady: () => void;
  }
  interface FastifyRequest {
    backofficeSession?: RequestSession;
    cspNonce?: string;
  }
}

export const LOG_REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  '*.password',
  '*.password_confirm',
  '*.refresh_token',
  '*.token',
];

function loggerOption(logger: BuildAppOptions['logger']): Pick<FastifyServerOptions, 'logger' | 'loggerInstance'> {
  if (logger && typeof logger === 'object' && 'child' in logger && typeof logger.child === 'function') {
    return { loggerInstance: logger as FastifyServerOptions['loggerInstance'] };
  }
  if (logger === false || logger === undefined) return { logger: false };
  const base = typeof logger === 'object' ? logger : {};
  return { logger: { level: 'info', ...base, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } } };
}

/**
 * A number is how many proxies stand in front: believe that many hops of X-Forwarded-For, counted from the
 * connection, so the client address is the one the outermost proxy appended — never what a client wrote
 * in the header itself (Fastify dropped hop counts; proxy-addr's trust function gives them back).
 */
function trustOf(option: BuildAppOptions['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof option === 'number') return option > 0 ? (_address: string, hop: number) => hop < option : false;
  return option ?? false;
}

type CreateContext = (req: FastifyRequest, reply: FastifyReply) => Context;

/**
 * What every request may call on: metrics, the API client, the session cookie's sealer and the token refresh,
 * the map and its geocoder. The app is decorated with them and closes them on close.
 */
function createServices(app: FastifyInstance, opts: BuildAppOptions) {
  const metrics = createMetrics();
  const upstream = createUpstreamClient({
    baseUrl: opts.upstreamUrl,
    onCall: (method, path, status, seconds) => metrics.upstreamDuration.observe({ method, path: pathTemplate(path), status: String(status) }, seconds),
    connectTimeoutMs: opts.upstreamTimeouts?.connectMs,
    headersTimeoutMs: opts.upstreamTimeouts?.headersMs,
    bodyTimeoutMs: opts.upstreamTimeouts?.bodyMs,
    forwardedSecret: opts.upstreamForwardedSecret,
  });
  const sealer = createCookieSealer(opts.cookieSecrets);
  const coordinator = createRefreshCoordinator(upstream, {
    onRefresh: (outcome) => {
      metrics.refreshes.inc({ outcome });
      app.log.info({ outcome }, 'token refresh');
    },
  });
  const range = opts.map?.range ?? DEFAULT_OPERATION_RANGE;
  const tileUrl = opts.map?.tileUrl ?? null;
  const geocoder = opts.geocoderUrl
    ? createGeocoder({ baseUrl: opts.geocoderUrl, range, userAgent: `bike-backoffice/${opts.version}${opts.publicUrl ? ` (+${opts.publicUrl})` : ''}` })
    : undefined;
  if (geocoder) app.addHook('onClose', async () => geocoder.close());
  const mapConfig: MapConfig = { centre: range.centre, radiusMetres: range.radiusMetres, tileUrl, tileAttribution: opts.map?.tileAttribution ?? '', geocoding: Boolean(geocoder) };
  const tiles = tileUrl ? tileOrigin(tileUrl) : null;
  // One subscription to the API's change events per process (ADR 037); it needs the secret the API shares with us.
  const live: LiveHub | null = opts.upstreamForwardedSecret
    ? createLiveHub({
        upstreamUrl: opts.upstreamUrl,
        forwardedSecret: opts.upstreamForwardedSecret,
        log: app.log,
        onStreamsChanged: (open) => metrics.liveStreams.set(open),
        onUpstreamConnected: (connected) => metrics.liveUpstream.set(connected ? 1 : 0),
      })
    : null;
  // Before the server waits for its connections: open streams would hold it open.
  if (live) app.addHook('preClose', async () => live.close());
  app.decorate('upstream', upstream);
  app.decorate('metrics', metrics);
  app.decorate('refreshStats', coordinator.stats);
  app.addHook('onClose', async () => upstream.close());
  return { metrics, upstream, sealer, coordinator, geocoder, mapConfig, tiles, live };
}

type Services = ReturnType<typeof createServices>;

/** The context of a tRPC call, an export or a page render: the request's session (made once per request) and the services. */
function contextFactory(opts: BuildAppOptions, { upstream, sealer, coordinator, geocoder, live }: Services, loginGuard: LoginGuard): CreateContext {
  const profiles = createProfileCache<SessionUser>();
  const sessionConfig = { secure: opts.secureCookies, maxAgeSeconds: opts.sessionMaxAgeSeconds ?? 30 * 24 * 3600 };
  const sessionOf = (req: FastifyRequest, reply: FastifyReply) =>
    (req.backofficeSession ??= createRequestSession(req, reply, { upstream, sealer, coordinator, config: sessionConfig }));

  return (req, reply) => ({
    req,
    reply,
    session: sessionOf(req, reply),
    upstream,
    lang: languageOf(req),
    log: req.log,
    googleClientId: opts.googleClientId,
    geocoder,
    loginGuard,
    secureCookies: opts.secureCookies,
    profiles,
    live: live ?? undefined,
  });
}

/** Cookies, form bodies, security headers, load shedding and rate limiting. */
async function registerPlugins(app: FastifyInstance, opts: BuildAppOptions, metrics: Metrics) {
  await app.register(fastifyCookie, { parseOptions: {} });
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  registerSecurityHeaders(app, {
    // The CSP carries a per-request nonce and is set on HTML pages below.
    contentSecurityPolicy: false,
    hsts: opts.secureCookies ? { maxAge: 31536000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  });

  await registerLoadShedding(app, opts.pressure, () => metrics.shed.inc());
  await app.register(fastifyRateLimit, { global: false });
}

/** `/healthz` (the process is up) and `/readyz` (the API answers too, and the process is not stopping). */
function registerHealthChecks(app: FastifyInstance, upstream: UpstreamClient) {
  let stopping = false;
  app.decorate('markNotReady', () => {
    stopping = true;
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    if (stopping) return reply.code(503).send({ status: 'not ready', reason: 'stopping' });
    try {
      const res = await upstream.stream({ method: 'GET', path: '../healthz' });
      await res.body.dump();
      // Any answer short of a server error means the API is up (a production API may have no /healthz).
      if (res.statusCode >= 500) throw new Error(`upstream answered ${res.statusCode}`);
      return { status: 'ready', upstream: 'ok' };
    } catch (error) {
      return reply.code(503).send({ status: 'not ready', upstream: error instanceof Error ? error.message : 'unreachable' });
    }
  });
}

/** `/trpc`, behind its CSRF check. */
async function registerTrpc(app: FastifyInstance, createContext: CreateContext) {
  // tRPC: mutations need the CSRF header, JSON bodies and a same-site origin.
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/trpc/') || req.method === 'GET' || req.method === 'HEAD') return;
    const refusal = csrfRefusal(req);
    if (refusal) {
      req.log.warn({ refusal }, 'request refused');
      return reply.code(403).send({ error: { message: 'csrf', code: -32003, data: { appCode: 'csrf', httpStatus: 403 } } });
    }
    // An Idempotency-Key names one mutation (ADR 042): never a batch of several, nor a malformed key.
    const key = req.headers[IDEMPOTENCY_HEADER];
    if (key !== undefined && (!isIdempotencyKey(key) || req.url.split('?')[0]!.includes(','))) {
      return reply.code(400).send({ error: { message: 'validation_error', code: -32600, data: { appCode: 'validation_error', httpStatus: 400 } } });
    }
  });
  // GET queries answered without tRPC's Fetch API round trip; everything else by its Fastify adapter (ADR 070).
  await registerTrpcRoute(app, '/trpc', {
    router: appRouter,
    createContext: ({ req, res }) => createContext(req, res),
    maxBatchSize: 10,
  });
}

/** The built client's files (production only), the hashed assets cached for a year. */
async function registerStaticFiles(app: FastifyInstance, ssr: SsrMode) {
  const clientDir = ssr.kind === 'production' ? ssr.clientDir : null;
  if (clientDir && existsSync(clientDir)) {
    await app.register(fastifyStatic, {
      root: clientDir,
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each asset (vite.config.ts); they are sent when accepted.
      preCompressed: true,
      setHeaders(res, path) {
        if (!path.includes(`${join('/', ASSET_DIR, '/')}`)) return;
        res.header('cache-control', 'public, max-age=31536000, immutable');
        // A hashed file never changes under its name, so nothing revalidates or resumes it: its validators and
        // range support are ~100 bytes of every script's headers for nothing (ADR 062).
        for (const header of ['etag', 'last-modified', 'accept-ranges']) res.removeHeader(header);
      },
    });
  }
}

/** The Content-Security-Policy of an HTML page: scripts by nonce only, Google sign-in, uploads and map tiles when configured. */
function contentSecurityPolicy(opts: BuildAppOptions, tiles: string | null, nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${opts.googleClientId ? ' https://accounts.google.com/gsi/client' : ''}`,
    // Primer and styled-components set inline style attributes; scripts stay nonce-only.
    `style-src 'self' 'unsafe-inline'${opts.googleClientId ? ' https://accounts.google.com/gsi/style' : ''}`,
    `img-src 'self' data: blob:${opts.uploadOrigin ? ' ' + opts.uploadOrigin : ''}${tiles ? ' ' + tiles : ''}${opts.googleClientId ? ' https://*.googleusercontent.com' : ''}`,
    `connect-src 'self'${opts.uploadOrigin ? ' ' + opts.uploadOrigin : ''}${opts.googleClientId ? ' https://accounts.google.com/gsi/' : ''}`,
    `frame-src ${opts.googleClientId ? 'https://accounts.google.com/gsi/' : "'none'"}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const ENROL_PATH = '/security';
/** A signed-in page while the sign-in must first enrol a second factor (the token's `enrol`, ADR 068). */
const mustEnrol = (info: { enrol: boolean } | null, route: { roles?: unknown } | undefined, pathname: string) => Boolean(info?.enrol && route?.roles && pathname !== ENROL_PATH);

interface PageDeps {
  opts: BuildAppOptions;
  renderer: SsrRenderer;
  createContext: CreateContext;
  metrics: Metrics;
  mapConfig: MapConfig;
  tiles: string | null;
}

/** A signed-in request's tokens refreshed before its page renders, when their access token has expired. */
async function refreshBeforeRender(req: FastifyRequest, session: { isAuthenticated(): boolean; ensureFresh(): Promise<void> }) {
  if (!session.isAuthenticated()) return;
  try {
    await session.ensureFresh();
  } catch (error) {
    if (!(error instanceof SessionExpiredError)) req.log.warn({ err: error }, 'refresh before render failed');
  }
}

/**
 * Where a request for a page goes instead (sign-in, /forbidden, or the second-factor enrolment the policy
 * requires, ADR 068), or null to render it. `info` is the session's, `session` its roles (null: signed out).
 */
function redirectFor(
  route: Parameters<typeof guardRoute>[0],
  session: Parameters<typeof guardRoute>[1],
  info: { enrol: boolean } | null,
  url: string,
  pathname: string,
): string | null {
  const guard = guardRoute(route, session, url);
  if (guard.kind === 'login') return guard.redirectTo;
  if (guard.kind === 'forbidden') return '/forbidden';
  if (session && mustEnrol(info, route, pathname)) return ENROL_PATH;
  return null;
}

/** The server-rendered pages: the public forms posted to their own page, and every other address. */
function registerPages(app: FastifyInstance, { opts, renderer, createContext, metrics, mapConfig, tiles }: PageDeps) {
  const cspFor = (nonce: string) => contentSecurityPolicy(opts, tiles, nonce);

  /**
   * Renders the page at the request's address (ADR 005): guards first, then React on the server. A public
   * form posted to its own page (server/public-forms.ts) renders it with the outcome.
   */
  async function sendPage(req: FastifyRequest, reply: FastifyReply, form?: PublicFormResult, status?: number): Promise<FastifyReply> {
    const url = req.url;
    const pathname = url.split('?')[0] ?? '/';
    const ctx = createContext(req, reply);
    await refreshBeforeRender(req, ctx.session);
    const info = ctx.session.info();
    const session = ctx.session.isAuthenticated() ? { roles: info?.roles ?? [] } : null;
    const match = matchRoute(pathname);
    const away = redirectFor(match?.route, session, info, url, pathname);
    if (away) return reply.redirect(away, 302);
    if (pathname === '/login' && session && session.roles.length > 0) {
      return reply.redirect(safeRedirectPath(new URLSearchParams(url.split('?')[1] ?? '').get('redirect')), 302);
    }

    const nonce = randomBytes(16).toString('base64');
    let page: Awaited<ReturnType<typeof renderer.render>>;
    try {
      page = await renderer.render({ url, ctx, nonce, config: { googleClientId: opts.googleClientId ?? null, version: opts.version, map: mapConfig }, form });
    } catch (error) {
      // A render worker that looped or ran out of memory was replaced (ADR 029): try again shortly.
      if (!(error instanceof RenderUnavailableError)) throw error;
      req.log.warn({ reason: error.reason }, 'page render given up');
      reply.code(503).header('retry-after', '5').header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store');
      if (renderer.enforceCsp) reply.header('content-security-policy', cspFor(nonce));
      return reply.send(await renderer.unavailablePage(ctx.lang));
    }
    // The render's calls (session.me on every page) may have found the session ended upstream, or a refresh
    // may have brought other roles (ADR 017): guard again with what is known now, not the cookie's old claims.
    if (session) {
      const now = ctx.session.isAuthenticated() ? { roles: ctx.session.info()?.roles ?? [] } : null;
      const again = redirectFor(match?.route, now, ctx.session.info(), url, pathname);
      if (again) return reply.redirect(again, 302);
    }
    const routeLabel = match?.route.path ?? 'not-found';
    metrics.ssrRender.observe({ route: routeLabel }, page.timings.renderMs / 1000);
    opts.onSsrRender?.(routeLabel, page.timings);
    reply
      .code(status ?? page.status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store');
    if (renderer.enforceCsp) reply.header('content-security-policy', cspFor(nonce));
    return sendCompressed(req, reply, page.body);
  }

  registerPublicForms(app, { createContext, sendPage: (req, reply, form, status) => sendPage(req, reply, form, status) });
  app.get('/*', (req, reply) => sendPage(req, reply));
}

/** Builds the back-office server; never listens (server/main.ts does). */
export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggerOption(opts.logger),
    // A trusted proxy's request id (X-Request-Id, traceparent: deploy/haproxy sets its own), else our own: never
    // one a browser picked without a proxy in front (ADR 058), since it names the request in the API's history.
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req, Boolean(trustOf(opts.trustProxy))),
    logController: new PathOnlyLogController(),
    trustProxy: trustOf(opts.trustProxy),
    bodyLimit: 1024 * 1024,
    requestTimeout: 60_000,
    connectionTimeout: 65_000,
    // tRPC batches put every procedure name in the path; the batch size itself is capped below.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 2000 },
  });

  const services = createServices(app, opts);
  const { metrics, upstream, mapConfig, tiles } = services;

  await registerPlugins(app, opts, metrics);
  const loginGuard = createLoginGuard(app, opts.loginLimits);
  const createContext = contextFactory(opts, services, loginGuard);
  instrument(app, metrics, { token: opts.metricsToken, openWithoutToken: opts.metricsOpen }, new Set(Object.keys(appRouter._def.procedures)));

  // Keep-alive clients cannot hold the server open past the requests that were in flight.
  closeConnectionsWhenDraining(app);
  app.addHook('onSend', async (req, reply) => {
    // tRPC answers and exports carry personal data: no browser, proxy or CDN may keep a copy (ADR 020).
    if ((req.url.startsWith('/trpc/') || req.url.startsWith('/export/')) && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  registerHealthChecks(app, upstream);
  await registerTrpc(app, createContext);
  registerExports(app, createContext);
  if (opts.inProcessFiles) await registerInProcessFiles(app, opts.inProcessFiles);

  const renderer = await createSsrRenderer(app, opts.ssr);
  registerLiveRoutes(app, { hub: services.live, createContext, upstream, translate: renderer.translate });
  app.decorate('renderThreads', () => renderer.renderThreads());
  await registerStaticFiles(app, opts.ssr);
  registerPages(app, { opts, renderer, createContext, metrics, mapConfig, tiles });

  return app;
}
