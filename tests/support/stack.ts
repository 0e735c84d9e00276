import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { buildApp, type BuildAppOptions } from '../../server/app.ts';
import { projectRoot } from '../../shared/project-root.server.ts';
import { startUpstream } from '../../upstream/start.ts';
import { DEMO_PASSWORD, TEST_SCRYPT_COST } from './demo.ts';
import { testLogger } from './run-log.ts';

export { DEMO_PASSWORD };

/** Render workers of test stacks are given up on after this long without an answer (ADR 029). */
export const TEST_RENDER_TIMEOUT_MS = 60_000;
export const COOKIE_SECRET = 'test-cookie-secret-that-is-long-enough-0001';
const root = projectRoot(import.meta.url);

export type Upstream = Awaited<ReturnType<typeof startUpstream>>;

export interface Stack {
  baseUrl: string;
  app: FastifyInstance;
  upstream: Upstream;
  close(): Promise<void>;
}

export interface StackOptions {
  accessTokenTtlSeconds?: number;
  app?: Partial<BuildAppOptions>;
  /** Reuse a running upstream (several back-office instances on one API). */
  upstream?: Upstream;
  /** Run the upstream on this PostgreSQL database instead of in-memory PGlite. */
  databaseUrl?: string;
  /** Log warnings and errors only (a stack flooded with requests on purpose). */
  quietLogs?: boolean;
}

/** The real upstream on in-memory PGlite, plus the back office serving the production build. */
export async function startUpstreamForTests(accessTokenTtlSeconds?: number, databaseUrl?: string, logLevel: 'info' | 'warn' = 'info'): Promise<Upstream> {
  return startUpstream({
    port: 0,
    databaseUrl,
    host: '127.0.0.1',
    seedDemo: true,
    demoPassword: DEMO_PASSWORD,
    logger: testLogger('upstream', logLevel),
    config: {
      ...(accessTokenTtlSeconds ? { accessTokenTtlSeconds } : {}),
      logMailLinks: false,
      corsOrigins: ['*'],
      scryptCost: TEST_SCRYPT_COST,
    },
  });
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const upstream = options.upstream ?? (await startUpstreamForTests(options.accessTokenTtlSeconds, options.databaseUrl, options.quietLogs ? 'warn' : 'info'));
  const app = await buildApp({
    upstreamUrl: upstream.url,
    cookieSecrets: [COOKIE_SECRET],
    secureCookies: false,
    // One render worker, as `npm start` on a two-core machine: every page of the tests goes through it (ADR 027).
    // A stuck render is given up after a minute here (ADR 029): a first render on a busy machine can take seconds.
    ssr: {
      kind: 'production',
      clientDir: join(root, 'dist', 'client'),
      entryServerPath: join(root, 'dist', 'server', 'entry-server.js'),
      renderWorkers: 1,
      renderTimeoutMs: TEST_RENDER_TIMEOUT_MS,
    },
    version: 'test',
    logger: testLogger('backoffice', options.quietLogs ? 'warn' : 'info'),
    uploadOrigin: upstream.origin,
    upstreamForwardedSecret: upstream.config.forwardedSecret ?? undefined,
    // No load shedding in a test stack (0 turns each check off): load shedding has its own tests with their own
    // limits (tests/integration/security.test.ts). A test's own synchronous work blocks the loop its stack shares
    // (1000 fast-check runs took 24 s on a loaded machine, and the next request got a 503), and the process also
    // holds the API, its PGlite and the test runner, whose memory the back office's limits would count as its own.
    pressure: { maxEventLoopDelayMs: 0, maxRssBytes: 0, maxHeapUsedBytes: 0 },
    ...options.app,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    app,
    upstream,
    async close() {
      await app.close();
      if (!options.upstream) await upstream.close();
    },
  };
}

/** The newest mail to an address, read from the upstream's outbox table. */
export async function latestMail(upstream: Upstream, email: string): Promise<{ subject: string; link: string; kind: string }> {
  const { rows } = await upstream.db.query<{ subject: string; link: string; kind: string }>(
    'select subject, link, kind from outbox where lower(to_email) = lower($1) order by id desc limit 1',
    [email],
  );
  if (!rows[0]) throw new Error(`no mail to ${email}`);
  return rows[0];
}

/** The path of a mailed link, to open it on whichever back office the test runs. */
export function linkPath(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}

/** The API's OpenAPI document, which only an Admin token may read (ADR 018). */
export async function openApiDocument<T>(upstream: Upstream): Promise<T> {
  const login = await fetch(upstream.url + 'account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
  });
  const { data } = (await login.json()) as { data: { token: string } };
  return (await (await fetch(upstream.origin + '/openapi.json', { headers: { authorization: `Bearer ${data.token}` } })).json()) as T;
}
