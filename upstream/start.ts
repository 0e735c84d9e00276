import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import { buildUpstream } from './app.ts';
import { serveBackupControl } from './backup/control.ts';
import { DEFAULT_CONFIG, type UpstreamConfig } from './config.ts';
import { compactTallies } from './dashboard-tallies.ts';
import { openDatabase, type Db } from './db.ts';
import { AUDIT_KEY_WARNING, type SignedHead } from './lib/audit.ts';
import { sweepUnusedUploads } from './lib/upload-sweep.ts';
import { pruneHistory, PruneRefused } from './lib/audit-retention.ts';
import { signedHeadIfMoved, witnessHead } from './lib/audit-head.ts';
import { migrate } from './migrate.ts';
import { DEMO_ACCOUNTS, demoDate, randomDemoPassword, seedDemo } from './seed.ts';

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
  /**
   * Default true: the periodic sweeps, history pruning, tally compaction and history-head witness run. A test that records the
   * statements its own requests cause turns them off, so no job's statement lands in its record.
   */
  backgroundJobs?: boolean;
}

async function jwtSecretFrom(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  // Persisted so a restart keeps every issued token valid.
  await db.query("insert into settings (key, value) values ('jwt_secret', $1) on conflict (key) do nothing", [randomBytes(32).toString('base64url')]);
  const { rows } = await db.query<{ value: string }>("select value from settings where key = 'jwt_secret'");
  return rows[0]!.value;
}

/**
 * The change history's key (ADR 035): AUDIT_KEY when given; else one generated once and kept in the database,
 * as the JWT secret is, so the chain still verifies after a restart and from `npm run audit:verify`. Such a
 * key lies beside the log it protects, so the caller warns (`generated`).
 */
export async function auditKeyFrom(db: Db, configured?: string): Promise<{ key: string; generated: boolean }> {
  if (configured) return { key: configured, generated: false };
  await db.query("insert into settings (key, value) values ('audit_key', $1) on conflict (key) do nothing", [randomBytes(32).toString('base64url')]);
  const { rows } = await db.query<{ value: string }>("select value from settings where key = 'audit_key'");
  return { key: rows[0]!.value, generated: true };
}

const SWEEP_INTERVAL_MS = 3600 * 1000;
/** How often the dashboard's deltas are folded (ADR 025); reads are exact either way, folding keeps them small. */
const TALLY_COMPACTION_INTERVAL_MS = 10 * 1000;

/**
 * Every refresh adds a row; expired rows no longer decide anything (an expired token is refused either way).
 * A session a day past its absolute lifetime or its revocation is gone with its refresh tokens (cascade):
 * its access tokens expired long before. Throttle counters go once they no longer decide anything.
 */
export async function sweepExpired(db: Db, config: Pick<UpstreamConfig, 'sessionMaxAgeSeconds' | 'loginThrottle'> = DEFAULT_CONFIG): Promise<void> {
  await db.query("delete from refresh_tokens where expires_at < now() - interval '1 day'");
  await db.query("delete from account_tokens where expires_at < now() - interval '1 day'");
  await db.query("delete from sessions where created_at < now() - make_interval(secs => $1) - interval '1 day' or revoked_at < now() - interval '1 day'", [
    config.sessionMaxAgeSeconds,
  ]);
  // Never sooner than the login backoff forgets, nor than the hour the reset-request window spans.
  await db.query('delete from throttle where last_at < now() - make_interval(secs => $1)', [Math.max(config.loginThrottle.forgetAfterSeconds, 3600)]);
}

/**
 * Prunes the change history to the retention (ADR 038). A run that does not verify is refused and said
 * loudly, at every attempt: the history was edited, and removing it would launder the edit (ADR 059).
 */
export async function pruneAuditHistory(
  db: Db,
  config: Pick<UpstreamConfig, 'auditKey' | 'auditRetentionDays'>,
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
): Promise<void> {
  if (config.auditRetentionDays === null) return;
  try {
    const removed = await pruneHistory(db, config.auditKey, new Date(Date.now() - config.auditRetentionDays * 24 * 3600 * 1000));
    if (removed > 0) log.info({ removed, retentionDays: config.auditRetentionDays }, 'change history pruned behind a checkpoint');
  } catch (error) {
    if (error instanceof PruneRefused)
      log.error({ firstBadId: error.firstBadId, reason: error.reason }, `CHANGE HISTORY TAMPERED WITH: ${error.message}; run npm run audit:verify`);
    else log.warn({ err: error }, 'change history pruning failed');
  }
}

/**
 * Writes the change history's signed head outside the database (ADR 059) every `auditHeadIntervalMs` when it
 * moved: to the log always (a log shipped elsewhere keeps it), and to `auditHeadFile` when set. A kept head
 * beyond the database's is said loudly, once per head, and never overwritten.
 */
