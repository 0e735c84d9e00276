import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TEXT } from '../../shared/errors.ts';
import { projectRoot } from '../../shared/project-root.server.ts';

/**
 * Issue 21's cluster on this machine, with real parts (ADR 046): a PostgreSQL server of its own, two API
 * processes, three back-office processes (the production build) and Debian's HAProxy in front of them with
 * the shipped configuration's health checks and timeouts (deploy/haproxy/haproxy.cfg), all on loopback.
 * Twenty signed-in clients read and write through HAProxy while the test restarts every back office in turn,
 * kills one with SIGKILL, and restarts PostgreSQL with an immediate (crash) stop. The figures are printed and
 * kept in bench/RESULTS.md ("Issue 21: cluster").
 *
 * Needs `haproxy` and PostgreSQL's server binaries: skipped without them on a workstation, a failure in CI
 * (.ci/run installs them).
 */

const root = projectRoot(import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PASSWORD = 'cluster-demo-password';
const COOKIE_SECRET = randomBytes(32).toString('base64url');
const FORWARDED_SECRET = randomBytes(32).toString('base64url');
const CLIENTS = 20;
/** Pause of each client between two requests: 20 clients make at most ~130 requests a second. */
const THINK_MS = 150;
/** The back offices' settings that matter here are Compose's, the shipped ones (SHUTDOWN_DELAY_SECONDS, SSR_WORKERS). */
const compose = readFileSync(join(root, 'deploy/compose.yaml'), 'utf8');
const composeSetting = (name: string): string => {
  const found = new RegExp(`^\\s+${name}: '([^']*)'`, 'm').exec(compose);
  if (!found) throw new Error(`deploy/compose.yaml sets no ${name} for the back office`);
  return found[1]!;
};

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin'])) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** PostgreSQL's server binaries: PG_BIN, the newest /usr/lib/postgresql/N/bin, or PATH. */
function postgresBin(): string | null {
  const candidates = [process.env.PG_BIN];
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  for (const dir of candidates) if (dir && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'initdb'))) return dir;
  const initdb = which('initdb');
  return initdb && which('pg_ctl') ? initdb.replace(/\/initdb$/, '') : null;
}

const haproxyBin = which('haproxy');
const pgBin = postgresBin();
const missing = [!haproxyBin && 'haproxy', !pgBin && 'PostgreSQL (initdb, pg_ctl)'].filter(Boolean).join(' and ');
if (missing && process.env.CI) throw new Error(`the cluster test needs ${missing} (.ci/run installs them); CI does not skip it`);
if (missing) console.warn(`cluster test skipped: ${missing} not installed (apt-get install haproxy postgresql)`);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// The parts

interface Proc {
  name: string;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
/** A test runner that dies leaves nothing behind either. */
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a program with the bundled Node and waits for the line that says it listens. */
function startNode(name: string, script: string, port: number, env: Record<string, string>, ready: string, logDir: string): Promise<Proc> {
  const child = spawn(process.execPath, [join(root, script)], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return new Promise<Proc>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      out += chunk.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve({ name, port, child, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before it was ready:\n${out}`));
    });
  });
}

/** Runs a PostgreSQL tool; as root (CI) as the postgres user, which the server insists on. */
function pgTool(command: string): void {
  const asRoot = process.getuid?.() === 0;
  const result = asRoot ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' }) : spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status}):\n${result.stdout}${result.stderr}`);
}

/**
 * The HAProxy configuration of the test: deploy/haproxy/haproxy.cfg itself with loopback addresses instead of
 * Compose's names (no Docker DNS), three back offices, and an admin socket to read the servers' states.
 * Health checks, timeouts and retries are the shipped ones.
 */
function clusterHaproxyConfig(shipped: string, opts: { port: number; offices: number[]; api: number; socket: string }): string {
  const lines = shipped.split('\n');
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^resolvers /.test(line)) skipping = true;
    else if (skipping && /^\S/.test(line)) skipping = false;
    if (skipping) continue;
    if (/^# Docker's DNS/.test(line)) continue;
    if (/^\s+server backoffice-\d/.test(line)) continue;
    let next = line.replace(/ resolvers docker init-addr \S+/, '').replace(/bind :8080/, `bind 127.0.0.1:${opts.port}`);
    next = next.replace(/server api api:4010/, `server api 127.0.0.1:${opts.api}`);
    out.push(next);
    if (/^global/.test(line)) out.push(`  stats socket ${opts.socket} mode 600 level admin`);
  }
  // The three back offices go where the shipped ones were, after the backend's default-server line.
  const text = out.join('\n');
  const servers = opts.offices.map((port, i) => `  server backoffice-${i + 1} 127.0.0.1:${port}`).join('\n');
  return text.replace(/(backend backoffice\n(?: {2}.*\n)*?)( {2}default-server .*\n)/, `$1$2${servers}\n`);
}

/** A command on HAProxy's admin socket, and its answer. */
function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let text = '';
    conn.on('connect', () => conn.write(`${command}\n`));
    conn.on('data', (chunk) => (text += chunk.toString()));
    conn.on('error', reject);
    conn.on('end', () => resolve(text));
  });
}

