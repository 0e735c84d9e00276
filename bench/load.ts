import { spawn } from 'node:child_process';
import { join } from 'node:path';

// React's production build, as `npm start` runs it. Set before React loads (the imports below are
// dynamic for that reason): a development `react` with a production `react-dom/server` cannot render.
process.env.NODE_ENV ??= 'production';
const { buildApp } = await import('../server/app.ts');

/**
 * Load and soak of the real stack (issue: reliability). The server and the reference API run here;
 * the load comes from bench/load-client.ts in a second process. Set BENCH_DATABASE_URL to run the
 * API on PostgreSQL (PGlite serialises every query and becomes the bottleneck).
 */
export interface LoadResult {
  label: string;
  requests: number;
  rps: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, { count: number }>;
  rssMb: { start: number; end: number; max: number; samples: number[] };
}

/** The reference API in a process of its own, as in production (it must not share our event loop). */
export async function startUpstreamProcess() {
  const port = 4400 + Math.floor(Math.random() * 500);
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'upstream', 'main.ts')], {
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DEMO_PASSWORD: 'bench-password',
      SEED_DEMO: databaseUrl ? (process.env.BENCH_SEED ?? 'false') : 'true',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { UPSTREAM_DATA_DIR: join(import.meta.dirname, '.data', `pglite-${port}`) }),
      // The change history's head beside the bench's data, not in the project's data/ (ADR 059).
      ...(databaseUrl ? { AUDIT_HEAD_FILE: join(import.meta.dirname, '.data', `audit-head-${port}.json`) } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('listening')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`upstream exited ${code}: ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}/api/`, child };
}

/** The back office on the production build, listening on loopback, with an admin signed in. */
export async function startBackOffice(upstreamUrl: string) {
  const app = await buildApp({
    upstreamUrl,
    cookieSecrets: ['bench-cookie-secret-bench-cookie-secret-0001'],
    secureCookies: false,
    ssr: {
      kind: 'production',
      clientDir: join(import.meta.dirname, '..', 'dist', 'client'),
      entryServerPath: join(import.meta.dirname, '..', 'dist', 'server', 'entry-server.js'),
    },
    version: 'bench',
    logger: false,
    loginLimits: { perIpPerMinute: 1000 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const target = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const login = await fetch(`${target}/trpc/auth.login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-backoffice-csrf': '1' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'bench-password' }),
  });
  if (!login.ok) throw new Error(`bench login failed: ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { app, target, cookie };
}

export async function runLoad(opts: { connections: number; duration: number; label: string; sampleEverySeconds?: number }): Promise<LoadResult> {
  const upstream = await startUpstreamProcess();
  const { app, target, cookie } = await startBackOffice(upstream.url);

  const samples: number[] = [];
  const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
  const start = rss();
  const sampler = setInterval(() => samples.push(rss()), (opts.sampleEverySeconds ?? 5) * 1000);
  const output = await new Promise<string>((resolve, reject) => {
    // LOAD_CLIENT=autocannon keeps the old generator for comparison; the default times each request itself.
    const client = process.env.LOAD_CLIENT === 'autocannon' ? 'load-client.ts' : 'vu-client.ts';
    const child = spawn(process.execPath, [join(import.meta.dirname, client)], {
      env: { RATE: '1', ...process.env, TARGET: target, COOKIE: cookie, CONNECTIONS: String(opts.connections), DURATION: String(opts.duration) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`load client exited ${code}`))));
  });
  clearInterval(sampler);
  const end = rss();
  await app.close();
  upstream.child.kill('SIGTERM');
  return { label: opts.label, ...(JSON.parse(output) as Omit<LoadResult, 'label' | 'rssMb'>), rssMb: { start, end, max: Math.max(start, end, ...samples), samples } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const connections = Number(process.env.CONNECTIONS ?? 200);
  const duration = Number(process.env.DURATION ?? 60);
  const result = await runLoad({ connections, duration, label: process.env.LABEL ?? `${connections} connections, ${duration} s` });
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}
