import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Db } from '../db.ts';
import { chainHead, signHead, headHolds, type SignedHead } from './audit.ts';

/**
 * The change history's head kept outside the database (ADR 059): the newest entry's id and hash, signed with
 * AUDIT_KEY, written to a file (AUDIT_HEAD_FILE) and to the log every few seconds when it moved. Whoever can
 * write the database cannot take it back: `npm run audit:verify` reads the file and names entries cut from
 * the tail, even when the head row in the database was set back with them.
 */

/**
 * Where the head is kept unless AUDIT_HEAD_FILE says otherwise: beside a PGlite directory (its name
 * `-audit-head.json`, so two data directories never share one), else `data/audit-head.json` of the project.
 */
export function defaultAuditHeadFile(opts: { databaseUrl?: string; dataDir?: string; root: string }): string {
  if (!opts.databaseUrl && opts.dataDir) return `${opts.dataDir.replace(/[/\\]+$/, '')}-audit-head.json`;
  return join(opts.root, 'data', 'audit-head.json');
}

/** The head in `file`; null when there is none yet. A file that is not a head throws (the caller says so). */
export function readHeadFile(file: string): SignedHead | null {
  if (!existsSync(file)) return null;
  const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<SignedHead>;
  if (!Number.isSafeInteger(value.id) || typeof value.at !== 'string' || typeof value.sig !== 'string' || !(value.hash === null || typeof value.hash === 'string'))
    throw new Error(`${file} is not a change history head`);
  return value as SignedHead;
}

/** What a witness did: wrote a new head, found nothing new, or refused to write a head behind the one kept. */
export type Witnessed = { written: SignedHead } | { unchanged: true } | { behind: { kept: SignedHead; database: { id: number; hash: string | null } } };

/**
 * Writes the database's head to `file` (atomically: a temporary file renamed) when it moved since `last`.
 * A kept head that holds and lies beyond the database's (or names another entry at the same id) is never
 * overwritten: entries were cut from the tail, or this is another database; the caller logs it loudly.
 */
export async function witnessHead(db: Db, key: string, file: string, last: SignedHead | null): Promise<Witnessed> {
  let head = await chainHead(db);
  if (last && last.id === head.id && last.hash === head.hash) return { unchanged: true };
  let kept: SignedHead | null = null;
  try {
    kept = readHeadFile(file);
  } catch {
    kept = null; // not a head (or torn by hand): replaced below
  }
  const isBehind = () => kept !== null && headHolds(key, kept) && (kept.id > head.id || (kept.id === head.id && kept.hash !== head.hash));
  // Another instance on this database may have written a newer head between our read and the file's.
  if (isBehind()) head = await chainHead(db);
  if (isBehind()) return { behind: { kept: kept!, database: head } };
  const signed = signHead(key, { ...head, at: new Date().toISOString() });
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(signed)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return { written: signed };
}

/** The database's head, signed, when it moved since `last` (the log alone keeps it: no file configured). */
export async function signedHeadIfMoved(db: Db, key: string, last: SignedHead | null): Promise<Witnessed> {
  const head = await chainHead(db);
  if (last && last.id === head.id && last.hash === head.hash) return { unchanged: true };
  return { written: signHead(key, { ...head, at: new Date().toISOString() }) };
}
