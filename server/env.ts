import { z } from 'zod';
import { RENDER_WORKER_SEMI_SPACE_MB } from './node-flags.ts';
import {
  auditKeyField,
  auditRetentionDaysField,
  auditHeadFileField,
  backOfficeTrustProxyField,
  databaseUrlField,
  demoPasswordField,
  flagField,
  logLevelField,
  operationRangeFields,
  parseEnv,
  portField,
  sessionMaxAgeDaysField,
} from '../shared/env-fields.server.ts';

const csv = z.string().transform((value) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: portField.default(3000),
    HOST: z.string().default('127.0.0.1'),
    /** Base URL of the marketplace API, ending in `/api/`. Unset: start the reference upstream in-process. */
    UPSTREAM_URL: z.url().optional(),
    UPSTREAM_PORT: portField.default(4010),
    /** With UPSTREAM_URL: the secret the API checks before believing the forwarded client address (ADR 028). */
    UPSTREAM_FORWARDED_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    DATABASE_URL: databaseUrlField.optional(),
    /** Only for the in-process reference API: the change history's key (ADR 035). */
    AUDIT_KEY: auditKeyField.optional(),
    /** Only for the in-process reference API: days the change history keeps an entry (ADR 038); unset, for ever. */
    AUDIT_RETENTION_DAYS: auditRetentionDaysField.optional(),
    /** Only for the in-process reference API: the file its change history's signed head is kept in (ADR 059). */
    AUDIT_HEAD_FILE: auditHeadFileField.optional(),
    /** Comma-separated; the first signs and encrypts, the others are still accepted (rotation). */
    COOKIE_SECRETS: csv.pipe(z.array(z.string().min(32, 'each cookie secret needs at least 32 characters')).min(1)).optional(),
    GOOGLE_CLIENT_ID: z.string().optional(),
    /** Only for the in-process reference API: where it fetches Google's signing keys. */
    GOOGLE_JWKS_URL: z.url().optional(),
    /** When set, /metrics requires `Authorization: Bearer <token>`; unset, /metrics exists only in development. */
    METRICS_TOKEN: z.string().min(16).optional(),
    DEMO_PASSWORD: demoPasswordField.optional(),
    LOG_LEVEL: logLevelField.default('info'),
    PUBLIC_URL: z.url().optional(),
    UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
    UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
    UPSTREAM_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(30000),
    TRUST_PROXY: backOfficeTrustProxyField.default(false),
    /**
     * After SIGTERM, `/readyz` answers 503 for this many seconds while requests are still served, then the server
     * drains and stops: a load balancer's health checks take it out first (ADR 046). 0: drain at once.
     */
    SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(120).default(0),
    /** Requests are shed (503 + Retry-After) while the event loop lags more than this (ADR 008). */
    MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    /** Threads that render pages with React (ADR 027); 0 renders in the main thread. Unset: one per spare core, 1 to 4. */
    SSR_WORKERS: z.coerce.number().int().min(0).max(32).optional(),
    /** A render worker that answers nothing for this long with a page in flight is replaced; its pages answer 503 (ADR 029). 0: never. */
    SSR_RENDER_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
    /** Old-generation heap of each render worker, in MB (Worker resourceLimits); over it the worker is replaced (ADR 029). */
    SSR_WORKER_HEAP_MB: z.coerce.number().int().min(32).max(4096).default(256),
    /** Semi-space size of each render worker's young generation, in MB (ADR 053); 0: the main thread's 2 MB. */
    SSR_WORKER_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(64).default(RENDER_WORKER_SEMI_SPACE_MB),
    /** Absolute lifetime of a sign-in (ADR 017): the session cookies' max age, and enforced by the in-process API. */
    SESSION_MAX_AGE_DAYS: sessionMaxAgeDaysField.default(30),
    /** The operation range (§9, ADR 011): centre and radius, enforced by the in-process API and drawn on maps. */
    ...operationRangeFields,
    /** Leaflet tile URL template ({s} {z} {x} {y}); `none` draws maps without tiles. Its origin is allowed in the CSP. */
    MAP_TILE_URL: z
      .union([
        z.literal('none'),
        z
          .string()
          .max(500)
          .regex(/^https?:\/\/[^/\s]+\/\S*\{z\}\S*\{x\}\S*\{y\}/, 'must be an http(s) URL template with {z}, {x} and {y}'),
      ])
      .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
    MAP_TILE_ATTRIBUTION: z.string().max(300).default('© OpenStreetMap contributors'),
    /** Base URL of a Nominatim-compatible geocoder; unset: staff pick places on the map. */
    GEOCODER_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Only for the in-process reference API: the address browsers reach its uploaded files at (default: its own). */
    UPLOAD_PUBLIC_ORIGIN: z.url().optional(),
    /** Only for the in-process reference API: seed demo data into an empty database (default: on for PGlite). */
    SEED_DEMO: flagField.optional(),
    /** Escape hatch for a production deployment behind plain HTTP (not recommended): cookies lose `Secure`. */
    ALLOW_INSECURE_COOKIES: flagField.default(false),
  })
  .superRefine((env, ctx) => {
    // Against a production API the session cookies must be Secure (and __Host- prefixed), which needs an
    // https PUBLIC_URL. Refuse to start rather than quietly hand out cookies that travel over plain HTTP.
    // A loopback address is a local run on this machine, never a deployment others reach.
    const url = env.PUBLIC_URL ? new URL(env.PUBLIC_URL) : null;
    const https = url !== null && url.protocol === 'https:';
    const safe = https || (url !== null && isLoopback(url.hostname));
    if (env.NODE_ENV !== 'production' || env.ALLOW_INSECURE_COOKIES) return;
    // Listening beyond loopback (a container's 0.0.0.0) is a deployment others reach, whatever the API
    // (ADR 029): without https the cookies would lack Secure and there would be no HSTS.
    if (!isLoopback(env.HOST) && !https) {
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message: `must be an https:// address in production when HOST (${env.HOST}) is not a loopback address (session cookies are Secure, HSTS is sent); set ALLOW_INSECURE_COOKIES=true to override`,
      });
    } else if (env.UPSTREAM_URL && !safe) {
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message: 'must be an https:// address in production (session cookies are Secure); set ALLOW_INSECURE_COOKIES=true to override',
      });
    }
  });

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

export type Env = z.infer<typeof envSchema>;

/** Parse once at start; a bad value stops the process with a message naming the variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(envSchema, source, 'Invalid environment configuration');
}
