import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one back-office process (ADR 008). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    registry,
    requests: new Counter({ name: 'backoffice_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] }),
    requestDuration: new Histogram({ name: 'backoffice_http_request_duration_seconds', help: 'HTTP request latency by route', labelNames: ['method', 'route'], buckets, registers: [registry] }),
    upstreamDuration: new Histogram({ name: 'backoffice_upstream_request_duration_seconds', help: 'Latency of calls to the marketplace API', labelNames: ['method', 'path', 'status'], buckets, registers: [registry] }),
    ssrRender: new Histogram({ name: 'backoffice_ssr_render_seconds', help: 'Server render time of a page once its data is fetched', labelNames: ['route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25], registers: [registry] }),
    refreshes: new Counter({ name: 'backoffice_token_refresh_total', help: 'Token refreshes by outcome', labelNames: ['outcome'], registers: [registry] }),
    errors: new Counter({ name: 'backoffice_errors_total', help: 'Server errors by kind', labelNames: ['kind'], registers: [registry] }),
    shed: new Counter({ name: 'backoffice_load_shed_total', help: 'Requests refused with 503 under pressure', registers: [registry] }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

/** `/api/users/12/` → `/api/users/:id/`, so upstream paths make a bounded label set. */
export function pathTemplate(path: string): string {
  return path.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/:id').replace(/\/files\/upload\/.*$/, '/files/upload/:key');
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

export function instrument(app: FastifyInstance, metrics: Metrics, token: string | undefined, procedures: ReadonlySet<string>) {
  app.addHook('onResponse', async (req, reply) => {
    const label = routeLabel(req.routeOptions.url, (req.params as { path?: string } | undefined)?.path, procedures);
    metrics.requests.inc({ method: req.method, route: label, status: String(reply.statusCode) });
    metrics.requestDuration.observe({ method: req.method, route: label }, reply.elapsedTime / 1000);
    if (reply.statusCode >= 500) metrics.errors.inc({ kind: `http_${reply.statusCode}` });
  });
  app.get('/metrics', async (req, reply) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) return reply.code(401).send('unauthorized');
    return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
