import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import type { EntityDef, FieldDef, Paginator } from '../../shared/entity/define.ts';
import { USER_FULL_NAME_SQL } from '../resources/entity-sql-parts.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import { AUDIT_CSV_COLUMNS, auditFilters, auditListParams, type AuditFilters, type AuditRow } from '../../shared/schemas/audit.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordRequestEvent, storedEntryOf, verifyChain, type Changes } from '../lib/audit.ts';
import { countRows } from '../lib/count.ts';
import { requireAuth } from '../lib/auth.ts';
import { HISTORY_EXPORT_ENTITY, historyExportPart, historyPart, type HistoryPart } from '../../shared/entity/history-fields.ts';
import { ACCOUNT_ENTITY, ACCOUNT_EVENTS, AUTHORLESS_ACCOUNT_EVENTS, isAuthorless } from '../../shared/live.ts';
import { csvLines } from '../lib/csv-lines.ts';
import { langOf, type Lang } from '../lib/lang.ts';
import { recordLabels, referenceLabels } from '../lib/record-labels.ts';
import { parseBody } from './validation.ts';
import { openEnvelopes, personKeys, subjectsOf } from '../lib/person-keys.ts';

// The author's name as it is now, as references to a user read it (an author since removed: none).
const COLUMNS = `t.id, t.at, t.user_id, (select ${USER_FULL_NAME_SQL} from users r where r.id = t.user_id) as user_name, t.role, t.address, t.request_id, t.entity, t.record_id, t.action, t.changes`;
const FROM = 'from audit_log t';

/**
 * Who may read which history (ADR 036): an Admin everything; anyone else only one record's, of an entity
 * whose definition names an owner field, and only a record that field says is theirs (a buddy's own
 * service). Read from the record as it is now: a deleted record's history is the Admin's.
 */
async function checkReader(db: Db, req: FastifyRequest, filters: AuditFilters): Promise<void> {
  const user = req.user!;
  if (user.roles.includes('Admin')) return;
  const def = filters.entity ? (entityByName(filters.entity) as EntityDef | undefined) : undefined;
  const ownerField = def?.access?.ownerField;
  if (!def || !ownerField || filters.record_id === undefined) throw new ApiError(403, 'forbidden');
  const { rows } = await db.query<{ owner: unknown }>(`select ${ownerField} as owner from ${def.table} where id = $1`, [filters.record_id]);
  if (!rows[0] || Number(rows[0].owner) !== user.id) throw new ApiError(403, 'forbidden');
}

const sqlList = (values: readonly string[]) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');
// Constant names from shared/live.ts, written into the statement so the planner sees them.
const ACCOUNT_EVENT_SQL = `(t.entity = '${ACCOUNT_ENTITY}' and t.action in (${sqlList(ACCOUNT_EVENTS)}))`;
const AUTHORLESS_SQL = `(t.entity = '${ACCOUNT_ENTITY}' and t.action in (${sqlList(AUTHORLESS_ACCOUNT_EVENTS)}))`;

/** The WHERE clause of the filters, parameterised; the day range is inclusive, in UTC days. */
function whereOf(filters: AuditFilters): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filters.entity !== undefined) add('t.entity = ?', filters.entity);
  if (filters.record_id !== undefined) add('t.record_id = ?', filters.record_id);
  // An authorless account event is by nobody, whatever an older entry stored as its author (ADR 065).
  if (filters.user_id !== undefined) add(`t.user_id = ? and not ${AUTHORLESS_SQL}`, filters.user_id);
  if (filters.action !== undefined) add('t.action = ?', filters.action);
  // Sign-ins would flood a history: the screens hide the account events unless asked (ADR 065); an action
  // filter naming one of them shows it.
  const accountEvent = filters.action !== undefined && (ACCOUNT_EVENTS as readonly string[]).includes(filters.action);
  if (filters.account_events === 'hidden' && !accountEvent) where.push(`not ${ACCOUNT_EVENT_SQL}`);
  if (filters.account_events === 'only') where.push(ACCOUNT_EVENT_SQL);
  if (filters.from !== undefined) add("t.at >= (?::date)::timestamp at time zone 'UTC'", filters.from);
  if (filters.to !== undefined) add("t.at < ((?::date) + 1)::timestamp at time zone 'UTC'", filters.to);
  return { sql: where.length ? ` where ${where.join(' and ')}` : '', params };
}

/**
 * The changes as they may be shown: a field its definition now declares secret is dropped even from an
 * entry written before it was (ADR 035 never stores one; this keeps an older entry from showing it).
 */
