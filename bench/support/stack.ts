import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { request } from 'undici';
import { NODE_FLAGS, missingNodeEnv } from '../../server/node-flags.ts';
import { startChild, type Child } from './ipc.ts';

/** Where a benchmark's API keeps its data: a PostgreSQL database, or a PGlite directory. */
export type BenchDb = { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string };

export const describeDb = (db: BenchDb) => (db.kind === 'postgres' ? `PostgreSQL (${db.url.replace(/^.*\//, 'database ')})` : `PGlite (${db.dir.replace(/^.*bench\//, 'bench/')})`);

export interface Stack {
  upstream: Child;
  backOffice: Child;
  /** Back-office base URL (http://127.0.0.1:port). */
  target: string;
  /** The API base URL (…/api/). */
  api: string;
  stop(): Promise<void>;
}

/** The reference API and the back office, each in its own process, on loopback. */
export async function startStack(db: BenchDb, opts: { accessTtlSeconds?: number; execArgv?: string[] } = {}): Promise<Stack> {
  // The secret the back office and the API share in production (ADR 028): live updates need it (ADR 037).
  const secret = randomBytes(32).toString('base64url');
  const upstream = await startChild(join(import.meta.dirname, 'upstream-process.ts'), {
    BENCH_FORWARDED_SECRET: secret,
    BENCH_DB_URL: db.kind === 'postgres' ? db.url : '',
    BENCH_PGLITE_DIR: db.kind === 'pglite' ? db.dir : '',
    BENCH_ACCESS_TTL: opts.accessTtlSeconds ? String(opts.accessTtlSeconds) : '',
  });
  const api = String(upstream.ready.url);
  const backOffice = await startChild(
    join(import.meta.dirname, 'backoffice-process.ts'),
    { ...missingNodeEnv(), BENCH_UPSTREAM_URL: api, BENCH_FORWARDED_SECRET: secret },
    // The V8 flags production runs with (server/node-flags.ts, ADR 049).
    { execArgv: ['--expose-gc', ...NODE_FLAGS, ...(opts.execArgv ?? [])] },
  );
  return {
    upstream,
    backOffice,
    target: String(backOffice.ready.url),
    api,
    async stop() {
      await backOffice.stop();
      await upstream.stop();
    },
  };
}

/** Signs the demo admin in through the back office (tRPC login), answering the session's Cookie header. */
export async function signIn(target: string, email = 'admin@example.com'): Promise<string> {
  const res = await request(`${target}/trpc/auth.login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-backoffice-csrf': '1' },
    body: JSON.stringify({ email, password: 'bench-password' }),
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode}`);
  const setCookie = res.headers['set-cookie'];
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return list.map((c) => c.split(';')[0]).join('; ');
}

/** An access token straight from the API, for calling it directly. */
export async function apiToken(api: string, email = 'admin@example.com'): Promise<string> {
  const res = await request(`${api}account/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench-password' }),
  });
  const body = (await res.body.json()) as { data?: { token?: string } };
  if (!body.data?.token) throw new Error(`API sign-in failed: ${res.statusCode}`);
  return body.data.token;
}

export const trpcInput = (value: unknown) => encodeURIComponent(JSON.stringify(value));
