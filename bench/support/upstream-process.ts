import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { startUpstream } from '../../upstream/start.ts';
import { hashPassword } from '../../upstream/lib/password.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { exportSelectOf } from '../../upstream/resources/entity-reads.ts';
import { serveCommands } from './ipc.ts';
import { capturingQueries } from './query-capture.ts';

/**
 * The reference API in a process of its own for the benchmarks: PostgreSQL when BENCH_DB_URL is set,
 * else PGlite in BENCH_PGLITE_DIR. It counts what reaches it per route, so a benchmark can prove (for
 * example) that a refresh storm sends exactly one refresh upstream.
 */
const counts: Record<string, number> = {};
// What a request runs, for the data-scale bench's plans: both drivers' query methods, before the API opens its database.
const capture = capturingQueries([pg.Client.prototype, PGlite.prototype]);
const upstream = await startUpstream({
  port: 0,
  host: '127.0.0.1',
  databaseUrl: process.env.BENCH_DB_URL || undefined,
  dataDir: process.env.BENCH_DB_URL ? undefined : process.env.BENCH_PGLITE_DIR,
  seedDemo: true,
  demoPassword: 'bench-password',
  logger: false,
  config: {
    logMailLinks: false,
    corsOrigins: ['*'],
    ...(process.env.BENCH_ACCESS_TTL ? { accessTokenTtlSeconds: Number(process.env.BENCH_ACCESS_TTL) } : {}),
    // Sign-ins are part of set-up, not of what is measured; keep them cheap on a shared 2-core machine.
    scryptCost: 1024,
    ...(process.env.BENCH_FORWARDED_SECRET ? { forwardedSecret: process.env.BENCH_FORWARDED_SECRET } : {}),
  },
});
subscribe('http.server.request.start', (message) => {
  const req = (message as { request: IncomingMessage }).request;
  const key = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
  counts[key] = (counts[key] ?? 0) + 1;
});

// bench/session-check.ts compares the API with and without the per-request session check (ADR 017).
const checkSession = upstream.app.checkSession;
serveCommands({
  sessionCheck: (on) => {
    upstream.app.checkSession = on ? checkSession : async () => 'ok';
    return Boolean(on);
  },
  counts: () => ({ ...counts }),
  /** This process's CPU time so far, in ms (user + system). */
  cpuMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
  capture: (on) => capture.capture(Boolean(on)),
  explainCaptured: () => capture.explain(upstream.db),
  /** `n` accounts `bench-live-<k>@example.com` (password `bench-password`, the `role` role) for the live bench's one stream per user (ADR 058). */
  liveUsers: async (args) => {
    const { n, role } = args as { n: number; role: string };
    const hash = await hashPassword('bench-password', 1024);
    await upstream.db.query(
      `insert into users (email, password_hash, first_name, last_name, user_type, country, language, account_status, invitation_status, member_since, email_confirmed_at, city)
       select 'bench-live-' || g || '@example.com', $2, 'Live', 'Bench ' || g, 1, 'se', 'en', 'active', 'accepted', now(), now(), 'Stockholm'
       from generate_series(1, $1::int) g on conflict do nothing`,
      [n, hash],
    );
    await upstream.db.query(
      `insert into user_roles (user_id, role_id) select u.id, r.id from users u, roles r
       where u.email like 'bench-live-%@example.com' and r.name = $1 on conflict do nothing`,
      [role],
    );
    return Array.from({ length: n }, (_, k) => `bench-live-${k + 1}@example.com`);
  },
  // The database's own speed at the export's rows (ADR 061): COPY (the export's select) TO STDOUT (FORMAT csv), read and dropped.
  copyBaseline: async (entity) => {
    const select = `${exportSelectOf(entityByName(String(entity)) as EntityDef, 'en')} order by t.id`;
    const started = performance.now();
    let rows = 0;
    let bytes = 0;
    for await (const chunk of upstream.db.copyOut(select, 'csv')) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows++;
    }
    const seconds = (performance.now() - started) / 1000;
    return { rows, seconds, rowsPerSecond: Math.round(rows / seconds), mb: Number((bytes / 1048576).toFixed(1)) };
  },
  resetCounts: () => {
    for (const key of Object.keys(counts)) delete counts[key];
    return true;
  },
});
process.on('SIGTERM', () => void upstream.close().finally(() => process.exit(0)));
process.send!({ ready: { url: upstream.url, origin: upstream.origin, kind: upstream.db.kind } });