function auditHeadWitness(db: Db, config: UpstreamConfig, log: FastifyBaseLogger, periodic: boolean) {
  let last: SignedHead | null = null;
  let warned = '';
  let fileFailed = '';
  let running: Promise<void> = Promise.resolve();
  // A file that cannot be written (a read-only file system) is said once; the head still goes to the log.
  const toFile = async (file: string) => {
    try {
      const done = await witnessHead(db, config.auditKey, file, last);
      fileFailed = '';
      return done;
    } catch (error) {
      if (fileFailed !== String(error)) log.warn({ err: error, file }, 'change history head not written to its file (AUDIT_HEAD_FILE); it is still logged');
      fileFailed = String(error);
      return signedHeadIfMoved(db, config.auditKey, last);
    }
  };
  const once = async () => {
    const done = config.auditHeadFile ? await toFile(config.auditHeadFile) : await signedHeadIfMoved(db, config.auditKey, last);
    if ('written' in done) {
      last = done.written;
      log.info({ auditHead: done.written }, 'change history head');
    } else if ('behind' in done && warned !== done.behind.kept.sig) {
      warned = done.behind.kept.sig;
      log.error(
        { kept: done.behind.kept, database: done.behind.database, file: config.auditHeadFile },
        "CHANGE HISTORY TAMPERED WITH: the head kept outside the database lies beyond the database's (entries cut from the tail), or this is another database; run npm run audit:verify",
      );
    }
  };
  const run = () => (running = running.then(once).catch((error: unknown) => log.warn({ err: error }, 'change history head not written')));
  // Without background jobs (a test recording its own statements) the head is still written at start and close.
  const timer = periodic ? setInterval(() => void run(), config.auditHeadIntervalMs) : undefined;
  timer?.unref();
  return { run, stop: () => clearInterval(timer) };
}

/**
 * An in-memory database, or a new PGlite data directory, may start from a migrated copy (`UPSTREAM_PGLITE_TEMPLATE`: a data directory tarball of
 * a database that ran every migration and nothing else, which the test run makes once: tests/global-setup.ts).
 * Creating and migrating a PGlite database costs about 9 s of CPU, loading the copy about 2 s, and the test run
 * starts some fifty. The usual migration step still runs after it, so a stale copy is migrated, never trusted.
 *
 * A start that would seed the demo data may instead load a copy that holds it already
 * (`UPSTREAM_PGLITE_SEEDED_TEMPLATE`, with `<file>.json` beside it naming the UTC day it was seeded on, the scrypt cost
 * and a SHA-256 of the demo password): only when all three match this start, so the copy holds exactly what seeding
 * here would write (the demo data's dates are relative to the day). Seeding costs about 1.5 s of CPU more a start
 * (ADR 077). Neither copy holds a JWT secret or history key: each start makes its own, as on an empty database.
 */
function templateFor(opts: StartUpstreamOptions): Blob | undefined {
  // A data directory that holds a database already is opened as it is; a new one may start from the copy too.
  if (opts.databaseUrl || (opts.dataDir && opts.dataDir !== 'memory://' && existsSync(join(opts.dataDir, 'PG_VERSION')))) return undefined;
  const seeded = process.env.UPSTREAM_PGLITE_SEEDED_TEMPLATE;
  if (seeded && (opts.seedDemo ?? true) && opts.demoPassword && existsSync(seeded) && existsSync(`${seeded}.json`)) {
    const made = JSON.parse(readFileSync(`${seeded}.json`, 'utf8')) as { day: string; scryptCost: number; passwordSha256: string };
    const cost = opts.config?.scryptCost ?? DEFAULT_CONFIG.scryptCost;
    const digest = createHash('sha256').update(opts.demoPassword).digest('hex');
    if (made.day === demoDate(0) && made.scryptCost === cost && made.passwordSha256 === digest) return new Blob([readFileSync(seeded)]);
  }
  const path = process.env.UPSTREAM_PGLITE_TEMPLATE;
  return path && existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}

/** Opens the database, migrates, seeds demo data when asked, and listens. */
export async function startUpstream(opts: StartUpstreamOptions = {}) {
  const template = templateFor(opts);
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, ...(template ? { loadDataDir: template } : {}) });
  let started: Awaited<ReturnType<typeof startOn>>;
  try {
    started = await startOn(db, opts);
  } catch (error) {
    // A failed start (port taken, bad migration) must not leave a pool or a PGlite lock behind.
    await db.close().catch(() => undefined);
    throw error;
  }
  return withBackupControl(started, opts.dataDir);
}

/** An embedded database on disk is copied by `npm run backup` through this process, on a socket beside it (ADR 057). */
async function withBackupControl<T extends { db: Db; app: { log: { error(obj: object, msg: string): void } }; close(): Promise<void> }>(started: T, dataDir?: string): Promise<T> {
  if (!dataDir || !started.db.snapshotDataDir) return started;
  const control = await serveBackupControl(started.db, dataDir, (error) => started.app.log.error({ err: error }, 'backup snapshot failed')).catch(async (error: unknown) => {
    await started.close();
    throw error;
  });
  return {
    ...started,
    async close() {
      await control.close();
      await started.close();
    },
  };
}

