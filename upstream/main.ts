import { join } from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { DEFAULT_OPERATION_RANGE } from '../shared/geo.ts';
import { sessionMaxAgeDaysField, trustedProxiesField } from '../shared/env-fields.server.ts';
import { projectRoot } from '../shared/project-root.server.ts';
import { UPSTREAM_REDACT } from './app.ts';
import { startUpstream } from './start.ts';

/** `npm run upstream`: the reference marketplace API on its own. */
const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v))
  .optional();
const blankAsUnset = (value: unknown) => (value === '' ? undefined : value);
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  HOST: z.preprocess(blankAsUnset, z.string().default('127.0.0.1')),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.preprocess(blankAsUnset, z.string().regex(/^postgres(ql)?:\/\//, 'must start with postgres://').optional()),
  UPSTREAM_DATA_DIR: z.preprocess(blankAsUnset, z.string().optional()),
  UPSTREAM_UPLOAD_DIR: z.preprocess(blankAsUnset, z.string().optional()),
  DEMO_PASSWORD: z.preprocess(blankAsUnset, z.string().min(3).optional()),
  UPSTREAM_JWT_SECRET: z.preprocess(blankAsUnset, z.string().min(32, 'must be at least 32 characters').optional()),
  SEED_DEMO: z.preprocess(blankAsUnset, flag),
  LOG_MAIL_LINKS: z.preprocess(blankAsUnset, flag),
  APP_URL: z.url().default('http://localhost:3000'),
  PUBLIC_ORIGIN: z.preprocess(blankAsUnset, z.url().optional()),
  CORS_ORIGINS: z.preprocess(blankAsUnset, z.string().optional()),
  GOOGLE_CLIENT_ID: z.preprocess(blankAsUnset, z.string().optional()),
  GOOGLE_JWKS_URL: z.preprocess(blankAsUnset, z.url().optional()),
  OPERATION_CENTRE_LAT: z.preprocess(blankAsUnset, z.coerce.number().min(-90).max(90).default(DEFAULT_OPERATION_RANGE.centre.lat)),
  OPERATION_CENTRE_LNG: z.preprocess(blankAsUnset, z.coerce.number().min(-180).max(180).default(DEFAULT_OPERATION_RANGE.centre.lng)),
  OPERATION_RADIUS_METRES: z.preprocess(blankAsUnset, z.coerce.number().positive().max(100_000).default(DEFAULT_OPERATION_RANGE.radiusMetres)),
  /**
   * Peers whose X-Forwarded-For is believed (comma-separated addresses, CIDRs or `loopback`); `none`: nobody.
   * Unset: `loopback` with UPSTREAM_FORWARDED_SECRET (the header is then believed only with the secret), else nobody.
   */
  TRUSTED_PROXIES: z.preprocess(blankAsUnset, trustedProxiesField.optional()),
  /** The back office's shared secret (its UPSTREAM_FORWARDED_SECRET): X-Forwarded-For is believed only with it (ADR 028). */
  UPSTREAM_FORWARDED_SECRET: z.preprocess(blankAsUnset, z.string().min(32, 'must be at least 32 characters').optional()),
  SESSION_MAX_AGE_DAYS: z.preprocess(blankAsUnset, sessionMaxAgeDaysField.default(30)),
});

const parsed = envSchema.safeParse(process.env);
if (!parsed.success) {
  const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  process.stderr.write(`\nThe reference API cannot start, the environment is not valid:\n${lines.join('\n')}\n\n`);
  process.exit(1);
}
const env = parsed.data;
const root = projectRoot(import.meta.url);
const logger = pino({ level: env.LOG_LEVEL, redact: UPSTREAM_REDACT });
const seedDemo = env.SEED_DEMO ?? !env.DATABASE_URL;
const upstream = await startUpstream({
  port: env.PORT,
  host: env.HOST,
  databaseUrl: env.DATABASE_URL,
  dataDir: env.DATABASE_URL ? undefined : env.UPSTREAM_DATA_DIR ?? join(root, 'data', 'pglite'),
  seedDemo,
  demoPassword: env.DEMO_PASSWORD,
  logger,
  config: {
    ...(env.UPSTREAM_JWT_SECRET ? { jwtSecret: env.UPSTREAM_JWT_SECRET } : {}),
    ...(env.UPSTREAM_UPLOAD_DIR ? { uploadDir: env.UPSTREAM_UPLOAD_DIR } : {}),
    ...(env.PUBLIC_ORIGIN ? { publicOrigin: env.PUBLIC_ORIGIN.replace(/\/$/, '') } : {}),
    appUrl: env.APP_URL.replace(/\/$/, ''),
    corsOrigins: (env.CORS_ORIGINS ?? env.APP_URL).split(',').map((o) => o.trim().replace(/\/$/, '')).filter(Boolean),
    googleClientId: env.GOOGLE_CLIENT_ID,
    ...(env.GOOGLE_JWKS_URL ? { googleJwksUrl: env.GOOGLE_JWKS_URL } : {}),
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
