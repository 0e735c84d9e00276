import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { PathOnlyLogController } from '../shared/request-log.server.ts';
import { closeConnectionsWhenDraining } from '../shared/graceful-close.server.ts';
import type { EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import { ERROR_TEXT } from '../shared/errors.ts';
import type { UpstreamConfig } from './config.ts';
import type { Db } from './db.ts';
import { ApiError, fail, ok } from './lib/api-error.ts';
import { requireAuth } from './lib/auth.ts';
import { checkSession } from './lib/sessions.ts';
import { isDataException, refuseUnstorableInput } from './lib/storable-input.ts';
import { openApiDocument } from './openapi.ts';
import { registerAccountRoutes } from './routes/account.ts';
import { registerGoogleRoutes } from './routes/google.ts';
import { registerUploadRoutes } from './routes/uploads.ts';
import { registerEntityResource } from './resources/entity-resource.ts';
import { registerBicycles } from './resources/bicycles.ts';
import { registerRoles, registerUsers } from './resources/users.ts';
import { registerServices } from './resources/services.ts';
import { registerDashboard } from './resources/dashboard.ts';
import { registerSchedule } from './resources/schedule.ts';
import { registerSubscriptionPlans, registerSubscriptions } from './resources/subscriptions.ts';
import { registerEventSlots } from './resources/event-slots.ts';
import { registerTrialGroups } from './resources/trial-groups.ts';
import { registerDispatch } from './resources/dispatch.ts';

export interface BuildUpstreamOptions {
  db: Db;
  config: UpstreamConfig;
  logger?: FastifyServerOptions['logger'] | FastifyServerOptions['loggerInstance'];
}

export const UPSTREAM_REDACT = ['req.headers.authorization', 'req.headers["x-forwarded-secret"]', '*.password', '*.password_confirm', '*.refresh_token', '*.token', '*.id_token'];

/** The reference marketplace API (ADR 002); never listens (start.ts does). */
export async function buildUpstream({ db, config, logger }: BuildUpstreamOptions): Promise<FastifyInstance> {
  const loggerOption =
    logger && typeof logger === 'object' && 'child' in logger
      ? { loggerInstance: logger as FastifyServerOptions['loggerInstance'] }
      : { logger: logger === true ? { redact: UPSTREAM_REDACT } : logger && typeof logger === 'object' ? { redact: UPSTREAM_REDACT, ...logger } : false };
  const app = Fastify({
    ...loggerOption,
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    // A client that stops sending mid-body must not hold a request (and shutdown) open forever.
    requestTimeout: 30_000,
    connectionTimeout: 35_000,
    logController: new PathOnlyLogController(),
    // `req.ip` is the client: the peer, or what a trusted proxy (the back office) says in X-Forwarded-For.
    // Anyone else's X-Forwarded-For is ignored, so a client calling directly cannot pick its address.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
  } as FastifyServerOptions);
  closeConnectionsWhenDraining(app);
  // A trusted address is not enough (any process on this machine has one): X-Forwarded-For also needs the
  // back office's secret, else it is dropped before anything reads `req.ip` (ADR 028).
  if (config.forwardedSecret !== null) {
    const digest = (value: string) => createHash('sha256').update(value).digest();
    const expected = digest(config.forwardedSecret);
    app.addHook('onRequest', async (req) => {
      const given = req.headers['x-forwarded-secret'];
      if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected)) delete req.raw.headers['x-forwarded-for'];
    });
  }
  app.decorate('checkSession', (sessionId: string, userId: number, version: number) => checkSession(db, sessionId, userId, version));

  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: config.maxUploadBytes }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error, req, reply) => {
    if (error instanceof ApiError) return fail(reply, error.status, error.code, error.message, error.fields);
    if (isDataException(error)) {
      req.log.warn({ sqlState: (error as { code: string }).code }, 'input refused by the database');
      return fail(reply, 400, 'validation_error', 'A value is out of range or not in a valid format.', { _form: 'validation.invalidValue' });
    }
    const fastifyError = error as { statusCode?: number; code?: string; message: string };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(reply, 413, 'upload_too_large', ERROR_TEXT.upload_too_large);
    if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return fail(reply, 400, 'validation_error', 'The body is not valid JSON.');
    if (fastifyError.statusCode && fastifyError.statusCode < 500) return fail(reply, fastifyError.statusCode, 'validation_error', fastifyError.message);
    req.log.error({ err: error }, 'unhandled error');
    return fail(reply, 500, 'internal_error', ERROR_TEXT.internal_error);
  });
  app.setNotFoundHandler((_req, reply) => fail(reply, 404, 'not_found', ERROR_TEXT.not_found));
  refuseUnstorableInput(app);
  // API answers are about people (profiles, users, subscriptions): never kept by a cache (ADR 020).
  // Uploaded files say `private` themselves.
  app.addHook('onSend', async (req, reply) => {
    if (req.url.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  app.get('/healthz', async () => ({ ok: true }));
  // Every route registered from here on is listed in /openapi.json (generic ones with their schemas).
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // The map of every route is for integrators holding an Admin account, not for whoever scans the API.
  app.get('/openapi.json', { preHandler: requireAuth(config, ['Admin']) }, async () => openApiDocument(ENTITIES, routes));

  const { issuePair, invite, resendInvite } = registerAccountRoutes(app, db, config);
  registerGoogleRoutes(app, db, config, issuePair);
  registerUploadRoutes(app, db, config);
  // Entities with rules beyond the definition register themselves (with the generic resource inside).
  const custom: Record<string, () => void> = {
    bicycles: () => registerBicycles(app, db, config),
    services: () => registerServices(app, db, config),
    'buddy-work-slots': () => registerSchedule(app, db, config),
    'not-working-slots': () => undefined,
    roles: () => registerRoles(app, db, config),
    'subscription-plans': () => registerSubscriptionPlans(app, db, config),
    subscriptions: () => registerSubscriptions(app, db, config),
    'event-slots': () => registerEventSlots(app, db, config),
    'trial-groups': () => registerTrialGroups(app, db, config, { invite, resendInvite }),
  };
  for (const def of ENTITIES as readonly EntityDef[]) (custom[def.name] ?? (() => registerEntityResource(app, db, config, def)))();
  registerUsers(app, db, config);
  registerDashboard(app, db, config);
  registerDispatch(app, db, config);

  app.get('/api/promo-codes/:id/users/', { preHandler: requireAuth(config, ['Admin']) }, async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    if (!Number.isInteger(id) || id <= 0) throw new ApiError(404, 'not_found');
    const { rows } = await db.query<{ user_id: number; email: string; first_name: string | null; last_name: string | null; used_at: Date }>(
      `select u.id as user_id, u.email, u.first_name, u.last_name, p.used_at
         from promo_code_uses p join users u on u.id = p.user_id where p.promo_code_id = $1 order by p.used_at desc limit 500`,
      [id],
    );
    return ok(reply, rows.map((r) => ({ ...r, user_id: Number(r.user_id), used_at: new Date(r.used_at).toISOString() })));
  });

  return app;
}