/** The upload store of a database kept on disk: beside the PGlite directory, or the project's data/ with a server (also what `npm run backup` reads). */
export function defaultUploadDir(opts: { dataDir?: string; databaseUrl?: string }): string {
  return opts.dataDir ? join(opts.dataDir, '..', 'uploads') : join(projectRoot(import.meta.url), 'data', 'uploads');
}

/** Where uploads are kept: `defaultUploadDir`, or (an in-memory database) a throw-away folder removed on close. */
function uploadDirOf(opts: StartUpstreamOptions, partial: Partial<UpstreamConfig>): { uploadDir: string; tempUploadDir?: string } {
  if (partial.uploadDir) return { uploadDir: partial.uploadDir };
  if (opts.dataDir || opts.databaseUrl) return { uploadDir: defaultUploadDir(opts) };
  const temp = mkdtempSync(join(tmpdir(), 'bo-uploads-'));
  return { uploadDir: temp, tempUploadDir: temp };
}

async function startOn(db: Db, opts: StartUpstreamOptions) {
  await migrate(db);
  const host = opts.host ?? '127.0.0.1';
  const partial = opts.config ?? {};
  const { uploadDir, tempUploadDir } = uploadDirOf(opts, partial);
  const audit = await auditKeyFrom(db, partial.auditKey);
  const config: UpstreamConfig = {
    ...DEFAULT_CONFIG,
    ...partial,
    jwtSecret: await jwtSecretFrom(db, partial.jwtSecret),
    auditKey: audit.key,
    uploadDir,
    publicOrigin: partial.publicOrigin ?? '',
    // In-process, the back office reads it from here (server/main.ts, the tests' stack).
    forwardedSecret: partial.forwardedSecret === undefined ? randomBytes(32).toString('base64url') : partial.forwardedSecret,
  };
  const shouldSeed = opts.seedDemo ?? !opts.databaseUrl;
  const demoPassword = shouldSeed ? (opts.demoPassword ?? randomDemoPassword()) : undefined;
  const seeded = shouldSeed ? await seedDemo(db, demoPassword!, config.scryptCost) : false;

  await sweepExpired(db, config);
  const app = await buildUpstream({ db, config, logger: opts.logger });
  if (audit.generated) app.log.warn(AUDIT_KEY_WARNING);
  const sweepUploads = async () => {
    const removed = await sweepUnusedUploads(db, config);
    if (removed.length > 0) app.log.info({ removed: removed.length }, 'unused uploads removed');
  };
  await sweepUploads().catch((error: unknown) => app.log.warn({ err: error }, 'upload sweep failed'));
  const pruneAudit = () => pruneAuditHistory(db, config, app.log);
  await pruneAudit();
  const jobs = opts.backgroundJobs ?? true;
  const witness = auditHeadWitness(db, config, app.log, jobs);
  await witness.run();
  const sweeper = setInterval(() => {
    if (!jobs) return;
    void sweepExpired(db, config).catch((error: unknown) => app.log.warn({ err: error }, 'token sweep failed'));
    void pruneAudit();
    void sweepUploads().catch((error: unknown) => app.log.warn({ err: error }, 'upload sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();
  let compacting: Promise<unknown> = Promise.resolve();
  const compact = () => {
    if (!jobs) return;
    compacting = compactTallies(db).catch((error: unknown) => app.log.warn({ err: error }, 'dashboard tally compaction failed'));
  };
  const compactor = setInterval(compact, TALLY_COMPACTION_INTERVAL_MS);
  compactor.unref();
  compact();
  await app.listen({ port: opts.port ?? 0, host }).catch(async (error: unknown) => {
    clearInterval(sweeper);
    clearInterval(compactor);
    witness.stop();
    await app.close();
    if (tempUploadDir) rmSync(tempUploadDir, { recursive: true, force: true });
    throw error;
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  // Listening on every interface (a container): callers on this machine still use loopback, and
  // browsers reach the published port as localhost unless PUBLIC_ORIGIN says otherwise.
  const wildcard = host === '0.0.0.0' || host === '::';
  const origin = `http://${wildcard ? '127.0.0.1' : host}:${port}`;
  if (!config.publicOrigin) config.publicOrigin = wildcard ? `http://localhost:${port}` : origin;

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
      clearInterval(sweeper);
      clearInterval(compactor);
      await compacting;
      await app.close();
      // The last head this process wrote, once no request writes any more.
      witness.stop();
      await witness.run();
      await db.close();
      if (tempUploadDir) rmSync(tempUploadDir, { recursive: true, force: true });
    },
  };
}