function shownChanges(entity: string, changes: unknown): Changes {
  const parsed = (typeof changes === 'string' ? JSON.parse(changes) : changes) as Changes | null;
  const fields = entityByName(entity)?.fields;
  return Object.fromEntries(Object.entries(parsed ?? {}).filter(([key]) => !fields?.[key]?.secret));
}

/** The part of an entry that describes its change of `key` (ADR 065): the history's own export is described by its filters. */
function partOf(entry: AuditRow, key: string): HistoryPart | null {
  if (entry.entity === HISTORY_EXPORT_ENTITY) return entry.action === 'export' && key === 'query' ? historyExportPart() : null;
  return historyPart(entityByName(entry.entity) as EntityDef | undefined, entry.action, key);
}

const isReference = (field: FieldDef | undefined): field is FieldDef => field?.kind === 'reference' && !field.lookup;
const idOf = (value: unknown): number | null => (value !== null && value !== undefined && value !== '' && Number.isSafeInteger(Number(value)) ? Number(value) : null);

/**
 * The references an entry keeps as ids, each with the field it is: a reference field's before and after
 * (`labels`), and those inside a sub-resource's items or an export's query (`refs`, `<key>.<field>`).
 */
function referencesOf(entry: AuditRow): { slot: string; field: FieldDef; ids: number[]; top?: string }[] {
  const found: { slot: string; field: FieldDef; ids: number[]; top?: string }[] = [];
  for (const [key, values] of Object.entries(entry.changes)) {
    const part = partOf(entry, key);
    if (!part) continue;
    if (part.kind === 'field') {
      if (isReference(part.field)) found.push({ slot: key, top: key, field: part.field, ids: values.map(idOf).filter((id) => id !== null) });
      continue;
    }
    for (const value of values) {
      const objects = Array.isArray(value) ? value : [value];
      for (const item of objects) {
        if (item === null || item === undefined) continue;
        if (typeof item !== 'object') {
          const field = part.kind === 'items' ? part.fields[part.key] : undefined;
          const id = idOf(item);
          if (isReference(field) && id !== null) found.push({ slot: `${key}.${part.kind === 'items' ? part.key : ''}`, field, ids: [id] });
          continue;
        }
        for (const [name, inner] of Object.entries(item as Record<string, unknown>)) {
          const fieldName = part.kind === 'items' && name === 'key' ? part.key : name;
          const field = part.fields[fieldName];
          const id = idOf(inner);
          if (isReference(field) && id !== null) found.push({ slot: `${key}.${fieldName}`, field, ids: [id] });
        }
      }
    }
  }
  return found;
}

/**
 * The labels of the records a page's entries point at (an entry keeps the id; the label is read now, in the
 * caller's language): one query per entity, key and field on the page, whether a reference field's value, a
 * reference inside a sub-resource's items or an export's filter (ADR 036, 065); and the name of each entry's own record as
 * it is now (issue 33; none once deleted).
 */
async function withLabels(db: Db, entries: AuditRow[], lang: Lang): Promise<AuditRow[]> {
  const found = entries.map(referencesOf);
  const wanted = new Map<string, { field: FieldDef; ids: Set<number> }>();
  entries.forEach((entry, i) => {
    for (const { slot, field, ids } of found[i]!) {
      const name = `${entry.entity}|${entry.action.includes('.') ? entry.action : ''}|${slot}`;
      const at = wanted.get(name) ?? { field, ids: new Set<number>() };
      for (const id of ids) at.ids.add(id);
      wanted.set(name, at);
    }
  });
  const labels = new Map<string, Map<number, string>>();
  for (const [name, { field, ids }] of wanted) labels.set(name, await referenceLabels(db, field, [...ids], lang));
  // The records the entries are about, by name (issue 33): one query per entity on the page.
  const records = new Map<string, Set<number>>();
  for (const entry of entries) if (entry.record_id !== null && entityByName(entry.entity)) records.set(entry.entity, (records.get(entry.entity) ?? new Set()).add(entry.record_id));
  const names = new Map<string, Map<number, string>>();
  for (const [entity, ids] of records) names.set(entity, await recordLabels(db, entityByName(entity) as EntityDef, [...ids], lang));
  return entries.map((entry, i) => {
    const recordLabel = entry.record_id === null ? undefined : names.get(entry.entity)?.get(entry.record_id);
    if (recordLabel !== undefined) entry = { ...entry, record_label: recordLabel };
    if (found[i]!.length === 0) return entry;
    const of = (slot: string) => labels.get(`${entry.entity}|${entry.action.includes('.') ? entry.action : ''}|${slot}`)!;
    const top: Record<string, [string | null, string | null]> = {};
    const refs: Record<string, Record<string, string>> = {};
    for (const { slot, ids, top: key } of found[i]!) {
      const read = of(slot);
      if (key) {
        const [before, after] = entry.changes[key]!;
        const label = (value: unknown) => (idOf(value) === null ? null : (read.get(idOf(value)!) ?? null));
        top[key] = [label(before), label(after)];
      } else for (const id of ids) if (read.has(id)) (refs[slot] ??= {})[String(id)] = read.get(id)!;
    }
    return { ...entry, ...(Object.keys(top).length ? { labels: top } : {}), ...(Object.keys(refs).length ? { refs } : {}) };
  });
}

