import { join } from 'node:path';
import pino from 'pino';
import { projectRoot } from '../shared/project-root.server.ts';
import { UPSTREAM_REDACT } from './app.ts';
import { startUpstream } from './start.ts';

/** `npm run upstream`: the reference marketplace API on its own. */
const env = process.env;
const root = projectRoot(import.meta.url);
const logger = pino({ level: env.LOG_LEVEL ?? 'info', redact: UPSTREAM_REDACT });
const upstream = await startUpstream({
  port: Number(env.PORT ?? 4010),
  host: env.HOST ?? '127.0.0.1',
  databaseUrl: env.DATABASE_URL || undefined,
  dataDir: env.DATABASE_URL ? undefined : env.UPSTREAM_DATA_DIR ?? join(root, 'data', 'pglite'),
  seedDemo: env.SEED_DEMO === undefined ? undefined : env.SEED_DEMO === 'true',
  demoPassword: env.DEMO_PASSWORD || undefined,
  logger,
  config: {
    ...(env.UPSTREAM_JWT_SECRET ? { jwtSecret: env.UPSTREAM_JWT_SECRET } : {}),
    appUrl: env.APP_URL ?? 'http://localhost:3000',
    corsOrigins: (env.CORS_ORIGINS ?? env.APP_URL ?? 'http://localhost:3000').split(','),
    googleClientId: env.GOOGLE_CLIENT_ID || undefined,
    ...(env.GOOGLE_JWKS_URL ? { googleJwksUrl: env.GOOGLE_JWKS_URL } : {}),
    logMailLinks: !env.DATABASE_URL || env.LOG_MAIL_LINKS === 'true',
  },
});
process.stdout.write(`Reference API listening on ${upstream.url}\n`);
if (upstream.demoPassword) process.stdout.write(`Demo logins use the password: ${upstream.demoPassword}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void upstream.close().then(() => process.exit(0)));
