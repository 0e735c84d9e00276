import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import { openDatabase, type Db } from '../upstream/db.ts';
import { AUDIT_KEY_WARNING, verifyChain } from '../upstream/lib/audit.ts';
import { loadUpstreamEnvOrExit, type UpstreamEnv } from '../upstream/env.ts';

/**
 * `npm run audit:verify`: walks the change history's hash chain (ADR 035) on the database `npm run upstream`
 * opens — DATABASE_URL, else the PGlite directory UPSTREAM_DATA_DIR (default ./data/pglite; stop the API
 * first, PGlite opens a directory from one process at a time) — and prints the verdict. Reads only. The key
 * is AUDIT_KEY, else the one the API generated and kept in the database. Exit code 1 when the chain is broken.
 */
async function main(db: Db, env: UpstreamEnv): Promise<number> {
  const { rows: table } = await db.query<{ name: string | null }>("select to_regclass('audit_log')::text as name");
  if (!table[0]?.name) {
    process.stderr.write('audit:verify: this database has no change history (migration 081 has not run: start the API once).\n');
    return 1;
  }
  let key = env.AUDIT_KEY;
  if (!key) {
    const { rows } = await db.query<{ value: string }>("select value from settings where key = 'audit_key'");
    key = rows[0]?.value;
    process.stderr.write(`audit:verify: ${AUDIT_KEY_WARNING}\n`);
  }
  if (!key) {
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from audit_log');
    if (Number(rows[0]!.n) === 0) {
      process.stdout.write('ok: the change history is empty\n');
      return 0;
    }
    process.stderr.write('audit:verify: entries exist but no key is known: set AUDIT_KEY to the key the API ran with.\n');
    return 1;
  }
  const verdict = await verifyChain(db, key);
  if (verdict.ok) {
    const pruned = verdict.prunedUpTo ? ` (entries up to ${verdict.prunedUpTo} pruned behind a checkpoint that holds)` : '';
    process.stdout.write(`ok: ${verdict.count} entries, the chain holds${pruned}\n`);
    return 0;
  }
  process.stdout.write(
    verdict.reason === 'checkpoint'
      ? `BROKEN: the checkpoint before entry ${verdict.firstBadId} was forged or edited\n`
      : `BROKEN: entry ${verdict.firstBadId} was ${verdict.reason}\n`,
  );
  return 1;
}

const env = loadUpstreamEnvOrExit();
const db = await openDatabase(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { dataDir: env.UPSTREAM_DATA_DIR ?? join(projectRoot(import.meta.url), 'data', 'pglite') });
let code = 1;
try {
  code = await main(db, env);
} finally {
  await db.close();
}
process.exit(code);
