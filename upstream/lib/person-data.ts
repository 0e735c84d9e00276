import type { FastifyRequest } from 'fastify';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import { erasedEmail, isErased } from '../../shared/entities/users.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { isLastActiveAdmin, lockAdminSet } from '../users.ts';
import { ApiError } from './api-error.ts';
import { recordRequestEvent, storedEntryOf } from './audit.ts';
import { openEnvelopes, personKeys, subjectsOf } from './person-keys.ts';

/**
 * A person's erasure and their data's export (GDPR Art. 15, 17, 20: ADR 076). A person is a `users` row. What is
 * theirs is found from the schema, so a table added later is covered by declaring its reference: every table
 * whose foreign key to `users` cascades holds rows that belong to the person (their sessions, tokens, factors,
 * links), deleted with them; every other table referring to them (services, bicycles, payments) keeps its rows,
 * which then refer to the erased person's tombstone. Tables that name the person without a foreign key are listed
 * here (their mails, request replays, sign-in counters).
 */

/** Columns never handed out, even to the person: credentials and what opens them. */
const SECRET_COLUMN = /(^|_)(hash|secret|password|token)(_|$)|^grace_payload$|^key_sealed$/;

interface Reference {
  table: string;
  column: string;
  /** The foreign key cascades: the rows are the person's own. */
  cascades: boolean;
}

/** Every foreign key to `users` in the schema (the tables are the migrations' own names). */
async function referencesToUsers(db: Db): Promise<Reference[]> {
  const { rows } = await db.query<{ tbl: string; col: string; deltype: string }>(
    `select c.conrelid::regclass::text as tbl, a.attname as col, c.confdeltype::text as deltype
       from pg_constraint c
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
      where c.contype = 'f' and c.confrelid = 'users'::regclass
      order by 1, 2`,
  );
  return rows.map((r) => ({ table: r.tbl, column: r.col, cascades: r.deltype === 'c' }));
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The person's sign-in counters: keyed by the address typed (`<client>|<address>`, `<address>`) or their id (ADR 018, 068). */
const THROTTLE_SQL = `delete from throttle
  where (scope in ('login', 'forgot') and right(lower(key), length($1) + 1) = '|' || lower($1))
     or (scope = 'forgot-mail' and lower(key) = lower($1))
     or (scope = 'second-factor-user' and key = $2::text)
     or (scope = 'second-factor' and right(key, length($2::text) + 1) = '|' || $2::text)`;

/**
 * The history entries about a person or made by them: their record's, their own, and an invitation's (made on the
 * collection, so with no record id: found by the person its e-mail is sealed under).
 */
const HISTORY_SQL = `select id, at, user_id, role, address, request_id, entity, record_id, action, changes from audit_log
  where (entity = 'users' and record_id = $1) or user_id = $1
     or (entity = 'users' and record_id is null and changes -> 'email' -> 1 ->> 's' = $1::text)
  order by id`;

interface PersonRow {
  id: number | string;
  email: string;
  pending_email: string | null;
  profile_image: string | null;
}

/**
 * Erases a person, in one transaction: their row becomes a tombstone (the id stays, so services and payments
 * still refer to someone: "erased+<id>@invalid", inactive, every personal column empty, no password), and
 * everything else of theirs is deleted: the rows of every table whose reference to them cascades (sessions,
 * refresh and account tokens, factors and recovery codes, role, language, competence and trial-group links),
 * their key of the history (`person_keys`: their values in the history can no longer be read), their mails,
 * the request replays they made, the sign-in counters keyed by their address, their uploads and the name's
 * search term. The erasure is an entry of the history with no personal value in it. Their upload files are
 * deleted after the commit (a file delete cannot roll back; the unused-upload sweep would find none of them
 * referenced anyway). Refused for the caller themself and for the last active Admin.
 */
export async function erasePerson(db: Db, config: Pick<UpstreamConfig, 'auditKey' | 'uploadDir'>, req: FastifyRequest, id: number): Promise<void> {
  if (req.user?.id === id) throw new ApiError(409, 'erase_self');
  const references = await referencesToUsers(db);
  const files = await db.transaction(async (tx) => {
    await lockAdminSet(tx);
    const { rows } = await tx.query<PersonRow>('select id, email, pending_email, profile_image from users where id = $1 for update', [id]);
    const person = rows[0];
    if (!person) throw new ApiError(404, 'not_found');
    if (isErased(person as unknown as Record<string, unknown>)) throw new ApiError(409, 'already_erased');
    if (await isLastActiveAdmin(tx, id)) throw new ApiError(409, 'last_admin');
    const addresses = [person.email, person.pending_email].filter((a): a is string => Boolean(a)).map((a) => a.toLowerCase());
    const { rows: uploads } = await tx.query<{ key: string }>(`delete from uploads where created_by = $1 or key = substring($2::text from '/files/(.+)$') returning key`, [
      id,
      person.profile_image,
    ]);
    for (const ref of references) if (ref.cascades) await tx.query(`delete from ${quoted(ref.table)} where ${quoted(ref.column)} = $1`, [id]);
    await tx.query('delete from person_keys where user_id = $1', [id]);
    await tx.query('delete from outbox where lower(to_email) = any($1::text[])', [addresses]);
    await tx.query('delete from idempotency_keys where user_id = $1', [id]);
    for (const address of addresses) await tx.query(THROTTLE_SQL, [address, id]);
    await tx.query(
      `update users set email = $2, password_hash = null, first_name = null, last_name = null, phone_number = null, country = null,
              profile_image = null, biography = null, social_security_number = null, state = null, area = null, city = null,
              post_code = null, pending_email = null, email_confirmed_at = null, is_active = false, account_status = 'inactive',
              invitation_status = case when invitation_status = 'pending' then 'canceled' else invitation_status end,
              session_version = session_version + 1, version = version + 1, updated_at = now()
        where id = $1`,
      [id, erasedEmail(id)],
    );
    // The names' search terms (migration 089) that no one bears any more: theirs, and any they had before.
    await tx.query(
      `delete from search_terms s where s.source = 'users.full_name'
          and not exists (select 1 from users u where lower(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) = s.term)`,
    );
    // No value of the person in it: who erased whom, when. Written after their key is gone, so it seals nothing.
    await recordRequestEvent(tx, config.auditKey, req, { entity: 'users', recordId: id, action: 'person_erased', changes: {} });
    return uploads.map((u) => u.key);
  });
  const root = resolve(config.uploadDir);
  for (const key of files) {
    const path = join(root, key);
    if (path.startsWith(root + '/')) await rm(path, { force: true }).catch((error: unknown) => req.log.warn({ err: error, key }, 'an erased person’s upload file stays'));
  }
}

type Row = Record<string, unknown>;

export interface PersonData {
  person: Row;
  tables: Record<string, Row[]>;
  history: Row[];
}

const plain = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([column]) => !SECRET_COLUMN.test(column)));

