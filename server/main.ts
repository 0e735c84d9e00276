import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { relaunchWithNodeFlags } from './node-flags.ts';

const dev = process.argv.includes('--dev');
// Production runs with the V8 flags of ADR 049: started without them, the process re-executes itself with them
// here, before the server's modules are loaded (they are imported below, not at the top, for that reason).
if (!dev) relaunchWithNodeFlags(fileURLToPath(import.meta.url));

const { default: pino } = await import('pino');
const { buildApp, LOG_REDACT_PATHS } = await import('./app.ts');
const { loadEnv } = await import('./env.ts');
const { projectRoot } = await import('../shared/project-root.server.ts');

const root = projectRoot(import.meta.url);

function fail(message: string): never {
  process.stderr.write(`\n${message}\n\n`);
  process.exit(1);
}

let env: ReturnType<typeof loadEnv>;
try {
  env = loadEnv();
} catch (error) {
  fail((error as Error).message);
}

const logger = pino({ level: env.LOG_LEVEL, redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } });
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** Local runs keep a generated secret in ./data so restarts keep people signed in. */
function cookieSecrets(): string[] {
  if (env.COOKIE_SECRETS) return env.COOKIE_SECRETS;
  if (env.NODE_ENV === 'production' && env.UPSTREAM_URL) fail('COOKIE_SECRETS is required when running against a production API.');
  const file = join(root, 'data', 'cookie-secret');
  if (existsSync(file)) return [readFileSync(file, 'utf8').trim()];
  mkdirSync(join(root, 'data'), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return [secret];
}

const port = env.PORT;
const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`;

// One operation range for both: the in-process API enforces it, the back office draws it.
const range = { centre: { lat: env.OPERATION_CENTRE_LAT, lng: env.OPERATION_CENTRE_LNG }, radiusMetres: env.OPERATION_RADIUS_METRES };

let upstream: Awaited<ReturnType<typeof import('../upstream/start.ts').startUpstream>> | null = null;
let upstreamUrl = env.UPSTREAM_URL;
if (!upstreamUrl) {
  // The reference API (PGlite or pg, its routes and migrations) is loaded only when it runs here (ADR 049).
  const { startUpstream } = await import('../upstream/start.ts');
  const { inProcessUpstreamOptions } = await import('./in-process-upstream.ts');
  upstream = await startUpstream(inProcessUpstreamOptions(env, { root, publicUrl, logger: logger.child({ service: 'upstream' }) }));
  upstreamUrl = upstream.url;
}

/** One render thread per core the main thread leaves (ADR 027), at least one, at most four. */
function defaultRenderWorkers(): number {
  return Math.min(4, Math.max(1, availableParallelism() - 1));
}

const app = await buildApp({
  upstreamUrl: upstreamUrl!,
  cookieSecrets: cookieSecrets(),
  secureCookies: publicUrl.startsWith('https:'),
  ssr: dev
    ? { kind: 'development', root }
    : {
        kind: 'production',
        clientDir: join(root, 'dist', 'client'),
        entryServerPath: join(root, 'dist', 'server', 'entry-server.js'),
        renderWorkers: env.SSR_WORKERS ?? defaultRenderWorkers(),
        renderTimeoutMs: env.SSR_RENDER_TIMEOUT_MS,
        workerHeapMb: env.SSR_WORKER_HEAP_MB,
        workerSemiSpaceMb: env.SSR_WORKER_SEMI_SPACE_MB,
      },
  version,
  logger: logger.child({ service: 'backoffice' }),
  googleClientId: env.GOOGLE_CLIENT_ID,
  uploadOrigin: new URL(upstream?.config.publicOrigin ?? upstreamUrl!).origin,
  upstreamForwardedSecret: upstream?.config.forwardedSecret ?? env.UPSTREAM_FORWARDED_SECRET,
  // The in-process API listens on loopback only; browsers get its files from here (ADR 029).
  ...(upstream ? { inProcessFiles: (req, res) => upstream!.app.routing(req, res) } : {}),
  upstreamTimeouts: { connectMs: env.UPSTREAM_CONNECT_TIMEOUT_MS, headersMs: env.UPSTREAM_HEADERS_TIMEOUT_MS, bodyMs: env.UPSTREAM_BODY_TIMEOUT_MS },
  trustProxy: env.TRUST_PROXY,
  pressure: { maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS },
  sessionMaxAgeSeconds: env.SESSION_MAX_AGE_DAYS * 24 * 3600,
  metricsToken: env.METRICS_TOKEN,
  // Open only in development; elsewhere /metrics needs METRICS_TOKEN, and without one it does not exist.
  metricsOpen: env.NODE_ENV === 'development',
  map: { range, tileUrl: env.MAP_TILE_URL === 'none' ? null : env.MAP_TILE_URL, tileAttribution: env.MAP_TILE_ATTRIBUTION },
  geocoderUrl: env.GEOCODER_URL,
  publicUrl,
});

await app.listen({ port, host: env.HOST });

const lines = [
  '',
  `  Back office ready: ${publicUrl}${dev ? ' (development, hot reload)' : ''}`,
  upstream ? `  Reference upstream API: ${upstream.url} (${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite in ./data/pglite'})` : `  Upstream API: ${upstreamUrl}`,
];
if (upstream?.demoAccounts) {
  lines.push('', '  Demo logins (password: ' + (upstream.demoPassword ?? '$DEMO_PASSWORD') + '):');
  for (const account of upstream.demoAccounts) lines.push(`    ${account.email.padEnd(22)} ${account.description}`);
}
process.stdout.write(lines.join('\n') + '\n\n');

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    // Not ready first, still serving: a load balancer checking /readyz stops sending new requests (ADR 046).
    app.markNotReady();
    const delayMs = env.SHUTDOWN_DELAY_SECONDS * 1000;
    logger.info({ signal, delayMs }, 'shutting down: not ready, then draining requests');
    setTimeout(() => {
      const timer = setTimeout(() => process.exit(1), 15_000);
      timer.unref();
      void app
        .close()
        .then(() => upstream?.close())
        .then(() => process.exit(0));
    }, delayMs);
  });
}
