import type { Db } from '../db.ts';
import { CHAIN_LOCK, checkpointHash, latestCheckpoint, type Checkpoint } from './audit.ts';

/**
 * Retention of the change history (ADR 038): entries older than the retention are removed, and a checkpoint
 * keyed with AUDIT_KEY keeps the place where the kept chain begins — the last removed entry's id and hash.
 * `verifyChain` starts from the newest checkpoint whose own hash holds.
 *
 * Removes the entries older than `olderThan` (all of them up to the newest such entry, so the kept ones
 * stay a chain without gaps) and writes their checkpoint, in one transaction under the chain's lock. Answers
 * how many were removed. The newest entry is always kept, so a new entry still chains on a stored hash.
 */
export async function pruneHistory(db: Db, key: string, olderThan: Date): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query(CHAIN_LOCK);
    const { rows } = await tx.query<{ id: number | string; hash: string; at: Date | string }>(
      `select id, hash, date_trunc('milliseconds', now()) as at from audit_log
        where at < $1 and id < (select max(id) from audit_log)
        order by id desc limit 1`,
      [olderThan.toISOString()],
    );
    const last = rows[0];
    if (!last) return 0;
    const { rows: gone } = await tx.query<{ n: number | string }>('with d as (delete from audit_log where id <= $1 returning 1) select count(*) as n from d', [last.id]);
    const previous = await latestCheckpoint(tx, key);
    const cp: Checkpoint = {
      at: new Date(last.at).toISOString(),
      up_to_id: Number(last.id),
      up_to_hash: last.hash,
      removed: Number(gone[0]!.n) + (previous?.removed ?? 0),
    };
    await tx.query('insert into audit_checkpoints (at, up_to_id, up_to_hash, removed, hash) values ($1, $2, $3, $4, $5)', [
      cp.at,
      cp.up_to_id,
      cp.up_to_hash,
      cp.removed,
      checkpointHash(key, cp),
    ]);
    return Number(gone[0]!.n);
  });
}
