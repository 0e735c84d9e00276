import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../shared/project-root.server.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { agent, signIn } from '../support/http.ts';
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
async function startInstance(upstreamUrl: string): Promise<Instance> {
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

describe('two back-office processes on one API', () => {
  it('parallel requests spread over both while the access token expires: no logout, all succeed', async () => {
    const client = agent({ baseUrl: a.url } as never);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
      .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
      .join('; ');
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
    const cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
      .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
      .join('; ');
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
