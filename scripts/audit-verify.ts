import { join } from 'node:path';
import { projectRoot } from '../shared/project-root.server.ts';
import { openDatabase, type Db } from '../upstream/db.ts';
import { AUDIT_KEY_WARNING, verifyChain, type SignedHead } from '../upstream/lib/audit.ts';
import { defaultAuditHeadFile, readHeadFile } from '../upstream/lib/audit-head.ts';
import { loadUpstreamEnvOrExit, type UpstreamEnv } from '../upstream/env.ts';

/**
 * `npm run audit:verify`: walks the change history's hash chain (ADR 035) on the database `npm run upstream`
 * opens — DATABASE_URL, else the PGlite directory UPSTREAM_DATA_DIR (default ./data/pglite; stop the API
 * first, PGlite opens a directory from one process at a time) — and prints the verdict. Reads only. The key
 * is AUDIT_KEY, else the one the API generated and kept in the database. The chain's signed head kept outside
 * the database (AUDIT_HEAD_FILE, else beside the data: ADR 059) must hold and be in the chain, so entries cut
 * from the tail show. Exit code 1 when the chain is broken.
 */
async function main(db: Db, env: UpstreamEnv, headFile: string): Promise<number> {
  const { rows: table } = await db.query<{ name: string | null; head: string | null }>("select to_regclass('audit_log')::text as name, to_regclass('audit_head')::text as head");
  if (!table[0]?.name) {
    process.stderr.write('audit:verify: this database has no change history (migration 081 has not run: start the API once).\n');
    return 1;
  }
  if (!table[0].head) {
    process.stderr.write("audit:verify: this database predates the change history's head (migration 093 has not run: start the API once).\n");
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
  let head: SignedHead | null;
  try {
    head = readHeadFile(headFile);
  } catch {
    process.stdout.write(`BROKEN: ${headFile} is not a change history head (edited or replaced)\n`);
    return 1;
  }
  if (!head) process.stderr.write(`audit:verify: no head kept outside the database (${headFile}): entries cut from the tail show only by the head in the database.\n`);
  const verdict = await verifyChain(db, key, head ? { head } : {});
  if (verdict.ok) {
    const pruned = verdict.prunedUpTo ? ` (entries up to ${verdict.prunedUpTo} pruned behind a checkpoint that holds)` : '';
    const outside = head ? ` up to the head kept outside the database (entry ${head.id}, ${head.at})` : '';
    process.stdout.write(`ok: ${verdict.count} entries, the chain holds${outside}${pruned}\n`);
    return 0;
  }
  process.stdout.write(`BROKEN: ${brokenText(verdict.firstBadId, verdict.reason)}\n`);
  return 1;
}

function brokenText(id: number, reason: string): string {
  if (reason === 'checkpoint') return `the checkpoint before entry ${id} was forged or edited`;
  if (reason === 'head') return `the chain's head does not hold at entry ${id} (a signed head forged, or the head row set back around its triggers)`;
  return `entry ${id} was ${reason}`;
}

const env = loadUpstreamEnvOrExit();
const root = projectRoot(import.meta.url);
const dataDir = env.UPSTREAM_DATA_DIR ?? join(root, 'data', 'pglite');
const headFile = env.AUDIT_HEAD_FILE ?? defaultAuditHeadFile({ databaseUrl: env.DATABASE_URL, dataDir, root });
const db = await openDatabase(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { dataDir });
let code = 1;
try {
  code = await main(db, env, headFile);
} finally {
  await db.close();
}
process.exit(code);