/** `show stat`: each back office's state (UP, DOWN, …). */
async function serverStates(socket: string): Promise<Record<string, string>> {
  const [header, ...rows] = (await haproxyCommand(socket, 'show stat')).replace(/^# /, '').trim().split('\n');
  const cols = header!.split(',');
  const states: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[cols.indexOf('pxname')] === 'backoffice' && /^backoffice-/.test(cells[cols.indexOf('svname')]!)) {
      states[cells[cols.indexOf('svname')]!] = cells[cols.indexOf('status')]!;
    }
  }
  return states;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

// ---------------------------------------------------------------------------------------------------------
// The load

interface Sample {
  phase: string;
  client: number;
  started: number;
  ms: number;
  ok: boolean;
  status: number;
  signedOut: boolean;
  write?: string;
  error?: string;
}

class Client {
  private cookies = new Map<string, string>();
  readonly id: number;
  private readonly base: string;
  constructor(id: number, base: string) {
    this.id = id;
    this.base = base;
  }

  cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Keeps the cookies a response sets; true when one of the session's cookies was cleared (a sign-out). */
  take(res: Response): boolean {
    let cleared = false;
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '') {
        this.cookies.delete(name);
        if (/bo_(at|rt)$/.test(name)) cleared = true;
      } else this.cookies.set(name, value);
    }
    return cleared;
  }

  call(method: 'GET' | 'POST', path: string, input: unknown): Promise<Response> {
    const headers: Record<string, string> = { cookie: this.cookie() };
    let url = `${this.base}/trpc/${path}`;
    if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', 'x-backoffice-csrf': '1' });
    else url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return fetch(url, { method, headers, body: method === 'POST' ? JSON.stringify(input) : undefined, redirect: 'manual', signal: AbortSignal.timeout(20_000) });
  }

  async signIn(email: string): Promise<void> {
    const res = await this.call('POST', 'auth.login', { email, password: PASSWORD });
    this.take(res);
    if (res.status !== 200) throw new Error(`sign-in of client ${this.id} failed: ${res.status} ${await res.text()}`);
  }
}

function p95(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]!;
}

// ---------------------------------------------------------------------------------------------------------

