import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { PathOnlyLogController, requestIdOf } from '../shared/request-log.server.ts';
import { closeConnectionsWhenDraining } from '../shared/graceful-close.server.ts';
import type { EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import { ERROR_TEXT } from '../shared/errors.ts';
import type { UpstreamConfig } from './config.ts';
import { isDatabaseUnavailable, type Db } from './db.ts';
import { ApiError, fail, failBody } from './lib/api-error.ts';
import { registerSessionGate, requireAuth } from './lib/auth.ts';
import { checkSession } from './lib/sessions.ts';
import { registerIdempotency } from './lib/idempotency.ts';
import { isDataException, refuseUnstorableInput } from './lib/storable-input.ts';
import { openApiDocument } from './openapi.ts';
import { registerAccountRoutes } from './routes/account.ts';
import { registerAuditRoutes } from './routes/audit.ts';
import { auditedDb } from './lib/audit-scope.ts';
import { registerEventRoutes } from './routes/events.ts';
import { createInvitations } from './invitations.ts';
import { registerGoogleRoutes } from './routes/google.ts';
import { registerFactorRoutes } from './routes/factors.ts';
import { registerPasskeyRoutes } from './routes/passkeys.ts';
import { registerUploadRoutes } from './routes/uploads.ts';
import { upstreamReadScopes } from '../shared/entity/access-roles.ts';
import { handEntityCatalogue } from './lib/entity-catalogue.ts';
import { registerEntity, type EntityHandlersFactory } from './resources/entity-actions.ts';
import { ENTITY_HANDLERS } from './resources/entity-handlers.generated.ts';
import { registerDashboard } from './resources/dashboard.ts';
import { registerDispatch } from './resources/dispatch.ts';

export interface BuildUpstreamOptions {
  db: Db;
  config: UpstreamConfig;
  logger?: FastifyServerOptions['logger'] | FastifyServerOptions['loggerInstance'];
}

export const UPSTREAM_REDACT = ['req.headers.authorization', 'req.headers["x-forwarded-secret"]', '*.password', '*.password_confirm', '*.refresh_token', '*.token', '*.id_token'];

/** How the API answers an error: the envelope's status, code, cause and fields (logged where it is ours). */
function errorAnswer(error: unknown, req: FastifyRequest, reply: FastifyReply): { status: number; code: string; cause: string; fields?: Record<string, string> } {
  if (error instanceof ApiError) return { status: error.status, code: error.code, cause: error.message, fields: error.fields };
  if (isDataException(error)) {
    req.log.warn({ sqlState: (error as { code: string }).code }, 'input refused by the database');
    return { status: 400, code: 'validation_error', cause: 'A value is out of range or not in a valid format.', fields: { _form: 'validation.invalidValue' } };
  }
  const fastifyError = error as { statusCode?: number; code?: string; message: string };
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, code: 'upload_too_large', cause: ERROR_TEXT.upload_too_large };
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return { status: 400, code: 'validation_error', cause: 'The body is not valid JSON.' };
  if (fastifyError.statusCode && fastifyError.statusCode < 500) return { status: fastifyError.statusCode, code: 'validation_error', cause: fastifyError.message };
  // PostgreSQL restarting or failing over: a passing state, said so, not an unexplained 500 (ADR 046).
  if (isDatabaseUnavailable(error)) {
    req.log.warn({ err: error }, 'database unavailable');
    void reply.header('retry-after', '2');
    return { status: 503, code: 'database_unavailable', cause: ERROR_TEXT.database_unavailable };
  }
  req.log.error({ err: error }, 'unhandled error');
  return { status: 500, code: 'internal_error', cause: ERROR_TEXT.internal_error };
}