/**
 * Everything stored about a person (ADR 076): their `users` row, their rows in every table that refers to them
 * (and the tables that name them without a reference: their mails, request replays), and the history entries
 * about them or made by them, with every envelope opened that still opens (another erased person's value reads
 * `{"$erased": true}`). Credentials are left out (hashes, sealed secrets): they are not the person's to read.
 */
export async function personData(db: Db, auditKey: string, id: number): Promise<PersonData> {
  const { rows } = await db.query<Row>('select * from users where id = $1', [id]);
  const person = rows[0];
  if (!person) throw new ApiError(404, 'not_found');
  const addresses = [person.email, person.pending_email].filter((a): a is string => typeof a === 'string').map((a) => a.toLowerCase());
  const tables: Record<string, Row[]> = {};
  const add = (name: string, found: Row[]) => {
    if (found.length) tables[name] = [...(tables[name] ?? []), ...found.map(plain)];
  };
  for (const ref of await referencesToUsers(db)) add(ref.table, (await db.query<Row>(`select * from ${quoted(ref.table)} where ${quoted(ref.column)} = $1`, [id])).rows);
  add('outbox', (await db.query<Row>('select * from outbox where lower(to_email) = any($1::text[]) order by id', [addresses])).rows);
  add('idempotency_keys', (await db.query<Row>('select user_id, key, status, created_at from idempotency_keys where user_id = $1', [id])).rows);
  const { rows: entries } = await db.query<Row>(HISTORY_SQL, [id]);
  const stored = entries.map(storedEntryOf);
  const keys = await personKeys(db, auditKey, subjectsOf(stored.map((e) => e.changes)));
  return { person: plain(person), tables, history: stored.map((e) => ({ ...e, changes: openEnvelopes(e.changes, keys) })) };
}

const cellOf = (value: unknown) => (value instanceof Date ? value.toISOString() : value !== null && typeof value === 'object' ? JSON.stringify(value) : value);

/** The export as a file: JSON (`{person, tables, history}`), or CSV of `table, row, column, value` (RFC 4180, formula cells escaped, ADR 019). */
export function personFile(data: PersonData, id: number, format: 'json' | 'csv'): { name: string; type: string; content: string } {
  const base = safeFileName(`person-${id}-${new Date().toISOString().slice(0, 10)}`, format);
  if (format === 'json') return { name: base, type: 'application/json', content: JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2) };
  let content = csvRow(['table', 'row', 'column', 'value']);
  const write = (table: string, row: number, values: Row) => {
    for (const [column, value] of Object.entries(values)) content += csvRow([table, row, column, cellOf(value)]);
  };
  write('users', 1, data.person);
  for (const [table, rows] of Object.entries(data.tables)) rows.forEach((row, i) => write(table, i + 1, row));
  data.history.forEach((entry, i) => write('audit_log', i + 1, entry));
  return { name: base, type: 'text/csv', content };
}

/** Exports a person's data and records the export (`person_exported`, with the format only) in the history. */
export async function exportPerson(db: Db, auditKey: string, req: FastifyRequest, id: number, format: 'json' | 'csv') {
  const data = await personData(db, auditKey, id);
  await db.transaction((tx) => recordRequestEvent(tx, auditKey, req, { entity: 'users', recordId: id, action: 'person_exported', changes: { format: [null, format] } }));
  return personFile(data, id, format);
}
