import { join } from 'node:path';
import pino from 'pino';
import { projectRoot } from '../shared/project-root.server.ts';
import { UPSTREAM_REDACT } from './app.ts';
import { loadUpstreamEnvOrExit } from './env.ts';
import { defaultAuditHeadFile } from './lib/audit-head.ts';
import { startUpstream } from './start.ts';

/** `npm run upstream`: the reference marketplace API on its own. */
const env = loadUpstreamEnvOrExit();
const root = projectRoot(import.meta.url);
const logger = pino({ level: env.LOG_LEVEL, redact: UPSTREAM_REDACT });
const seedDemo = env.SEED_DEMO ?? !env.DATABASE_URL;
const upstream = await startUpstream({
  port: env.PORT,
  host: env.HOST,
  databaseUrl: env.DATABASE_URL,
  dataDir: env.DATABASE_URL ? undefined : (env.UPSTREAM_DATA_DIR ?? join(root, 'data', 'pglite')),
  seedDemo,
  demoPassword: env.DEMO_PASSWORD,
  logger,
  config: {
    ...(env.UPSTREAM_JWT_SECRET ? { jwtSecret: env.UPSTREAM_JWT_SECRET } : {}),
    ...(env.AUDIT_KEY ? { auditKey: env.AUDIT_KEY } : {}),
    auditRetentionDays: env.AUDIT_RETENTION_DAYS ?? null,
    auditHeadFile: env.AUDIT_HEAD_FILE ?? defaultAuditHeadFile({ databaseUrl: env.DATABASE_URL, dataDir: env.UPSTREAM_DATA_DIR ?? join(root, 'data', 'pglite'), root }),
    ...(env.UPSTREAM_UPLOAD_DIR ? { uploadDir: env.UPSTREAM_UPLOAD_DIR } : {}),
    ...(env.PUBLIC_ORIGIN ? { publicOrigin: env.PUBLIC_ORIGIN.replace(/\/$/, '') } : {}),
    appUrl: env.APP_URL.replace(/\/$/, ''),
    corsOrigins: (env.CORS_ORIGINS ?? env.APP_URL)
      .split(',')
      .map((o) => o.trim().replace(/\/$/, ''))
      .filter(Boolean),
    googleClientId: env.GOOGLE_CLIENT_ID,
    ...(env.GOOGLE_JWKS_URL ? { googleJwksUrl: env.GOOGLE_JWKS_URL } : {}),
    ...(env.WEBAUTHN_RP_ID
      ? {
          webauthn: {
            rpId: env.WEBAUTHN_RP_ID,
            origins: (env.WEBAUTHN_ORIGINS ?? env.APP_URL)
              .split(',')
              .map((o) => o.trim().replace(/\/$/, ''))
              .filter(Boolean),
          },
        }
      : {}),
    // Mail links carry one-time tokens: they are logged only for a demo, where nobody else receives mail.
    logMailLinks: env.LOG_MAIL_LINKS ?? seedDemo,
    operationRange: { centre: { lat: env.OPERATION_CENTRE_LAT, lng: env.OPERATION_CENTRE_LNG }, radiusMetres: env.OPERATION_RADIUS_METRES },
    trustedProxies: env.TRUSTED_PROXIES ?? (env.UPSTREAM_FORWARDED_SECRET ? ['loopback'] : []),
    forwardedSecret: env.UPSTREAM_FORWARDED_SECRET ?? null,
    sessionMaxAgeSeconds: env.SESSION_MAX_AGE_DAYS * 24 * 3600,
  },
});
process.stdout.write(`Reference API listening on ${upstream.url}\n`);
if (upstream.demoPassword) process.stdout.write(`Demo logins use the password: ${upstream.demoPassword}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void upstream.close().then(() => process.exit(0)));
