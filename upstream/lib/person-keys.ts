import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { EntityDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';

/**
 * Crypto-shredding of the change history (ADR 076). A person's values in history entries (the fields their
 * definition marks `personal`) are stored as envelopes `{"$p": 1, "s": <user id>, "c": <AES-GCM ciphertext>}`
 * under a data key of that person's own (`person_keys`, sealed under a key derived from AUDIT_KEY). The chain
 * hashes the envelope as stored, so nothing in hashing or verification changes. Erasing the person deletes the
 * key: the envelopes stay, hashed and verifiable, and can no longer be opened.
 */

/** What an envelope reads as once its key is gone (the screens word it "erased", en and sv). */
export const ERASED = Object.freeze({ $erased: true });

const PURPOSE = 'person-key:v1';

/** AES-256-GCM, iv.body.tag in base64url; `aad` binds a ciphertext to its place (a person's id). */
function encrypt(key: Buffer, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

/** The plain text, or null when it does not open under `key` (another key, or edited). */
function decrypt(key: Buffer, sealed: string, aad: string): string | null {
  try {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !body || !tag) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The key a person's data key is sealed under: derived from AUDIT_KEY for this purpose only. */
const wrapKeyOf = (auditKey: string) => createHash('sha256').update(`${PURPOSE}:${auditKey}`).digest();
const seal = (auditKey: string, userId: number, dataKey: Buffer) => encrypt(wrapKeyOf(auditKey), dataKey.toString('base64url'), `person-key:${userId}`);
const unseal = (auditKey: string, userId: number, sealed: string) => {
  const key = decrypt(wrapKeyOf(auditKey), sealed, `person-key:${userId}`);
  return key === null ? null : Buffer.from(key, 'base64url');
};

export interface Envelope {
  $p: 1;
  /** The person the value belongs to. */
  s: number;
  /** iv.ciphertext.tag, base64url. */
  c: string;
}

export function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && (value as { $p?: unknown }).$p === 1 && typeof (value as { c?: unknown }).c === 'string';
}

/** The person's data key, created (and stored sealed) on their first personal value. Inside the caller's transaction. */
export async function personKey(tx: Db, auditKey: string, userId: number): Promise<Buffer> {
  const read = async () => (await tx.query<{ key_sealed: string }>('select key_sealed from person_keys where user_id = $1', [userId])).rows[0]?.key_sealed;
  let sealed = await read();
  if (!sealed) {
    await tx.query('insert into person_keys (user_id, key_sealed) values ($1, $2) on conflict do nothing', [userId, seal(auditKey, userId, randomBytes(32))]);
    sealed = await read();
  }
  const key = sealed ? unseal(auditKey, userId, sealed) : null;
  if (!key) throw new Error(`the history key of person ${userId} does not open under AUDIT_KEY`);
  return key;
}

/** The data keys of these people that still exist (an erased person has none). */
export async function personKeys(db: Db, auditKey: string, userIds: Iterable<number>): Promise<Map<number, Buffer>> {
  const ids = [...new Set(userIds)];
  const keys = new Map<number, Buffer>();
  if (ids.length === 0) return keys;
  const { rows } = await db.query<{ user_id: number | string; key_sealed: string }>('select user_id, key_sealed from person_keys where user_id = any($1::bigint[])', [ids]);
  for (const row of rows) {
    const key = unseal(auditKey, Number(row.user_id), row.key_sealed);
    if (key) keys.set(Number(row.user_id), key);
  }
  return keys;
}

const sealValue = (key: Buffer, userId: number, value: unknown): Envelope => ({ $p: 1, s: userId, c: encrypt(key, JSON.stringify(value), String(userId)) });

function openValue(key: Buffer, envelope: Envelope): unknown {
  const plain = decrypt(key, envelope.c, String(envelope.s));
  return plain === null ? ERASED : (JSON.parse(plain) as unknown);
}

const personalOf = new WeakMap<EntityDef, Set<string>>();

/** The keys of a history entry's changes that hold a person's values: the definition's, its history's and its actions' `personal` fields. */
export function personalKeys(def: EntityDef | undefined): Set<string> {
  if (!def?.person) return new Set();
  let keys = personalOf.get(def);
  if (!keys) {
    const all = { ...def.fields, ...def.history?.fields, ...Object.fromEntries(Object.values(def.actions ?? {}).flatMap((a) => Object.entries(a.input ?? {}))) };
    keys = new Set(
      Object.entries(all)
        .filter(([, field]) => field.personal)
        .map(([key]) => key),
    );
    personalOf.set(def, keys);
  }
  return keys;
}

/**
 * The changes with every non-null value of a personal key sealed under `subject`'s key. Unchanged when the
 * entity has no personal fields, or the entry names no person (a failed sign-in with an address no account has).
 */
export async function sealChanges<C extends Record<string, [unknown, unknown]>>(
  tx: Db,
  auditKey: string,
  def: EntityDef | undefined,
  subject: number | null,
  changes: C,
): Promise<C> {
  const personal = personalKeys(def);
  if (subject === null || personal.size === 0 || !Object.keys(changes).some((k) => personal.has(k))) return changes;
  const key = await personKey(tx, auditKey, subject);
  const sealed: Record<string, [unknown, unknown]> = {};
  for (const [name, pair] of Object.entries(changes)) {
    sealed[name] = personal.has(name) ? (pair.map((v) => (v === null || v === undefined ? null : sealValue(key, subject, v))) as [unknown, unknown]) : pair;
  }
  return sealed as C;
}

/** The people whose envelopes a value holds, at any depth. */
export function subjectsOf(value: unknown, into: Set<number> = new Set()): Set<number> {
  if (isEnvelope(value)) into.add(value.s);
  else if (Array.isArray(value)) for (const v of value) subjectsOf(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) subjectsOf(v, into);
  return into;
}

/** The value with every envelope opened, or `ERASED` where its person's key is gone. */
export function openEnvelopes<T>(value: T, keys: ReadonlyMap<number, Buffer>): T {
  if (isEnvelope(value)) {
    const key = keys.get(value.s);
    return (key ? openValue(key, value) : ERASED) as T;
  }
  if (Array.isArray(value)) return value.map((v) => openEnvelopes(v, keys)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openEnvelopes(v, keys)])) as T;
  return value;
}
