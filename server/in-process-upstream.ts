import { join } from 'node:path';
import { defaultAuditHeadFile } from '../upstream/lib/audit-head.ts';
import type { StartUpstreamOptions } from '../upstream/start.ts';
import type { Env } from './env.ts';

/**
 * How `npm start` (and the container) starts the reference API in-process (ADR 007, 029). It listens on
 * 127.0.0.1 whatever HOST says: only the back office calls it. Browsers reach its files through the back
 * office (server/in-process-files.ts), so upload addresses are on the back office's own origin unless
 * UPLOAD_PUBLIC_ORIGIN says otherwise.
 */
export function inProcessUpstreamOptions(env: Env, opts: { root: string; publicUrl: string; logger: StartUpstreamOptions['logger'] }): StartUpstreamOptions {
  const range = { centre: { lat: env.OPERATION_CENTRE_LAT, lng: env.OPERATION_CENTRE_LNG }, radiusMetres: env.OPERATION_RADIUS_METRES };
  const dataDir = env.DATABASE_URL ? undefined : join(opts.root, 'data', 'pglite');
  return {
    port: env.UPSTREAM_PORT,
    host: '127.0.0.1',
    databaseUrl: env.DATABASE_URL,
    dataDir,
    demoPassword: env.DEMO_PASSWORD,
    ...(env.SEED_DEMO === undefined ? {} : { seedDemo: env.SEED_DEMO }),
    logger: opts.logger,
    config: {
      appUrl: opts.publicUrl,
      corsOrigins: [opts.publicUrl, `http://127.0.0.1:${env.PORT}`],
      logMailLinks: true,
      googleClientId: env.GOOGLE_CLIENT_ID,
      ...(env.GOOGLE_JWKS_URL ? { googleJwksUrl: env.GOOGLE_JWKS_URL } : {}),
      operationRange: range,
      publicOrigin: new URL(env.UPLOAD_PUBLIC_ORIGIN ?? opts.publicUrl).origin,
      sessionMaxAgeSeconds: env.SESSION_MAX_AGE_DAYS * 24 * 3600,
      // Unset: generated at start and handed to the back office (server/main.ts, ADR 028).
      ...(env.UPSTREAM_FORWARDED_SECRET ? { forwardedSecret: env.UPSTREAM_FORWARDED_SECRET } : {}),
      ...(env.AUDIT_KEY ? { auditKey: env.AUDIT_KEY } : {}),
      auditRetentionDays: env.AUDIT_RETENTION_DAYS ?? null,
      auditHeadFile: env.AUDIT_HEAD_FILE ?? defaultAuditHeadFile({ databaseUrl: env.DATABASE_URL, dataDir, root: opts.root }),
    },
  };
}
