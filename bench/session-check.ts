import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { startChild } from './support/ipc.ts';
import { apiToken, type BenchDb, describeDb } from './support/stack.ts';
import { fmt, median, spread, type Spread } from './support/stats.ts';

/**
 * `npm run bench:session`: what the per-request session check of ADR 017 costs the API — one indexed
 * lookup (session not revoked, user active, session version) on every authenticated request. The same API
 * process answers with the check and with it switched off (over IPC), alternating, on two endpoints: the
 * profile (one small query of its own) and the bicycles list (25 rows). Latency one request at a time
 * (p50 of 300) and throughput (autocannon). PGlite in a temporary directory, and PostgreSQL when
 * BENCH_DATABASE_URL (an admin connection) is set: a database is made for the run and dropped after.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 8;

async function sequentialP50(url: string, token: string, n: number): Promise<number> {
  const dispatcher = new Agent({ connections: 1 });
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await request(url, { headers: { authorization: `Bearer ${token}` }, dispatcher });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    times.push(performance.now() - started);
  }
  await dispatcher.close();
  return median(times.slice(Math.floor(n / 10)));
}

interface Side {
  p50Ms: Spread;
  rps: Spread;
}
interface EndpointResult {
  endpoint: string;
  withCheck: Side;
  withoutCheck: Side;
  addedP50Ms: Spread;
  throughputRatio: Spread;
}

async function measure(db: BenchDb): Promise<EndpointResult[]> {
  const upstream = await startChild(join(import.meta.dirname, 'support', 'upstream-process.ts'), {
    BENCH_DB_URL: db.kind === 'postgres' ? db.url : '',
    BENCH_PGLITE_DIR: db.kind === 'pglite' ? db.dir : '',
  });
  try {
    const api = String(upstream.ready.url);
    const token = await apiToken(api);
    const results: EndpointResult[] = [];
    for (const endpoint of ['account/', 'bicycles/?page=1&page_size=25']) {
      const url = api + endpoint;
      await autocannon({ url, connections: CONNECTIONS, duration: 1, headers: { authorization: `Bearer ${token}` } });
      const p50 = { on: [] as number[], off: [] as number[] };
      const rps = { on: [] as number[], off: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const state of ['on', 'off'] as const) {
          await upstream.ask('sessionCheck', state === 'on');
          const run = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { authorization: `Bearer ${token}` } });
          if (run.non2xx || run.errors) throw new Error(`${url}: ${run.non2xx} non-2xx, ${run.errors} errors`);
          rps[state].push(run.requests.average);
          p50[state].push(await sequentialP50(url, token, 300));
        }
      }
      await upstream.ask('sessionCheck', true);
      results.push({
        endpoint,
        withCheck: { p50Ms: spread(p50.on, 3), rps: spread(rps.on, 0) },
        withoutCheck: { p50Ms: spread(p50.off, 3), rps: spread(rps.off, 0) },
        addedP50Ms: spread(
          p50.on.map((v, i) => v - p50.off[i]!),
          3,
        ),
        throughputRatio: spread(
          rps.on.map((v, i) => v / rps.off[i]!),
          3,
        ),
      });
    }
    return results;
  } finally {
    await upstream.stop();
  }
}

const log = (line: string) => process.stderr.write(`[session-check] ${line}\n`);
const out: string[] = [
  `Session check cost (ADR 017), ${new Date().toISOString()}, ${cpus().length} CPUs, load ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}, ${ROUNDS} rounds`,
  '',
];
const pgliteDir = mkdtempSync(join(tmpdir(), 'bench-session-'));
const targets: BenchDb[] = [{ kind: 'pglite', dir: join(pgliteDir, 'pglite') }];
let admin: pg.Client | null = null;
const pgName = `bench_session_${process.pid}`;
if (process.env.BENCH_DATABASE_URL) {
  admin = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${pgName}`);
  const url = new URL(process.env.BENCH_DATABASE_URL);
  url.pathname = `/${pgName}`;
  targets.push({ kind: 'postgres', url: url.toString() });
}
try {
  out.push('| database | endpoint | p50 with check | p50 without | added p50 | req/s with | req/s without | throughput ratio |', '|---|---|---|---|---|---|---|---|');
  for (const db of targets) {
    log(`measuring on ${describeDb(db)}…`);
    for (const r of await measure(db)) {
      out.push(
        `| ${db.kind} | ${r.endpoint.split('?')[0]} | ${fmt(r.withCheck.p50Ms, ' ms')} | ${fmt(r.withoutCheck.p50Ms, ' ms')} | +${fmt(r.addedP50Ms, ' ms')} | ${fmt(r.withCheck.rps)} | ${fmt(r.withoutCheck.rps)} | ${fmt(r.throughputRatio)} |`,
      );
    }
  }
} finally {
  rmSync(pgliteDir, { recursive: true, force: true });
  if (admin) {
    await admin.query(`drop database if exists ${pgName} with (force)`);
    await admin.end();
  }
}
process.stdout.write(out.join('\n') + '\n');
