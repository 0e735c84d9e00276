import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../shared/project-root.server.ts';
import { startUpstream } from '../../upstream/start.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { agent, signIn } from '../support/http.ts';
import { openSse, type SseReader } from '../support/live-stream.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { COOKIE_SECRET, DEMO_PASSWORD, startUpstreamForTests, type Upstream } from '../support/stack.ts';

const root = projectRoot(import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

interface Instance {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** The production build as its own process, as `npm start` runs it against an external API. */
async function startInstance(upstreamUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'dist', 'server', 'main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      UPSTREAM_URL: upstreamUrl,
      COOKIE_SECRETS: COOKIE_SECRET,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      // As in the in-process stack: these tests are about live updates, not load shedding, and on a busy CI machine
      // a freshly started process's event loop can lag past the production default of 1 s (a 503 at sign-in).
      MAX_EVENT_LOOP_DELAY_MS: '15000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Back office ready')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then(() => reject(new Error(`instance exited early:\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, exited };
}

async function cookieOf(client: ReturnType<typeof agent>): Promise<string> {
  return (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
    .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
    .join('; ');
}

describe('two back-office processes on one API', () => {
  let upstream: Upstream;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    upstream = await startUpstreamForTests(2);
    proxy = await startFaultProxy(upstream.url);
    [a, b] = await Promise.all([startInstance(upstream.url), startInstance(proxy.url)]);
  });
  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGKILL');
    await proxy?.close();
    await upstream?.close();
  });

  it('parallel requests spread over both while the access token expires: no logout, all succeed', async () => {
    const client = agent({ baseUrl: a.url } as never);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const cookie = await cookieOf(client);
    await sleep(2200);
    const calls = Array.from({ length: 20 }, (_, i) => fetch(`${i % 2 ? b.url : a.url}/trpc/account.get`, { headers: { cookie } }));
    const results = await Promise.all(calls);
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const res of results) expect(((await res.json()) as { result: { data: { email: string } } }).result.data.email).toBe('admin@example.com');
    // Nobody was logged out: no response cleared the cookies.
    for (const res of results) expect(res.headers.getSetCookie().some((c) => /^bo_(at|rt)=;/.test(c))).toBe(false);
  });

  it('SIGTERM drains the request in flight, then the process exits cleanly', async () => {
    const client = agent({ baseUrl: b.url } as never);
    await signIn(client, 'buddy@example.com', DEMO_PASSWORD);
    const cookie = await cookieOf(client);
    proxy.setRule((req) => (req.url?.startsWith('/api/account/') ? { kind: 'delay', ms: 800 } : { kind: 'pass' }));
    const inFlight = fetch(`${b.url}/trpc/account.get`, { headers: { cookie } });
    await sleep(200);
    b.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await b.exited).toBe(0);
    proxy.reset();
  });
});

/**
 * Live updates across processes (ADR 037): two APIs and two back offices on one PostgreSQL server. A change
 * made through API 1 is announced by PostgreSQL to API 2's LISTEN, which streams it to back office 2, which
 * passes it to a browser signed in there. Needs TEST_DATABASE_URL (an admin connection), as the other
 * PostgreSQL tests; skipped without it.
 */
const adminUrl = process.env.TEST_DATABASE_URL;
describe.skipIf(!adminUrl)('live updates: two APIs and two back offices on one PostgreSQL', () => {
  const name = `live_mp_${process.pid}_${Date.now()}`;
  const secret = randomBytes(32).toString('base64url');
  const uploads = mkdtempSync(join(tmpdir(), 'bo-live-uploads-'));
  let admin: pg.Client;
  const apis: Upstream[] = [];
  const offices: Instance[] = [];
  let stream: SseReader | undefined;

  beforeAll(async () => {
    let url: string;
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    const options = {
      port: 0,
      databaseUrl: url,
      seedDemo: true,
      demoPassword: DEMO_PASSWORD,
      logger: testLogger('upstream-live'),
      config: { scryptCost: 1024, jwtSecret: 'live-secret-live-secret-live-secret!', forwardedSecret: secret, uploadDir: uploads, logMailLinks: false },
    };
    // One after the other: the first migrates and seeds, the second finds it done.
    apis.push(await startUpstream(options));
    apis.push(await startUpstream(options));
    offices.push(...(await Promise.all(apis.map((api) => startInstance(api.url, { UPSTREAM_FORWARDED_SECRET: secret })))));
  }, 120_000);
  afterAll(async () => {
    stream?.close();
    for (const office of offices) office.child.kill('SIGKILL');
    await Promise.all(apis.map((api) => api.close()));
    rmSync(uploads, { recursive: true, force: true });
    await admin?.query(`drop database if exists ${name}`);
    await admin?.end();
  });

  /** A browser signed in on back office 2 with its live stream open (and attached: half a second). */
  async function streamOnOffice2(email: string): Promise<SseReader> {
    const browser = agent({ baseUrl: offices[1]!.url } as never);
    await signIn(browser, email, DEMO_PASSWORD);
    const opened = await openSse(`${offices[1]!.url}/live`, { cookie: await cookieOf(browser) });
    expect(opened.status).toBe(200);
    await sleep(500);
    return opened;
  }

  /** An Admin's access token straight from API 1. */
  async function adminTokenOfApi1(): Promise<string> {
    const login = await fetch(apis[0]!.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
    });
    return ((await login.json()) as { data: { token: string } }).data.token;
  }

  it('a write through API 1 reaches a stream on back office 2', async () => {
    stream = await streamOnOffice2('admin@example.com');
    const token = await adminTokenOfApi1();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const { rows } = await apis[0]!.db.query<{ id: number; version: number }>('select id, version from services order by id limit 1');
    const service = rows[0]!;
    const patched = await fetch(`${apis[0]!.url}services/${service.id}/`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ version: Number(service.version), notes: 'live across processes' }),
    });
    expect(patched.status).toBe(200);

    // Sign-ins are history entries too (ADR 038): this test follows the service.
    const ofService = (f: { event: string; data: string }) => f.event === 'change' && (JSON.parse(f.data) as { entity: string }).entity === 'services';
    const frame = await stream.next(ofService, 15_000);
    expect(JSON.parse(frame.data)).toMatchObject({ entity: 'services', record_id: Number(service.id), action: 'update' });

    // PostgreSQL ends the API's LISTEN connection (a restart, a failover): a change made meanwhile still
    // arrives, read from the table once they listen again.
    const ended = await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and query ilike 'listen%'", [name]);
    expect(ended.rowCount).toBe(1); // API 2's: only back office 2 has a browser stream, so only it subscribed
    const again = await fetch(`${apis[0]!.url}services/${service.id}/`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ version: Number(service.version) + 1, notes: 'while nobody listened' }),
    });
    expect(again.status).toBe(200);
    const caughtUp = JSON.parse((await stream.next(ofService, 20_000)).data) as { id: number };
    expect(caughtUp.id).toBe(JSON.parse(frame.data).id + 1);
  });

  it('a session ended through the other API ends its stream on back office 2 at once, not at the next 30-second check', async () => {
    const own = await streamOnOffice2('buddy@example.com');
    const token = await adminTokenOfApi1();
    const { rows } = await apis[0]!.db.query<{ id: number }>("select id from users where email = 'buddy@example.com'");
    // An Admin takes the Buddy role through API 1: every token of the buddy stops working (ADR 017).
    const taken = await fetch(`${apis[0]!.url}users/${rows[0]!.id}/roles/Buddy/`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(taken.status).toBe(200);
    // Well before the stream's own 30-second check: the hub asked at once, on the change of the buddy's account.
    await Promise.race([own.ended, sleep(15_000).then(() => Promise.reject(new Error('the stream was not ended within 15 s')))]);
    own.close();
  });
});
