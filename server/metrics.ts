import type { FastifyInstance } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ENTITIES } from '../shared/entities/registry.ts';
import { isRecordAction, ownActions, segmentOf, subResourceKey, type EntityDef } from '../shared/entity/define.ts';

/** Prometheus metrics of one back-office process (ADR 008). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    registry,
    requests: new Counter({ name: 'backoffice_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    requestDuration: new Histogram({
      name: 'backoffice_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets,
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: 'backoffice_upstream_request_duration_seconds',
      help: 'Latency of calls to the marketplace API',
      labelNames: ['method', 'path', 'status'],
      buckets,
      registers: [registry],
    }),
    ssrRender: new Histogram({
      name: 'backoffice_ssr_render_seconds',
      help: 'Server render time of a page once its data is fetched',
      labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers: [registry],
    }),
    refreshes: new Counter({ name: 'backoffice_token_refresh_total', help: 'Token refreshes by outcome', labelNames: ['outcome'], registers: [registry] }),
    errors: new Counter({ name: 'backoffice_errors_total', help: 'Server errors by kind', labelNames: ['kind'], registers: [registry] }),
    shed: new Counter({ name: 'backoffice_load_shed_total', help: 'Requests refused with 503 under pressure', registers: [registry] }),
    liveStreams: new Gauge({ name: 'backoffice_live_streams', help: 'Open live-update streams of browsers (ADR 037)', registers: [registry] }),
    liveUpstream: new Gauge({ name: 'backoffice_live_upstream_connected', help: '1 while the subscription to the API change events is open', registers: [registry] }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Route templates of the marketplace API calls the back office makes, beyond every entity's generic ones
 * and its declared actions and sub-resources (ADR 020, 032). `:id` matches a number, `:param` any one segment. A call matching none is labelled `other`:
 * labels come from this fixed set only, never from what a request put into a path (a plan slug, a role name).
 */
const CUSTOM_TEMPLATES = [
  'account/',
  'account/login',
  'account/logout',
  'account/refresh-token',
  'account/invite',
  'account/bulk-invite',
  'account/resend-invite',
  'account/cancel-invite',
  'account/forgot-password',
  'account/reset-password',
  'account/accept-invite',
  'account/confirm-email',
  'account/change-email',
  'account/login/second-factor',
  'account/factors',
  'account/factors/totp',
  'account/factors/totp/confirm',
  'account/factors/totp/remove',
  'account/factors/recovery-codes',
  'account/factors/passkey',
  'account/factors/passkey/options',
  'account/factors/passkey/confirm-options',
  'account/factors/passkey/:param/remove',
  'account/login/passkey',
  'account/login/passkey/options',
  'account/sessions',
  'account/sessions/:param/end',
  'second-factor-policy',
  'auth/google',
  'upload/',
  'users/',
  'users/:id/',
  'users/:id/operational-range/',
  'users/:id/roles/',
  'users/:id/roles/:param/',
  'users/:id/languages/',
  'users/:id/languages/:id/',
  'users/:id/competencies/',
  'users/:id/competencies/:id/',
  'buddies/',
  'dashboard/',
  'statistics/',
  'public/subscription-plans/:param/',
  'dispatch/',
  'services/:id/details/:id/images/',
  'services/:id/details/:id/images/:id/',
  'trial-groups/:id/statistics/',
  'audit/',
  'audit/export/',
  'audit/verify/',
  'audit/events/',
  '../healthz',
] as const;

const ENTITY_TEMPLATES = ['', ':id/', ':id/transition/', 'calendar/', 'export/'];

/** The templates of an entity's declared actions and sub-resources (an item's key: `:id` when numeric). */
function declaredTemplates(def: EntityDef): string[] {
  const actions = ownActions(def).map(([key, action]) => `${def.name}/${isRecordAction(action) ? ':id/' : ''}${segmentOf(key, action.path)}/`);
  const subResources = Object.entries(def.subResources ?? {}).flatMap(([key, sub]) => {
    const at = `${def.name}/:id/${segmentOf(key, sub.path)}/`;
    const keyField = sub.item[subResourceKey(sub)];
    const keyTemplate = !keyField || keyField.kind === 'reference' || keyField.kind === 'integer' ? ':id' : ':param';
    return sub.set || sub.remove ? [at, `${at}${keyTemplate}/`] : [at];
  });
  return [...actions, ...subResources];
}

