import type { Db } from '../db.ts';
import { CHAIN_HEAD, checkpointHash, latestCheckpoint, walkChain, type ChainLink, type Checkpoint } from './audit.ts';

/**
 * Retention of the change history (ADR 038, ADR 059): entries older than the retention are removed, and a
 * checkpoint keyed with AUDIT_KEY keeps the place where the kept chain begins — the last removed entry's id
 * and hash. `verifyChain` starts from the newest checkpoint whose own hash holds.
 */

/** Entries removed (and verified first) per transaction: the chain's lock is held for one such run only. */
export const PRUNE_CHUNK = 1000;

/** A pruning that found the entries it was to remove (or the checkpoint before them) not holding: nothing was removed. */
export class PruneRefused extends Error {
  readonly firstBadId: number;
  readonly reason: string;
  constructor(firstBadId: number, reason: string) {
    super(`the change history does not verify at entry ${firstBadId} (${reason}): pruning refused, nothing removed`);
    this.name = 'PruneRefused';
    this.firstBadId = firstBadId;
    this.reason = reason;
  }
}

/**
 * Removes the entries older than `olderThan`, in id order: the run from the newest checkpoint up to the
 * first entry that is not older (so an entry whose `at` was set back cannot pull the entries before it in),
 * never the newest entry. Each run of at most `chunk` entries is verified (hashes, links, no gaps) before it
 * is removed, behind its checkpoint, in one transaction under the chain's lock; a run that does not verify
 * is refused (`PruneRefused`) and stays. Answers how many were removed.
 */
export async function pruneHistory(db: Db, key: string, olderThan: Date, chunk = PRUNE_CHUNK): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await pruneRun(db, key, olderThan, chunk);
    total += removed;
    if (removed < chunk) return total;
  }
}

async function pruneRun(db: Db, key: string, olderThan: Date, chunk: number): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: heads } = await tx.query<{ last_id: number | string; at: Date | string }>(CHAIN_HEAD);
    const head = heads[0]!;
    const previous = await latestCheckpoint(tx, key);
    if (previous && !previous.holds) throw new PruneRefused(previous.up_to_id + 1, 'checkpoint');
    const from: ChainLink = previous ? { id: previous.up_to_id, hash: previous.up_to_hash } : { id: 0, hash: null };
    // The first entry of the run that is not older: read by the primary key over this run only.
    const { rows: recent } = await tx.query<{ id: number | string }>('select id from audit_log where id > $1 and id <= $2 and at >= $3 order by id limit 1', [
      from.id,
      from.id + chunk,
      olderThan.toISOString(),
    ]);
    const upTo = Math.min(recent[0] ? Number(recent[0].id) - 1 : from.id + chunk, Number(head.last_id) - 1);
    if (upTo <= from.id) return 0;
    const walk = await walkChain(tx, key, from, upTo);
    if (!walk.ok) throw new PruneRefused(walk.firstBadId, walk.reason);
    if (walk.last.id !== upTo) throw new PruneRefused(walk.last.id + 1, 'removed');
    const removed = upTo - from.id;
    const cp: Checkpoint = { at: new Date(head.at).toISOString(), up_to_id: upTo, up_to_hash: walk.last.hash!, removed: removed + (previous?.removed ?? 0) };
    // The checkpoint first: entries are removed only behind one (migration 093's trigger, 096's function).
    await tx.query('insert into audit_checkpoints (at, up_to_id, up_to_hash, removed, hash) values ($1, $2, $3, $4, $5)', [
      cp.at,
      cp.up_to_id,
      cp.up_to_hash,
      cp.removed,
      checkpointHash(key, cp),
    ]);
    // Removed by the function that runs as the tables' owner (migration 096): the API's own role cannot delete
    // entries (ADR 067). It removes what lies behind the newest checkpoint, the one just written.
    const { rows: gone } = await tx.query<{ n: number | string }>('select audit_prune_to_checkpoint() as n');
    if (Number(gone[0]!.n) !== removed) throw new PruneRefused(from.id + 1, 'removed');
    return removed;
  });
}