/** The reference marketplace API (ADR 002); never listens (start.ts does). */
export async function buildUpstream({ db, config, logger }: BuildUpstreamOptions): Promise<FastifyInstance> {
  const loggerOption =
    logger && typeof logger === 'object' && 'child' in logger
      ? { loggerInstance: logger as FastifyServerOptions['loggerInstance'] }
      : { logger: logger === true ? { redact: UPSTREAM_REDACT } : logger && typeof logger === 'object' ? { redact: UPSTREAM_REDACT, ...logger } : false };
  const digest = (value: string) => createHash('sha256').update(value).digest();
  // Whether a request carries the back office's secret (compared in constant time over SHA-256 digests, ADR 028).
  const expected = config.forwardedSecret === null ? null : digest(config.forwardedSecret);
  const fromBackOffice = (given: string | string[] | undefined) => expected !== null && typeof given === 'string' && timingSafeEqual(digest(given), expected);
  const app = Fastify({
    ...loggerOption,
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 1024 * 1024,
    // A client that stops sending mid-body must not hold a request (and shutdown) open forever.
    requestTimeout: 30_000,
    connectionTimeout: 35_000,
    logController: new PathOnlyLogController(),
    // The back office's request id (X-Request-Id, with its secret), so one id names a request in both services'
    // logs and in the change history (ADR 038); anyone else's is not taken (ADR 058): a fresh one.
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req, fromBackOffice(req.headers['x-forwarded-secret'])),
    // `req.ip` is the client: the peer, or what a trusted proxy (the back office) says in X-Forwarded-For.
    // Anyone else's X-Forwarded-For is ignored, so a client calling directly cannot pick its address.
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
  } as FastifyServerOptions);
  closeConnectionsWhenDraining(app);
  // A trusted address is not enough (any process on this machine has one): X-Forwarded-For also needs the
  // back office's secret, else it is dropped before anything reads `req.ip` (ADR 028).
  if (config.forwardedSecret !== null) {
    app.addHook('onRequest', async (req) => {
      if (!fromBackOffice(req.headers['x-forwarded-secret'])) delete req.raw.headers['x-forwarded-for'];
    });
  }
  app.decorate('checkSession', (sessionId: string, userId: number, version: number) => checkSession(db, sessionId, userId, version));

  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: config.maxUploadBytes }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error, req, reply) => {
    const answer = errorAnswer(error, req, reply);
    return fail(reply, answer.status, answer.code, answer.cause, answer.fields);
  });
  // A read's answer waits for its overlapped session check, and a session that ended replaces it (ADR 052).
  registerSessionGate(app, (error, req, reply) => {
    const answer = errorAnswer(error, req, reply);
    return { status: answer.status, body: failBody(answer.code, answer.cause, answer.fields) };
  });
  app.setNotFoundHandler((_req, reply) => fail(reply, 404, 'not_found', ERROR_TEXT.not_found));
  refuseUnstorableInput(app);
  // API answers are about people (profiles, users, subscriptions): never kept by a cache (ADR 020).
  // Uploaded files say `private` themselves.
  app.addHook('onSend', async (req, reply) => {
    if (req.url.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  // Writes sent with an Idempotency-Key are done once per user and key (ADR 042): every write route registered
  // from here on gets the check.
  registerIdempotency(app, db, config.jwtSecret);

  app.get('/healthz', async () => ({ ok: true }));
  // Every route registered from here on is listed in /openapi.json (generic ones with their schemas).
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // The map of every route is for integrators holding an Admin account, not for whoever scans the API.
  app.get('/openapi.json', { preHandler: requireAuth(config, ['Admin']) }, async () => openApiDocument(ENTITIES, routes));

  const { issuePair } = registerAccountRoutes(app, db, config);
  registerGoogleRoutes(app, db, config, issuePair);
  registerFactorRoutes(app, db, config, issuePair);
  registerPasskeyRoutes(app, db, config, issuePair);
  registerUploadRoutes(app, db, config);
  await registerEntities(app, db, config);
  registerDashboard(app, db, config);
  registerDispatch(app, db, config);
  registerAuditRoutes(app, db, config);
  registerEventRoutes(app, db, config);

  return app;
}

/**
 * Every entity in one loop, each a plugin: its generic resource, its declared actions and sub-resources, with the
 * handlers of upstream/resources/<entity>.ts (found by file name, ADR 032). Their database records the history
 * of declared actions and sub-resource writes (ADR 038). The engine imports no definition: it is handed the
 * catalogue and who reads each entity (ADR 073).
 */
async function registerEntities(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  handEntityCatalogue({ entities: ENTITIES as readonly EntityDef[], readScopes: upstreamReadScopes });
  const entityDb = auditedDb(db, config.auditKey);
  const env = { db: entityDb, config, invitations: createInvitations(entityDb, config) };
  for (const def of ENTITIES as readonly EntityDef[]) {
    const own = (ENTITY_HANDLERS as Record<string, { handlers: EntityHandlersFactory }>)[def.name]?.handlers;
    await app.register(async (scope) => registerEntity(scope, env, def, own));
  }
}
