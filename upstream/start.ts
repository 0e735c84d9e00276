import type { FastifyServerOptions } from 'fastify';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildUpstream } from './app.ts';
import { DEFAULT_CONFIG, type UpstreamConfig } from './config.ts';
import { openDatabase } from './db.ts';
import { migrate } from './migrate.ts';
import { DEMO_ACCOUNTS, randomDemoPassword, seedDemo } from './seed.ts';

export interface StartUpstreamOptions {
  port?: number;
  host?: string;
  databaseUrl?: string;
  /** PGlite directory; undefined keeps the database in memory. */
  dataDir?: string;
  /** Default: on for PGlite, off for DATABASE_URL. */
  seedDemo?: boolean;
  demoPassword?: string;
  logger?: FastifyServerOptions['logger'] | FastifyServerOptions['loggerInstance'];
  config?: Partial<UpstreamConfig>;
}

async function jwtSecretFrom(db: Awaited<ReturnType<typeof openDatabase>>, configured?: string): Promise<string> {
  if (configured) return configured;
  // Persisted so a restart keeps every issued token valid.
  await db.query("insert into settings (key, value) values ('jwt_secret', $1) on conflict (key) do nothing", [randomBytes(32).toString('base64url')]);
  const { rows } = await db.query<{ value: string }>("select value from settings where key = 'jwt_secret'");
  return rows[0]!.value;
}

/** Opens the database, migrates, seeds demo data when asked, and listens. */
export async function startUpstream(opts: StartUpstreamOptions = {}) {
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir });
  await migrate(db);
  const host = opts.host ?? '127.0.0.1';
  const partial = opts.config ?? {};
  const config: UpstreamConfig = {
    ...DEFAULT_CONFIG,
    ...partial,
    jwtSecret: await jwtSecretFrom(db, partial.jwtSecret),
    uploadDir: partial.uploadDir ?? (opts.dataDir ? join(opts.dataDir, '..', 'uploads') : mkdtempSync(join(tmpdir(), 'bo-uploads-'))),
    publicOrigin: partial.publicOrigin ?? '',
  };
  const shouldSeed = opts.seedDemo ?? !opts.databaseUrl;
  const demoPassword = shouldSeed ? opts.demoPassword ?? randomDemoPassword() : undefined;
  const seeded = shouldSeed ? await seedDemo(db, demoPassword!, config.scryptCost) : false;

  const app = await buildUpstream({ db, config, logger: opts.logger });
  await app.listen({ port: opts.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port ?? 0;
  const origin = `http://${host}:${port}`;
  if (!config.publicOrigin) config.publicOrigin = origin;

  return {
    url: `${origin}/api/`,
    origin,
    app,
    db,
    config,
    /** Shown only when this start created the demo accounts (otherwise the password is not known). */
    demoPassword: seeded ? demoPassword : opts.demoPassword,
    demoAccounts: shouldSeed ? DEMO_ACCOUNTS : null,
    async close() {
      await app.close();
      await db.close();
    },
  };
}
