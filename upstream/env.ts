import { z } from 'zod';
import * as fields from '../shared/env-fields.server.ts';

/** `npm run upstream`: the reference API's environment, its shared fields defined once with the back office's. */
export const envSchema = z.object({
  PORT: fields.portField.default(4010),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: fields.logLevelField.default('info'),
  DATABASE_URL: fields.databaseUrlField.optional(),
  /**
   * `npm run migrate` only (ADR 067): the connection the API will use, as a role that does not own the tables.
   * Migrating, DATABASE_URL is the owner's; this role is created when missing (LOGIN, its password from the URL)
   * and granted what the API needs and no more: the change history only read and appended.
   */
  API_DATABASE_URL: fields.databaseUrlField.optional(),
  UPSTREAM_DATA_DIR: z.string().optional(),
  UPSTREAM_UPLOAD_DIR: z.string().optional(),
  DEMO_PASSWORD: fields.demoPasswordField.optional(),
  UPSTREAM_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** The change history's key (ADR 035); keep it outside the database. Unset: generated, kept in the database, and a warning. */
  AUDIT_KEY: fields.auditKeyField.optional(),
  /** Days the change history keeps an entry; older ones are pruned behind a signed checkpoint (ADR 038). Unset: for ever. */
  AUDIT_RETENTION_DAYS: fields.auditRetentionDaysField.optional(),
  /** The file the change history's signed head is written to (ADR 059); unset: beside the data (`data/…audit-head.json`). */
  AUDIT_HEAD_FILE: fields.auditHeadFileField.optional(),
  /** Seed demo data into an empty database; unset: on for PGlite, off with DATABASE_URL. */
  SEED_DEMO: fields.flagField.optional(),
  LOG_MAIL_LINKS: fields.flagField.optional(),
  APP_URL: z.url().default('http://localhost:3000'),
  PUBLIC_ORIGIN: z.url().optional(),
  CORS_ORIGINS: z.string().optional(),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_JWKS_URL: z.url().optional(),
  /** The passkeys' relying party (ADR 075): its ID (a domain) and the comma-separated origins; unset, APP_URL's host and origin. */
  WEBAUTHN_RP_ID: z.string().min(1).optional(),
  WEBAUTHN_ORIGINS: z.string().optional(),
  ...fields.operationRangeFields,
  /**
   * Peers whose X-Forwarded-For is believed (comma-separated addresses, CIDRs or `loopback`); `none`: nobody.
   * Unset: `loopback` with UPSTREAM_FORWARDED_SECRET (the header is then believed only with the secret), else nobody.
   */
  TRUSTED_PROXIES: fields.trustedProxiesField.optional(),
  /** The back office's shared secret (its UPSTREAM_FORWARDED_SECRET): X-Forwarded-For is believed only with it (ADR 028). */
  UPSTREAM_FORWARDED_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SESSION_MAX_AGE_DAYS: fields.sessionMaxAgeDaysField.default(30),
  /** `npm run backup` (ADR 057): the folder its archives go to, and how many of them it keeps (older ones removed; unset: all). */
  BACKUP_DIR: z.string().default('backups'),
  BACKUP_KEEP: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
});

export type UpstreamEnv = z.infer<typeof envSchema>;

/** Parse once at start; a bad value throws a message naming the variable. */
export function loadUpstreamEnv(source: NodeJS.ProcessEnv = process.env): UpstreamEnv {
  return fields.parseEnv(envSchema, source, 'The reference API cannot start, the environment is not valid');
}

/** The environment of a command (`npm run upstream`, `npm run audit:verify`): a bad value ends it with the message, no stack trace. */
export function loadUpstreamEnvOrExit(): UpstreamEnv {
  try {
    return loadUpstreamEnv();
  } catch (error) {
    process.stderr.write(`\n${(error as Error).message}\n\n`);
    process.exit(1);
  }
}