describe.skipIf(Boolean(missing))('cluster: PostgreSQL, two APIs, three back offices behind HAProxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bo-cluster-'));
  const pgData = join(dir, 'pg');
  const socket = join(dir, 'haproxy.sock');
  const runId = randomBytes(3).toString('hex');
  const auditKey = randomBytes(32).toString('base64url');
  let pgPort: number;
  let databaseUrl: string;
  let haproxy: ChildProcess | undefined;
  let haproxyUrl: string;
  const apis: Proc[] = [];
  const offices: Proc[] = [];
  let officeEnv: (i: number) => Record<string, string>;
  const startOffice = (i: number, port: number, suffix = '') => startNode(`backoffice-${i + 1}${suffix}`, 'dist/server/main.js', port, officeEnv(i), 'Back office ready', dir);
  const samples: Sample[] = [];
  let phase = 'warm-up';
  let inFlight = 0;
  let loadRunning = true;
  let load: Promise<void> | undefined;
  const setup: string[] = [];
  let mark = Date.now();
  const lap = (what: string) => {
    setup.push(`${what} ${((Date.now() - mark) / 1000).toFixed(1)} s`);
    mark = Date.now();
  };

  const pgCtl = (args: string) => pgTool(`${pgBin}/pg_ctl -D ${pgData} ${args}`);
  const startPostgres = () => pgCtl(`-o "-p ${pgPort} -k ${dir} -c listen_addresses=127.0.0.1" -l ${join(dir, 'postgres.log')} -w -t 30 start >/dev/null`);

  beforeAll(async () => {
    // PostgreSQL of its own, so the test can restart it.
    if (process.getuid?.() === 0) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid)) throw new Error('running as root needs a postgres user (.ci/run creates it)');
      chownSync(dir, uid, gid);
    }
    pgPort = await freePort();
    pgTool(`${pgBin}/initdb -D ${pgData} -A trust -U postgres --no-sync >/dev/null`);
    startPostgres();
    const ownerUrl = `postgres://postgres@127.0.0.1:${pgPort}/bike`;
    // The APIs as their own role, not the tables' owner (ADR 067), as the deployments run them: the migration
    // as the owner creates and grants it (the server trusts local connections: the password is not checked).
    databaseUrl = `postgres://bike_api:cluster-api-password@127.0.0.1:${pgPort}/bike`;
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${pgPort}/postgres` });
    await admin.connect();
    await admin.query('create database bike');
    await admin.end();
    lap('PostgreSQL');
    const migrated = spawnSync(process.execPath, [join(root, 'scripts', 'migrate.ts')], {
      env: { ...process.env, DATABASE_URL: ownerUrl, API_DATABASE_URL: databaseUrl, UPSTREAM_DATA_DIR: '' },
      encoding: 'utf8',
    });
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/the API's role bike_api may read and write/);
    lap('migration as the owner');

    const [haPort, ...ports] = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    haproxyUrl = `http://127.0.0.1:${haPort}`;
    const apiEnv = {
      DATABASE_URL: databaseUrl,
      SEED_DEMO: 'true',
      DEMO_PASSWORD: PASSWORD,
      UPSTREAM_JWT_SECRET: randomBytes(32).toString('base64url'),
      AUDIT_KEY: auditKey,
      UPSTREAM_FORWARDED_SECRET: FORWARDED_SECRET,
      UPSTREAM_UPLOAD_DIR: join(dir, 'uploads'),
      // One head file for both APIs, as a shared volume would be (ADR 059); not the project's data/.
      AUDIT_HEAD_FILE: join(dir, 'audit-head.json'),
      APP_URL: haproxyUrl,
      LOG_MAIL_LINKS: 'false',
    };
    officeEnv = (i) => ({
      UPSTREAM_URL: `http://127.0.0.1:${ports[i % 2]}/api/`,
      UPSTREAM_FORWARDED_SECRET: FORWARDED_SECRET,
      COOKIE_SECRETS: COOKIE_SECRET,
      PUBLIC_URL: haproxyUrl,
      TRUST_PROXY: 'true',
      SSR_WORKERS: composeSetting('SSR_WORKERS'),
      MAP_TILE_URL: 'none',
      SHUTDOWN_DELAY_SECONDS: composeSetting('SHUTDOWN_DELAY_SECONDS'),
      // Test files run side by side on a small machine: a busy neighbour must not make a back office shed load
      // mid-test (as in tests/support/stack.ts); load shedding has its own test.
      MAX_EVENT_LOOP_DELAY_MS: '15000',
    });
    // A back office starts without its API (it is not ready until the API answers): all three start while the
    // first API seeds; the second API finds that done and starts after it.
    const officesStarting = Promise.all([0, 1, 2].map((i) => startOffice(i, ports[2 + i]!)));
    officesStarting.catch(() => undefined); // awaited below
    apis.push(await startNode('api-1', 'upstream/main.ts', ports[0]!, apiEnv, 'Reference API listening', dir));
    lap('API 1 (demo data)');

    apis.push(await startNode('api-2', 'upstream/main.ts', ports[1]!, apiEnv, 'Reference API listening', dir));
    offices.push(...(await officesStarting));
    lap('API 2, and the back offices started beside API 1');

    const config = clusterHaproxyConfig(readFileSync(join(root, 'deploy/haproxy/haproxy.cfg'), 'utf8'), {
      port: haPort!,
      offices: offices.map((o) => o.port),
      api: apis[0]!.port,
      socket,
    });
    writeFileSync(join(dir, 'haproxy.cfg'), config);
    const checked = spawnSync(haproxyBin!, ['-c', '-q', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
    if (checked.status !== 0) throw new Error(`haproxy -c refused the configuration:\n${checked.stdout}${checked.stderr}\n${config}`);
    haproxy = spawn(haproxyBin!, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(haproxy);
    const haLog = createWriteStream(join(dir, 'haproxy.log'));
    haproxy.stdout!.pipe(haLog);
    haproxy.stderr!.pipe(haLog);
    await waitFor('HAProxy to see three back offices up', async () => Object.values(await serverStates(socket)).filter((s) => s === 'UP').length === 3, 20_000);
    lap('HAProxy');
  }, 120_000);

  afterAll(async () => {
    loadRunning = false;
    await load?.catch(() => {});
    for (const child of [haproxy, ...running]) child?.kill('SIGKILL');
    try {
      pgCtl('-m immediate stop >/dev/null');
    } catch {
      // not running
    }
    if (process.env.CLUSTER_KEEP_LOGS) console.log(`cluster logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  async function clientLoop(client: Client): Promise<void> {
    let n = 0;
    while (loadRunning) {
      n += 1;
      const kind = n % 4 === 0 ? 'write' : n % 2 ? 'account' : 'list';
      const name = `Cluster ${runId} ${client.id}-${n}`;
      // Counted in the phase in which it ends: a request cut by the kill -9 belongs to the kill.
      const sample: Sample = { phase: '', client: client.id, started: Date.now(), ms: 0, ok: false, status: 0, signedOut: false, ...(kind === 'write' ? { write: name } : {}) };
      inFlight += 1;
      try {
        const res =
          kind === 'write'
            ? await client.call('POST', 'companies.create', { name })
            : kind === 'account'
              ? await client.call('GET', 'account.get', undefined)
              : await client.call('GET', 'companies.list', {});
        sample.status = res.status;
        const body = await res.text();
        sample.signedOut = client.take(res) || res.status === 401 || (res.status >= 300 && res.status < 400 && /\/login/.test(res.headers.get('location') ?? ''));
        sample.ok = res.status === 200;
        if (!sample.ok) sample.error = body.slice(0, 2000);
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        sample.error = `${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} (${cause?.code ?? ''} ${cause?.message ?? ''}) ${kind} at ${new Date(sample.started).toISOString()}`;
      } finally {
        inFlight -= 1;
        sample.phase = phase;
        sample.ms = Date.now() - sample.started;
        samples.push(sample);
      }
      await sleep(THINK_MS);
    }
  }

  const inPhase = (name: string) => samples.filter((s) => s.phase === name);
  const failures = (name: string) => inPhase(name).filter((s) => !s.ok);
  const signOuts = () => samples.filter((s) => s.signedOut);
  const describeFailures = (list: Sample[]) => list.map((s) => `${s.status} ${s.error ?? ''}`.slice(0, 200)).join('\n');

  it('rolling restart: 0 failed requests and 0 sign-outs; kill -9: only in-flight requests fail; PostgreSQL restart: bounded errors, nothing written lost', async () => {
    const t0 = Date.now();
    const clients = Array.from({ length: CLIENTS }, (_, i) => new Client(i, haproxyUrl));
    // One after the other: concurrent attempts of one account from one address count against its sign-in
    // throttle until each is verified (ADR 018), and all of these come from HAProxy's address.
    for (const c of clients) await c.signIn('admin@example.com');
    load = Promise.all(clients.map((c) => clientLoop(c))).then(() => undefined);
    await sleep(2000);

    // 1. Rolling restart, one back office at a time, as a Kubernetes rollout with maxUnavailable 0 does it: the
    //    replacement starts (on a port of its own) while the old process still serves; then SIGTERM, /readyz
    //    fails, HAProxy takes the old one out, it drains and exits; HAProxy's server is pointed at the
    //    replacement, and the next one begins only once HAProxy has it up.
    phase = 'rolling restart';
    const rolling: string[] = [];
    const startReplacement = async (i: number) => startOffice(i, await freePort(), 'b');
    let next = startReplacement(0);
    for (const i of [0, 1, 2]) {
      const old = offices[i]!;
      const name = `backoffice-${i + 1}`;
      const began = Date.now();
      const fresh = await next;
      if (i < 2) {
        next = startReplacement(i + 1);
        next.catch(() => undefined); // awaited in the next round; a failure there fails the test
      }
      const stopped = Date.now();
      old.child.kill('SIGTERM');
      let downBeforeExit = false;
      let exitCode: number | null | undefined;
      void old.exited.then((code) => (exitCode = code));
      while (exitCode === undefined) {
        const state = await serverStates(socket).catch(() => ({}) as Record<string, string>);
        if (/^DOWN/.test(state[name] ?? '')) downBeforeExit = true;
        await sleep(200);
      }
      expect(exitCode, `${name} exits cleanly after its drain`).toBe(0);
      expect(downBeforeExit, `HAProxy took ${name} out (on /readyz) before it stopped`).toBe(true);
      const exitedAt = Date.now();
      expect(await haproxyCommand(socket, `set server backoffice/${name} addr 127.0.0.1 port ${fresh.port}`)).toMatch(/changed|no need/i);
      offices[i] = fresh;
      await waitFor(`HAProxy to see ${name} up again`, async () => (await serverStates(socket))[name] === 'UP', 20_000);
      const secs = (a: number, b: number) => ((b - a) / 1000).toFixed(1);
      rolling.push(`${name} ${secs(began, stopped)} + ${secs(stopped, exitedAt)} + ${secs(exitedAt, Date.now())} s`);
    }
    expect(describeFailures(failures('rolling restart'))).toBe('');
    expect(signOuts()).toEqual([]);

    // 2. kill -9 of one back office under load: only the requests it had in flight may fail.
    phase = 'kill -9';
    const killedAt = Date.now();
    const inFlightAtKill = inFlight;
    offices[1]!.child.kill('SIGKILL');
    await offices[1]!.exited;
    // Until the kernel has torn the process down, its listening socket still completes connections: a request
    // HAProxy sends in those milliseconds is in flight there too.
    const goneAt = Date.now();
    await sleep(2000);
    phase = 'after kill -9';
    await sleep(2000);
    const killFailures = failures('kill -9');
    const reached = samples.filter((s) => s.started <= goneAt && s.started + s.ms >= killedAt).length;
    for (const failure of killFailures) {
      expect(failure.started, 'a request that failed was in flight when the process died').toBeLessThanOrEqual(goneAt);
      // Not retried, since it may have been carried out: HAProxy answers 502, or, for a request it had sent on a
      // reused connection, closes the client's connection as the server did (http-reuse safe).
      if (failure.status !== 502) expect(failure.error, failure.error).toMatch(/UND_ERR_SOCKET|other side closed|ECONNRESET/);
      const next = samples.find((s) => s.client === failure.client && s.started > failure.started);
      expect(next?.ok, `client ${failure.client}'s next request succeeds`).toBe(true);
    }
    expect(describeFailures(failures('after kill -9'))).toBe('');
    expect(signOuts()).toEqual([]);

    // 3. PostgreSQL stops at once (as in a crash) and starts again a second later.
    phase = 'postgres restart';
    const pgStopped = Date.now();
    pgCtl('-m immediate stop >/dev/null');
    await sleep(1000);
    startPostgres();
    const pgDownMs = Date.now() - pgStopped;
    await sleep(2000);
    phase = 'after postgres restart';
    await sleep(2500);
    loadRunning = false;
    await load;

    const pgFailures = failures('postgres restart');
    // Bounded: the errors are answers (no hang, no dropped connection) that say what happened, and they end.
    // They say what happened: the database is unavailable for a moment, try again (a 503 the client translates).
    for (const failure of pgFailures) {
      expect(failure.status, failure.error).toBe(503);
      expect(JSON.parse(failure.error ?? '{}')).toMatchObject({ error: { message: ERROR_TEXT.database_unavailable, data: { appCode: 'database_unavailable', retryable: true } } });
    }
    expect(describeFailures(failures('after postgres restart'))).toBe('');
    expect(signOuts()).toEqual([]);

    // Nothing acknowledged is lost: every write answered 200 is in the database.
    const acknowledged = samples.filter((s) => s.ok && s.write).map((s) => s.write!);
    const unacknowledged = samples.filter((s) => !s.ok && s.write).map((s) => s.write!);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ name: string }>('select name from companies where name like $1', [`Cluster ${runId} %`]);
    await db.end();
    const stored = new Set(rows.map((r) => r.name));
    const lost = acknowledged.filter((name) => !stored.has(name));
    expect(lost).toEqual([]);

    // The figures.
    const phases = ['warm-up', 'rolling restart', 'kill -9', 'after kill -9', 'postgres restart', 'after postgres restart'];
    const table = [
      '| phase | requests | failed | p95 ms | max ms | writes acknowledged | writes failed (of which stored anyway) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...phases.map((p) => {
        const list = inPhase(p);
        const writes = list.filter((s) => s.write);
        const failedWrites = writes.filter((s) => !s.ok);
        return `| ${p} | ${list.length} | ${list.filter((s) => !s.ok).length} | ${p95(list.map((s) => s.ms))} | ${Math.max(0, ...list.map((s) => s.ms))} | ${writes.length - failedWrites.length} | ${failedWrites.length} (${failedWrites.filter((s) => stored.has(s.write!)).length}) |`;
      }),
    ];
    // One line per kind of answer: status, code and text, with the procedures that got it.
    const answers = new Map<string, Set<string>>();
    for (const failure of pgFailures) {
      const body = JSON.parse(failure.error ?? '{}') as { error?: { message?: string; data?: { appCode?: string; path?: string } } };
      const key = `${failure.status} ${body.error?.data?.appCode} "${body.error?.message}"`;
      answers.set(key, (answers.get(key) ?? new Set()).add(body.error?.data?.path ?? '?'));
    }
    const messages = [...answers].map(([key, paths]) => `${key} (${[...paths].join(', ')})`);
    const report = [
      `setup: ${setup.join(', ')}`,
      `cluster: ${CLIENTS} signed-in clients, ${samples.length} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${signOuts().length} sign-outs`,
      ...table,
      `rolling restart, per back office: waiting for its replacement to start + SIGTERM to exit (out of HAProxy, drained) + the replacement in HAProxy: ${rolling.join(', ')}`,
      `kill -9: ${inFlightAtKill} requests in flight on all back offices at the kill (${reached} until the process was gone, ${goneAt - killedAt} ms), ${killFailures.length} failed: ${describeFailures(killFailures).replace(/\s+/g, ' ') || '—'}`,
      `postgres restart: down ${pgDownMs} ms, ${pgFailures.length} failed; answers: ${messages.join(' | ') || '—'}`,
      `writes: ${acknowledged.length} acknowledged, all ${stored.size >= acknowledged.length ? 'found' : 'NOT found'} in the database (${stored.size} rows); ${unacknowledged.length} not acknowledged, of which ${unacknowledged.filter((n) => stored.has(n)).length} were written anyway`,
    ].join('\n');
    console.log(report);
    if (process.env.CLUSTER_REPORT) writeFileSync(process.env.CLUSTER_REPORT, report + '\n');
  }, 180_000);

  it('restore drill: npm run backup of the running cluster, npm run restore into a new database; rows, files and the change history hold', async () => {
    // The scripts as the deployments run them, with the server's own client programs (PG_BIN: pg_dump of its version).
    const script = async (name: string, args: string[], env: Record<string, string>) => {
      const started = Date.now();
      const child = spawn(process.execPath, [join(root, 'scripts', `${name}.ts`), ...args], {
        env: { ...process.env, UPSTREAM_DATA_DIR: '', AUDIT_KEY: auditKey, PG_BIN: pgBin!, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (part: Buffer) => (out += part.toString()));
      child.stderr!.on('data', (part: Buffer) => (out += part.toString()));
      const code = await new Promise<number | null>((done) => child.on('close', done));
      return { code, out, seconds: ((Date.now() - started) / 1000).toFixed(1) };
    };
    const archive = join(dir, 'drill.tar.gz');
    const backup = await script('backup', ['--out', archive], { DATABASE_URL: databaseUrl, UPSTREAM_UPLOAD_DIR: join(dir, 'uploads') });
    expect(backup.code, backup.out).toBe(0);
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${pgPort}/postgres` });
    await admin.connect();
    await admin.query('create database bike_drill');
    await admin.end();
    const drill = { DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/bike_drill`, UPSTREAM_UPLOAD_DIR: join(dir, 'uploads-drill') };
    const restore = await script('restore', [archive], drill);
    expect(restore.code, restore.out).toBe(0);
    expect(restore.out).toMatch(/^restore: ok/);
    const verify = await script('audit-verify', [], drill);
    expect(verify.out).toMatch(/ok: \d+ entries, the chain holds/);
    expect(verify.code).toBe(0);
    console.log(
      `restore drill: backup ${backup.seconds} s (${(statSync(archive).size / 1e6).toFixed(1)} MB), restore with its checks ${restore.seconds} s, audit:verify ${verify.seconds} s`,
    );
  }, 120_000);
});
