import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * PostgreSQL's own client programs (pg_dump, pg_restore) for a server database (ADR 057), found as .ci/run finds
 * initdb: PG_BIN when set, then PATH, then the newest of Debian's /usr/lib/postgresql/<major>/bin. pg_dump must
 * be of the server's major version or newer; it says so itself when it is not.
 */
export function findPgTool(name: 'pg_dump' | 'pg_restore', env: NodeJS.ProcessEnv = process.env): string {
  const dirs = [env.PG_BIN, ...(env.PATH ?? '').split(delimiter), '/usr/local/bin'].filter((d): d is string => Boolean(d));
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    dirs.push(...majors.map((v) => join(debian, v, 'bin')));
  }
  for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  throw new Error(`${name} was not found (PG_BIN, PATH, /usr/lib/postgresql/*/bin): install PostgreSQL's client programs of the server's version`);
}

/**
 * A connection URL for a child program: the password goes in PGPASSWORD, not on its command line (which other
 * users of the machine can read in the process list).
 */
export function pgConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

/** Runs a PostgreSQL program; fails with the last lines it wrote to stderr. */
export function runPgTool(program: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (part: Buffer) => (stderr = (stderr + part.toString('utf8')).slice(-4000)));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done() : fail(new Error(`${program.split('/').pop()} failed (exit ${code}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`))));
  });
}
