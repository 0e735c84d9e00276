import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { recordChange, verifyChain } from '../../upstream/lib/audit.ts';
import { pruneHistory } from '../../upstream/lib/audit-retention.ts';
import { countRows } from '../../upstream/lib/count.ts';
import { migrate } from '../../upstream/migrate.ts';

/**
 * What needs a database of its own, sharing one (a fresh PGlite's migrations take seconds): the change history's
 * retention (ADR 038, an empty history to start from), and the lists' count threshold (ADR 040): exact up to
 * it, beyond it the planner's estimate, said to be one.
 */
let db: Db;
beforeAll(async () => {
  db = await openDatabase();
  await migrate(db);
  await db.exec(`insert into assets (name, asset_type, status) select 'Count asset ' || g, case when g <= 3 then 'van' else 'cargo_bike' end, 1 from generate_series(1, 60) g`);
  await db.exec('analyze assets');
});
afterAll(async () => db?.close());

describe('countRows', () => {
  it('counts exactly up to the threshold, the threshold itself included', async () => {
    expect(await countRows(db, "from assets t where t.asset_type = 'van'", [], 10)).toEqual({ count: 3, estimated: false });
    expect(await countRows(db, 'from assets t where t.asset_type = $1', ['cargo_bike'], 57)).toEqual({ count: 57, estimated: false });
  });

  it('past the threshold answers an estimate, labelled as one, never below what it counted', async () => {
    const over = await countRows(db, 'from assets t where t.asset_type = $1', ['cargo_bike'], 10);
    expect(over.estimated).toBe(true);
    expect(over.count).toBeGreaterThan(10);
    // After ANALYZE the planner knows the table: the estimate is close to the truth (57).
    expect(over.count).toBeGreaterThanOrEqual(40);
    expect(over.count).toBeLessThanOrEqual(80);
  });
});

describe('retention (ADR 038)', () => {
  const key = 'k'.repeat(32);
  const write = (db: Db, name: string) =>
    db.transaction((tx) =>
      recordChange(tx, key, { userId: null, role: null, address: null, requestId: null, entity: 'assets', recordId: 1, action: 'update', changes: { name: [null, name] } }),
    );

  it('prunes the entries older than the retention behind a signed checkpoint; the rest still verifies, and a forged, edited or removed checkpoint shows', async () => {
    {
      for (const name of ['a', 'b', 'c']) await write(db, name);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cutoff = new Date();
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const name of ['d', 'e']) await write(db, name);
      expect(await pruneHistory(db, key, cutoff)).toBe(3);
      expect(await verifyChain(db, key)).toEqual({ ok: true, count: 2, prunedUpTo: 3 });
      // New entries chain on, and a later pruning keeps the count of every entry removed.
      await write(db, 'f');
      expect(await pruneHistory(db, key, new Date(Date.now() + 1000))).toBe(2);
      expect(await verifyChain(db, key)).toEqual({ ok: true, count: 1, prunedUpTo: 5 });
      expect(Number((await db.query<{ removed: number }>('select removed from audit_checkpoints order by id desc limit 1')).rows[0]!.removed)).toBe(5);
      // The newest entry is never pruned: the next one needs its hash.
      expect(await pruneHistory(db, key, new Date(Date.now() + 1000))).toBe(0);

      // Edited: a checkpoint that claims fewer removed entries.
      await db.query('update audit_checkpoints set removed = 1 where up_to_id = 5');
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 6, reason: 'checkpoint' });
      await db.query('update audit_checkpoints set removed = 5 where up_to_id = 5');
      // Forged without the key: a checkpoint hiding the entry after it.
      await db.query("insert into audit_checkpoints (at, up_to_id, up_to_hash, removed, hash) values (now(), 6, 'x', 6, 'forged')");
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 7, reason: 'checkpoint' });
      await db.query('delete from audit_checkpoints where up_to_id = 6');
      // Removed: without its checkpoints the chain starts at an entry that is not the first.
      await db.query('delete from audit_checkpoints');
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 1, reason: 'removed' });
    }
  });
});