/**
 * An entry as a reader who is not an Admin sees it (ADR 058): who and what, never where from, which request or
 * with which roles — those of the Admins and other buddies who changed their service are not theirs to read.
 */
const forReader =
  (req: FastifyRequest) =>
  (entry: AuditRow): AuditRow =>
    req.user!.roles.includes('Admin') ? entry : { ...entry, role: null, address: null, request_id: null };

/**
 * The data keys of the people whose sealed values these rows hold (ADR 076): each envelope is opened with its
 * person's key, or reads `{"$erased": true}` once the person is erased.
 */
const keysFor = (db: Db, auditKey: string, rows: readonly Record<string, unknown>[]) =>
  personKeys(db, auditKey, subjectsOf(rows.map((row) => (typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes))));

function rowOf(row: Record<string, unknown>, keys: ReadonlyMap<number, Buffer>): AuditRow {
  const entry = storedEntryOf(row);
  const shown = { ...entry, user_name: (row.user_name as string | null) ?? null, changes: openEnvelopes(shownChanges(entry.entity, entry.changes), keys) };
  // An older entry of a failed sign-in named the account tried as its author: it is read without one (ADR 065).
  return isAuthorless(entry) ? { ...shown, user_id: null, user_name: null, role: null } : shown;
}

/**
 * The change history's routes (ADR 035, 036): `audit/` a page of entries, newest first, filtered; `audit/export/`
 * every entry of the same filters as CSV, streamed (Admin); `audit/verify/` the chain walked end to end (Admin),
 * as `npm run audit:verify` does.
 */
export function registerAuditRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  app.get('/api/audit/', { preHandler: requireAuth(config) }, async (req, reply) => {
    const { page, page_size, ...filters } = parseBody(auditListParams, req.query);
    await checkReader(db, req, filters);
    const where = whereOf(filters);
    // Counted as every list is (ADR 040): exactly up to the threshold, estimated past it; one row more tells a next page.
    const [counted, { rows }] = await Promise.all([
      countRows(db, `from audit_log t${where.sql}`, where.params, config.exactCountUpTo),
      db.query(`select ${COLUMNS} ${FROM}${where.sql} order by t.id desc limit ${page_size + 1} offset ${(page - 1) * page_size}`, where.params),
    ]);
    const paginator: Paginator = { page, page_size, count: counted.count, total_pages: Math.ceil(counted.count / page_size), has_next: rows.length > page_size };
    if (counted.estimated) paginator.estimated = true;
    const shown = rows.slice(0, page_size);
    const keys = await keysFor(db, config.auditKey, shown);
    return ok(reply, { results: await withLabels(db, shown.map((row) => rowOf(row, keys)).map(forReader(req)), langOf(req)), paginator });
  });

  app.get('/api/audit/export/', { preHandler: requireAuth(config, ['Admin']) }, async (req, reply) => {
    const filters = parseBody(auditFilters, req.query);
    // Taking the history out is recorded in it, as every export is (ADR 038).
    await db.transaction((tx) => recordRequestEvent(tx, config.auditKey, req, { entity: 'audit', recordId: null, action: 'export', changes: { query: [null, filters] } }));
    // The keys of each page's people, read before the page is written (ADR 076).
    let keys: ReadonlyMap<number, Buffer> = new Map();
    const preparePage = async (page: readonly Record<string, unknown>[]) => {
      keys = await keysFor(db, config.auditKey, page);
    };
    const writeRow = (row: Record<string, unknown>) => {
      const entry = rowOf(row, keys);
      return csvRow(AUDIT_CSV_COLUMNS.map((column) => (column === 'changes' ? JSON.stringify(entry.changes) : entry[column])));
    };
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeFileName('audit', 'csv')}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(csvLines(db, `select ${COLUMNS} ${FROM}`, whereOf(filters), csvRow(AUDIT_CSV_COLUMNS), writeRow, preparePage)));
  });

  app.get('/api/audit/verify/', { preHandler: requireAuth(config, ['Admin']) }, async (_req, reply) => ok(reply, await verifyChain(db, config.auditKey)));
}
