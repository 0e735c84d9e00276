import { z } from 'zod';

const csv = z
  .string()
  .transform((value) => value.split(',').map((s) => s.trim()).filter(Boolean));

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Base URL of the marketplace API, ending in `/api/`. Unset: start the reference upstream in-process. */
  UPSTREAM_URL: z.url().optional(),
  UPSTREAM_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  DATABASE_URL: z.string().optional(),
  /** Comma-separated; the first signs and encrypts, the others are still accepted (rotation). */
  COOKIE_SECRETS: csv.pipe(z.array(z.string().min(32, 'each cookie secret needs at least 32 characters')).min(1)).optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  /** Only for the in-process reference API: where it fetches Google's signing keys. */
  GOOGLE_JWKS_URL: z.url().optional(),
  /** When set, /metrics requires `Authorization: Bearer <token>`. */
  METRICS_TOKEN: z.string().min(16).optional(),
  DEMO_PASSWORD: z.string().min(3).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.url().optional(),
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
  UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
  UPSTREAM_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(30000),
  TRUST_PROXY: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});

export type Env = z.infer<typeof envSchema>;

/** Parse once at start; a bad value stops the process with a message naming the variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}
