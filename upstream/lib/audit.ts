import type { FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FieldDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { ACCOUNT_ENTITY, isAuthorless, type AccountEvent, type LiveNotice } from '../../shared/live.ts';
import type { StoredAuditEntry } from '../../shared/schemas/audit.ts';
import type {} from './auth.ts';
import { entityIfHanded } from './entity-catalogue.ts';
import { personalKeys, sealChanges } from './person-keys.ts';

/**
 * The change history (ADR 035): one `audit_log` row per change, written in the change's own transaction,
 * each row's `hash` an HMAC over the previous row's hash and its own content, keyed with AUDIT_KEY. Without
 * the key nobody can write a row the verifier accepts, so an edited, removed or reordered row shows.
 */

/** `{field: [before, after]}` of the fields a change changed. */
export type Changes = Record<string, [unknown, unknown]>;

export interface AuditEntry {
  userId: number | null;
  /** The roles of the token the change was made with, comma-separated. */
  role: string | null;
  address: string | null;
  requestId: string | null;
  entity: string;
  recordId: number | null;
  /** 'create', 'update', 'delete', 'transition' or a declared action's key. */
  action: string;
  changes: Changes;
  /**
   * The record's owners (its definition's `access.ownerField`, before and after when it changed), or null
   * for an entity without one: where a live update may go (ADR 037). Stored beside the entry, not hashed.
   */
  owners?: readonly number[] | null;
}

/** The channel every committed entry is announced on (ADR 037): `pg_notify` in the entry's transaction. */
export const AUDIT_CHANNEL = 'audit_log';

/** What is announced of an entry (ADR 037): no changes, so it stays far below NOTIFY's 8000 bytes. */
export type AuditNotice = LiveNotice;

/** Said at start (and by `npm run audit:verify`) when the key was generated and lives in the database. */
export const AUDIT_KEY_WARNING =
  'AUDIT_KEY is not set: the change history is keyed with a key kept in the database beside it, so it shows edits made without reading that key only. Set AUDIT_KEY (at least 32 characters) outside the database.';

export type ChainVerdict = { ok: true; count: number; prunedUpTo?: number } | { ok: false; firstBadId: number; reason: 'edited' | 'removed' | 'reordered' | 'checkpoint' | 'head' };

// One chain, so one lock: writers of any table take turns at its end, each reading the hash the previous
// one wrote. The lock is the head row's (ADR 059), taken and read in one statement; held until the change's
// commit or rollback, never past it.
export const CHAIN_HEAD = "select last_id, last_hash, date_trunc('milliseconds', now()) as at from audit_head for update";

/** JSON with object keys sorted at every level: the same value always hashes the same, whatever jsonb's key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object')
    return `{${Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export type StoredEntry = StoredAuditEntry;

/** The row's hash: HMAC-SHA256(key, prev_hash || canonical JSON of everything else), hex. The id is in it, so renumbering shows too. */
export function hashOf(key: string, prevHash: string | null, entry: StoredEntry): string {
  return createHmac('sha256', key)
    .update((prevHash ?? '') + canonicalJson(entry))
    .digest('hex');
}

/**
 * The fields whose value differs between `before` and `after` (null for a record that does not exist:
 * a create has no before, a delete no after). Secret fields are never stored, not even that they changed;
 * lookups are another record's values.
 */
export function diff(before: Record<string, unknown> | null, after: Record<string, unknown> | null, fields: Record<string, FieldDef>): Changes {
  const changes: Changes = {};
  for (const [key, field] of Object.entries(fields)) {
    if (field.secret || field.lookup) continue;
    const was = before?.[key] ?? null;
    const is = after?.[key] ?? null;
    if (canonicalJson(was) !== canonicalJson(is)) changes[key] = [was, is];
  }
  return changes;
}

/**
 * Appends one entry at the chain's end, inside the caller's transaction (`tx`): the entry commits or rolls
 * back with the change it records. Answers the entry's id.
 */
export async function recordChange(tx: Db, key: string, entry: AuditEntry): Promise<number> {
  // The chain's lock and its head in one statement (ADR 059). Milliseconds: what a JavaScript Date holds, so
  // the time hashed is the time read back.
  const { rows } = await tx.query<{ last_id: number | string; last_hash: string | null; at: Date | string }>(CHAIN_HEAD);
  const head = rows[0]!;
  const prevHash = head.last_hash ?? null;
  // A person's values are stored sealed under their own key (ADR 076): hashed as stored, openable until erasure.
  const def = entityIfHanded(entry.entity);
  const changes = await sealChanges(tx, key, def, await subjectOf(tx, def, entry), entry.changes);
  const stored: StoredEntry = {
    // The head's id + 1, never max(id)+1 (ADR 059): a rolled-back change spends no number (the head rolls back
    // with it), so a gap means a removed row, and ids cut from the tail are not taken again.
    id: Number(head.last_id) + 1,
    at: new Date(head.at).toISOString(),
    user_id: entry.userId,
    role: entry.role,
    address: entry.address,
    request_id: entry.requestId,
    entity: entry.entity,
    record_id: entry.recordId,
    action: entry.action,
    changes,
  };
  const owners = entry.owners ? [...entry.owners] : null;
  // Delivered by PostgreSQL at the commit, to every listener on this database, and not at all on a rollback.
  const notice: AuditNotice = { id: stored.id, entity: stored.entity, record_id: stored.record_id, action: stored.action, user_id: stored.user_id, owner: owners };
  // The entry and its notice in one round trip; the insert's trigger moves the head (migration 093).
  await tx.query(
    `with entry as (
       insert into audit_log (id, at, user_id, role, address, request_id, entity, record_id, action, changes, prev_hash, hash, owners)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13::bigint[]) returning id)
     select pg_notify($14, $15) from entry`,
    [
      stored.id,
      stored.at,
      stored.user_id,
      stored.role,
      stored.address,
      stored.request_id,
      stored.entity,
      stored.record_id,
      stored.action,
      JSON.stringify(stored.changes),
      prevHash,
      hashOf(key, prevHash, stored),
      owners,
      AUDIT_CHANNEL,
      JSON.stringify(notice),
    ],
  );
  return stored.id;
}

/**
 * The person an entry's personal values belong to (ADR 076): the record of an entity whose records are people
 * (`person`), else — an invitation, made on the collection — the account holding the e-mail the entry names.
 */
async function subjectOf(tx: Db, def: ReturnType<typeof entityIfHanded>, entry: AuditEntry): Promise<number | null> {
  if (!def?.person) return null;
  if (entry.recordId !== null) return entry.recordId;
  if (personalKeys(def).size === 0) return null;
  const email = entry.changes.email?.[1];
  if (typeof email !== 'string') return null;
  const { rows } = await tx.query<{ id: number | string }>(`select id from ${def.table} where lower(email) = lower($1)`, [email]);
  return rows[0] ? Number(rows[0].id) : null;
}

/**
 * The entry of a change a request made to one record, in the change's transaction: who (the token's user and
 * roles), from where (`req.ip`: the forwarded client address only with the back office's secret, ADR 028),
 * the request, and the declared fields that changed. A change of no field records nothing.
 */
export async function recordRequestChange(
  tx: Db,
  key: string,
  req: FastifyRequest,
  change: {
    entity: string;
    action: string;
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
    fields: Record<string, FieldDef>;
    /** The definition's `access.ownerField`, if any: the record's owners go with the entry (ADR 037). */
    ownerField?: string;
  },
): Promise<void> {
  const changes = diff(change.before, change.after, change.fields);
  if (Object.keys(changes).length === 0) return;
  await recordRequestEvent(tx, key, req, {
    entity: change.entity,
    recordId: Number((change.after ?? change.before)!.id),
    action: change.action,
    changes,
    owners: change.ownerField ? ownersOf(change.before, change.after, change.ownerField) : null,
  });
}

/**
 * An entry made by a request, in the caller's transaction: who is the token's user (else `userId`, the account
 * an anonymous request was about) with the token's roles, from where `req.ip` (ADR 028), the request's id.
 */
export function recordRequestEvent(
  tx: Db,
  key: string,
  req: FastifyRequest,
  what: Pick<AuditEntry, 'entity' | 'recordId' | 'action' | 'changes' | 'owners'> & { userId?: number | null },
): Promise<number> {
  return recordChange(tx, key, {
    userId: req.user?.id ?? what.userId ?? null,
    role: req.user?.roles.join(',') ?? null,
    address: req.ip ?? null,
    requestId: String(req.id),
    entity: what.entity,
    recordId: what.recordId,
    action: what.action,
    changes: what.changes,
    owners: what.owners ?? null,
  });
}

/** The distinct owner ids a change concerns: the owner before and after (a record handed to someone else reaches both). */
export function ownersOf(before: Record<string, unknown> | null, after: Record<string, unknown> | null, ownerField: string): number[] {
  const ids = [before?.[ownerField], after?.[ownerField]].filter((v) => v !== null && v !== undefined).map(Number);
  return [...new Set(ids)].filter((id) => Number.isSafeInteger(id));
}

/**
 * An account's own event — sign-in, failed sign-in, sign-out, a password reset, an accepted invitation — as an
 * entry of the user's history (entity `users`, the account's id; none for a sign-in tried with an address no
 * account has), in the transaction of the change it goes with. Who is the signed-in caller, else the account.
 */
export function recordAccountEvent(tx: Db, key: string, req: FastifyRequest, userId: number | null, action: AccountEvent, changes: Changes = {}): Promise<number> {
  // A failed sign-in or a reset request is the account's, never by its owner: anyone can type the address (ADR 065).
  if (isAuthorless({ entity: ACCOUNT_ENTITY, action }))
    return recordChange(tx, key, {
      userId: null,
      role: null,
      address: req.ip ?? null,
      requestId: String(req.id),
      entity: ACCOUNT_ENTITY,
      recordId: userId,
      action,
      changes,
      owners: null,
    });
  return recordRequestEvent(tx, key, req, { userId, entity: ACCOUNT_ENTITY, recordId: userId, action, changes });
}

/** A pruning's checkpoint (ADR 038): the last entry removed, its hash, and how many were removed in all. */
export interface Checkpoint {
  at: string;
  up_to_id: number;
  up_to_hash: string;
  removed: number;
}

/** The checkpoint's hash: HMAC-SHA256(key, its content), hex. */
export function checkpointHash(key: string, cp: Checkpoint): string {
  return createHmac('sha256', key).update(`checkpoint:${cp.at}:${cp.up_to_id}:${cp.up_to_hash}:${cp.removed}`).digest('hex');
}

/**
 * The newest checkpoint, with whether its hash holds under `key`; null when the history was never pruned.
 * A checkpoint that does not hold is reported by the verifier rather than trusted.
 */
export async function latestCheckpoint(db: Db, key: string): Promise<(Checkpoint & { holds: boolean }) | null> {
  const { rows } = await db.query<{ at: Date | string; up_to_id: number | string; up_to_hash: string; removed: number | string; hash: string }>(
    'select at, up_to_id, up_to_hash, removed, hash from audit_checkpoints order by up_to_id desc limit 1',
  );
  const row = rows[0];
  if (!row) return null;
  const cp: Checkpoint = { at: new Date(row.at).toISOString(), up_to_id: Number(row.up_to_id), up_to_hash: row.up_to_hash, removed: Number(row.removed) };
  return { ...cp, holds: checkpointHash(key, cp) === row.hash };
}

/** An `audit_log` row as the chain hashed it: ids and times as JavaScript reads them, `changes` parsed. */
export function storedEntryOf(row: Record<string, unknown>): StoredEntry {
  return {
    id: Number(row.id),
    at: new Date(row.at as Date | string).toISOString(),
    user_id: row.user_id === null ? null : Number(row.user_id),
    role: row.role as string | null,
    address: row.address as string | null,
    request_id: row.request_id as string | null,
    entity: row.entity as string,
    record_id: row.record_id === null ? null : Number(row.record_id),
    action: row.action as string,
    // pg parses jsonb; a driver handing back text is read the same way.
    changes: (typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes) as Changes,
  };
}

/** One place in the chain: an entry's id and hash (id 0 and no hash: before the first entry). */
export interface ChainLink {
  id: number;
  hash: string | null;
}

/**
 * The chain's head signed with AUDIT_KEY (ADR 059), as written outside the database (a file, the log): a
 * verifier given it finds entries cut from the tail, even when the head row in the database was set back too.
 */
export interface SignedHead extends ChainLink {
  at: string;
  sig: string;
}

const headText = (h: ChainLink & { at: string }) => `head:${h.at}:${h.id}:${h.hash ?? ''}`;

export function signHead(key: string, head: ChainLink & { at: string }): SignedHead {
  return { id: head.id, hash: head.hash, at: head.at, sig: createHmac('sha256', key).update(headText(head)).digest('hex') };
}

/** Whether a signed head's signature holds under `key`. */
export function headHolds(key: string, head: SignedHead): boolean {
  const expected = Buffer.from(signHead(key, head).sig);
  const given = Buffer.from(String(head.sig));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The head row of the database (migration 093): the newest entry ever written, whatever is left in the table. */
export async function chainHead(db: Db): Promise<ChainLink> {
  const { rows } = await db.query<{ last_id: number | string; last_hash: string | null }>('select last_id, last_hash from audit_head');
  return { id: Number(rows[0]?.last_id ?? 0), hash: rows[0]?.last_hash ?? null };
}

export type ChainBreak = { ok: false; firstBadId: number; reason: 'edited' | 'removed' | 'reordered' };
export type ChainWalk = { ok: true; last: ChainLink; count: number; witnessed: boolean } | ChainBreak;

/**
 * Walks the entries after `from` up to `upTo` in id order, a page at a time (constant memory), and names the
 * first that does not hold: an id missing from the run is `removed`; an entry whose `prev_hash` is not the
 * hash of the entry before it is `reordered` (moved, or something before it removed and renumbered); an
 * entry whose hash is not that of its content is `edited`. `witness`, when the walk reaches its id, must be
 * that entry (`witnessed`); otherwise the entry there is not the one the witness saw (`removed`).
 */
export async function walkChain(db: Db, key: string, from: ChainLink, upTo = Number.MAX_SAFE_INTEGER, witness?: ChainLink): Promise<ChainWalk> {
  const batch = 1000;
  let last = from;
  let count = 0;
  let witnessed = false;
  for (;;) {
    const { rows } = await db.query<Record<string, unknown>>(
      'select id, at, user_id, role, address, request_id, entity, record_id, action, changes, prev_hash, hash from audit_log where id > $1 and id <= $2 order by id limit $3',
      [last.id, upTo, batch],
    );
    for (const row of rows) {
      const id = Number(row.id);
      if (id !== last.id + 1) return { ok: false, firstBadId: last.id + 1, reason: 'removed' };
      const prevHash = (row.prev_hash as string | null) ?? null;
      if (prevHash !== last.hash) return { ok: false, firstBadId: id, reason: 'reordered' };
      if (hashOf(key, prevHash, storedEntryOf(row)) !== row.hash) return { ok: false, firstBadId: id, reason: 'edited' };
      if (witness && id === witness.id) {
        if (row.hash !== witness.hash) return { ok: false, firstBadId: id, reason: 'removed' };
        witnessed = true;
      }
      last = { id, hash: row.hash as string };
      count++;
    }
    if (rows.length < batch) return { ok: true, last, count, witnessed };
  }
}

/**
 * Verifies the whole chain: from the newest checkpoint (ADR 038; one whose own hash does not hold is named,
 * never trusted) to the newest entry, which must be the head row's (ADR 059: entries cut from the tail leave
 * the head beyond them). `head`, a signed head kept outside the database, must hold and name an entry of the
 * chain (or one pruned behind the checkpoint): cutting the tail and setting the head row back shows too.
 */
export async function verifyChain(db: Db, key: string, opts: { head?: SignedHead } = {}): Promise<ChainVerdict> {
  const checkpoint = await latestCheckpoint(db, key);
  if (checkpoint && !checkpoint.holds) return { ok: false, firstBadId: checkpoint.up_to_id + 1, reason: 'checkpoint' };
  const outside = opts.head;
  if (outside && !headHolds(key, outside)) return { ok: false, firstBadId: outside.id, reason: 'head' };
  const from: ChainLink = checkpoint ? { id: checkpoint.up_to_id, hash: checkpoint.up_to_hash } : { id: 0, hash: null };
  const witness = outside && outside.id > from.id ? outside : undefined;
  const walk = await walkChain(db, key, from, Number.MAX_SAFE_INTEGER, witness);
  if (!walk.ok) return walk;
  const inside = await chainHead(db);
  // The newest entries removed: the head (the database's, or the one kept outside it) lies beyond the last.
  if (inside.id > walk.last.id || (witness && !walk.witnessed)) return { ok: false, firstBadId: walk.last.id + 1, reason: 'removed' };
  // The head row set back, or not the newest entry's: the table was written around the head's triggers.
  if (inside.id < walk.last.id || inside.hash !== walk.last.hash) return { ok: false, firstBadId: inside.id + 1, reason: 'head' };
  return checkpoint ? { ok: true, count: walk.count, prunedUpTo: checkpoint.up_to_id } : { ok: true, count: walk.count };
}