export const OTHER_UPSTREAM_PATH = 'other';

function compileTemplates(templates: readonly string[]): { template: string; segments: string[] }[] {
  return templates.map((template) => ({ template, segments: template.split('/') }));
}

const TEMPLATES = compileTemplates([
  ...(ENTITIES as readonly EntityDef[]).flatMap((def) => [...ENTITY_TEMPLATES.map((suffix) => `${def.name}/${suffix}`), ...declaredTemplates(def)]),
  ...CUSTOM_TEMPLATES,
]);

/** The templates by their number of segments and first segment, in their order (none begins with a parameter today). */
const TEMPLATES_BY_START = new Map<string, typeof TEMPLATES>();
for (const template of TEMPLATES) {
  const key = `${template.segments.length} ${template.segments[0]}`;
  TEMPLATES_BY_START.set(key, [...(TEMPLATES_BY_START.get(key) ?? []), template]);
}
const PARAMETER_FIRST = TEMPLATES.some(({ segments }) => segments[0]!.startsWith(':'));

/**
 * The route template of an upstream call path (relative to the API's base, as callers give it):
 * `subscriptions/12/cancel/` → `subscriptions/:id/cancel/`, `public/subscription-plans/anything/` →
 * `public/subscription-plans/:param/`, anything unknown → `other`. A bounded label set whatever comes in.
 */
export function pathTemplate(path: string): string {
  const segments = path.split('?')[0]!.replace(/^\//, '').split('/');
  // Only the templates of as many segments beginning with the same one can match (ADR 070).
  const candidates = PARAMETER_FIRST ? TEMPLATES : (TEMPLATES_BY_START.get(`${segments.length} ${segments[0]}`) ?? []);
  const found = candidates.find(
    ({ segments: pattern }) =>
      pattern.length === segments.length &&
      pattern.every((part, i) => (part === ':id' ? /^\d{1,19}$/.test(segments[i]!) : part === ':param' ? segments[i]!.length > 0 : part === segments[i])),
  );
  return found?.template ?? OTHER_UPSTREAM_PATH;
}

/**
 * The route label of a request: the route pattern, or for tRPC the procedure name, but only a known one
 * (anyone can ask for `/trpc/<anything>`; every new label would be a new time series kept forever).
 * Batches are one label: their combinations are unbounded too.
 */
export function routeLabel(route: string | undefined, trpcPath: string | undefined, procedures: ReadonlySet<string>): string {
  if (!route) return 'unmatched';
  if (!route.startsWith('/trpc')) return route;
  const names = (trpcPath ?? '').split(',');
  if (names.length > 1) return '/trpc/(batch)';
  return procedures.has(names[0]!) ? `/trpc/${names[0]}` : '/trpc/(unknown)';
}

export interface MetricsAccess {
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** Without a token, serve /metrics to anyone (development); otherwise it does not exist (404). */
  openWithoutToken?: boolean;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function instrument(app: FastifyInstance, metrics: Metrics, access: MetricsAccess, procedures: ReadonlySet<string>) {
  app.addHook('onResponse', async (req, reply) => {
    const label = routeLabel(req.routeOptions.url, (req.params as { path?: string } | undefined)?.path, procedures);
    metrics.requests.inc({ method: req.method, route: label, status: String(reply.statusCode) });
    metrics.requestDuration.observe({ method: req.method, route: label }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) metrics.errors.inc({ kind: `http_${reply.statusCode}` });
  });
  // Outside development /metrics is served only with a token (ADR 020): route names, error rates and
  // load are nobody else's business. Unconfigured, the path is as unknown as any other (404).
  if (!access.token && !access.openWithoutToken) return;
  const token = access.token;
  app.get('/metrics', async (req, reply) => {
    if (token && !bearerMatches(req.headers.authorization, token)) return reply.code(401).header('www-authenticate', 'Bearer').send('unauthorized');
    return reply
      .header('content-type', metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(await metrics.registry.metrics());
  });
}
