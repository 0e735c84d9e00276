import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Memory of `npm start` under load (ADR 029): the API on PGlite, the back office and its render workers
 * in one process (bench/support/memory-process.ts), 50 connections of bench/load-client.ts's mix (closed
 * loop, autocannon) for MEMORY_DURATION seconds (120), loopback only. Samples RSS and where it goes every
 * 10 s: the main isolate's heap, each render worker's heap, PGlite's WebAssembly memory, anonymous and
 * file-backed resident memory. SSR_WORKERS, SSR_WORKER_HEAP_MB and MALLOC_ARENA_MAX pass to the server.
 * `node bench/memory.ts` (production build first: `npm run build`).
 */
const { ensureBuild } = await import('../scripts/ensure-build.ts');
ensureBuild();
const { startChild } = await import('./support/ipc.ts');
const { missingNodeEnv, NODE_FLAGS } = await import('../server/node-flags.ts');

const duration = Number(process.env.MEMORY_DURATION ?? 120);
const connections = Number(process.env.CONNECTIONS ?? 50);
const dir = join(import.meta.dirname, '.data', `memory-pglite-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const log = (line: string) => process.stderr.write(`[memory] ${line}\n`);

const server = await startChild(
  join(import.meta.dirname, 'support', 'memory-process.ts'),
  { ...missingNodeEnv(), BENCH_PGLITE_DIR: dir },
  { execArgv: ['--expose-gc', ...NODE_FLAGS] },
);
const target = String(server.ready.url);
type Sample = Record<string, number | number[]>;
const samples: Array<{ at: number } & Sample> = [];
const sample = async (at: number) => {
  const s = await server.ask<Sample>('sample');
  samples.push({ at, ...s });
  log(`${at}s ${JSON.stringify(s)}`);
};
try {
  await sample(0);
  const login = await fetch(`${target}/trpc/auth.login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-backoffice-csrf': '1' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'bench-password' }),
  });
  if (!login.ok) throw new Error(`login failed: ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const started = Date.now();
  const timer = setInterval(() => void sample(Math.round((Date.now() - started) / 1000)), 10_000);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, 'load-client.ts')], {
      env: { ...process.env, TARGET: target, COOKIE: cookie, CONNECTIONS: String(connections), DURATION: String(duration), RATE: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`load client exited ${code}`))));
  });
  clearInterval(timer);
  await sample(Math.round((Date.now() - started) / 1000));
  // Idle: what stays once the load is gone, then after a full GC of the main isolate.
  await new Promise((r) => setTimeout(r, 10_000));
  await sample(-1);
  await server.ask('gc');
  await sample(-2);
  const load = JSON.parse(output) as { requests: number; rps: number; non2xx: number; errors: number };
  process.stdout.write(JSON.stringify({ connections, duration, load, samples }, null, 2) + '\n');
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
