import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The PostgreSQL the benchmarks use: BENCH_DATABASE_URL when set; otherwise a throw-away server started
 * from Debian's binaries (/usr/lib/postgresql/<v>/bin, as .ci/run does) on a data directory kept under
 * bench/.data/pg (git-ignored), so the generated million-row tables survive between runs. Returns null
 * when neither is available (the PGlite parts still run).
 */
export interface BenchPostgres {
  url: string;
  /** Where it came from, for RESULTS.md. */
  description: string;
  stop(): Promise<void>;
}

const DATA_ROOT = join(import.meta.dirname, '..', '.data');
const PORT = Number(process.env.BENCH_PG_PORT ?? 55441);

function binDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : null;
}

/** initdb and postgres refuse to run as root: run them as the `postgres` system user then. */
function asPostgresUser(command: string[], env: Record<string, string> = {}) {
  const isRoot = process.getuid?.() === 0;
  const line = command.map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = isRoot
    ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', line], { encoding: 'utf8', env: { ...process.env, ...env } })
    : spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const { rows } = await client.query('select 1 from pg_database where datname = $1', [name]);
  if (rows.length === 0) await client.query(`create database ${name}`);
  await client.end();
}

export async function startBenchPostgres(): Promise<BenchPostgres | null> {
  if (process.env.BENCH_DATABASE_URL) {
    return { url: process.env.BENCH_DATABASE_URL, description: 'BENCH_DATABASE_URL', stop: async () => undefined };
  }
  const bin = binDir();
  if (!bin) return null;
  const dataDir = join(DATA_ROOT, 'pg');
  const isRoot = process.getuid?.() === 0;
  mkdirSync(DATA_ROOT, { recursive: true });
  if (isRoot) {
    const exists = spawnSync('id', ['postgres']).status === 0;
    if (!exists) execFileSync('useradd', ['--system', '--no-create-home', 'postgres']);
  }
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    if (isRoot)
      chownSync(dataDir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()));
    asPostgresUser([join(bin, 'initdb'), '-D', dataDir, '-A', 'trust', '-U', 'postgres']);
  }
  // A benchmark server: durability off (a crash loses the throw-away data, which is regenerated), memory
  // sized for the million-row tables on a 24 GB machine.
  const options = `-p ${PORT} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=512MB -c work_mem=32MB -c maintenance_work_mem=512MB -c max_connections=100`;
  // Already running (another bench process, or one left behind): use it and leave it running.
  let running = true;
  try {
    asPostgresUser([join(bin, 'pg_ctl'), '-D', dataDir, 'status']);
  } catch {
    running = false;
  }
  if (!running) asPostgresUser([join(bin, 'pg_ctl'), '-D', dataDir, '-o', options, '-l', join(dataDir, 'log'), '-w', 'start']);
  const adminUrl = `postgres://postgres@127.0.0.1:${PORT}/postgres`;
  await ensureDatabase(adminUrl, 'bench');
  const version = bin.split('/').at(-2);
  return {
    url: `postgres://postgres@127.0.0.1:${PORT}/bench`,
    description: `throw-away PostgreSQL ${version} (Debian binaries, fsync off) on bench/.data/pg`,
    stop: async () => {
      if (!running) asPostgresUser([join(bin, 'pg_ctl'), '-D', dataDir, '-m', 'fast', 'stop']);
    },
  };
}
