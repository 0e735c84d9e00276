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
import { csvLines, langOf, recordLabels, referenceLabels, type Lang } from '../resources/entity-resource.ts';
import { parseBody } from './validation.ts';

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
  if (filters.user_id !== undefined) add('t.user_id = ?', filters.user_id);
  if (filters.action !== undefined) add('t.action = ?', filters.action);
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

/**
 * The labels of the records the page's reference fields pointed at, before and after (an entry keeps the
 * id; the label is read now, in the caller's language): one query per reference field on the page; and the name
 * of each entry's own record as it is now (none once deleted).
 */
async function withLabels(db: Db, entries: AuditRow[], lang: Lang): Promise<AuditRow[]> {
  const wanted = new Map<string, { field: FieldDef; ids: Set<number> }>();
  for (const entry of entries) {
    const fields = entityByName(entry.entity)?.fields ?? {};
    for (const [key, values] of Object.entries(entry.changes)) {
      const field = fields[key];
      if (field?.kind !== 'reference' || field.lookup) continue;
      const slot = wanted.get(`${entry.entity}.${key}`) ?? { field, ids: new Set<number>() };
      for (const value of values) if (Number.isSafeInteger(Number(value)) && value !== null) slot.ids.add(Number(value));
      wanted.set(`${entry.entity}.${key}`, slot);
    }
  }
  const labels = new Map<string, Map<number, string>>();
  for (const [name, { field, ids }] of wanted) labels.set(name, await referenceLabels(db, field, [...ids], lang));
  // The records the entries are about, by name (issue 33): one query per entity on the page.
  const records = new Map<string, Set<number>>();
  for (const entry of entries) if (entry.record_id !== null && entityByName(entry.entity)) records.set(entry.entity, (records.get(entry.entity) ?? new Set()).add(entry.record_id));
  const names = new Map<string, Map<number, string>>();
  for (const [entity, ids] of records) names.set(entity, await recordLabels(db, entityByName(entity) as EntityDef, [...ids], lang));
  return entries.map((entry) => {
    const recordLabel = entry.record_id === null ? undefined : names.get(entry.entity)?.get(entry.record_id);
    if (recordLabel !== undefined) entry = { ...entry, record_label: recordLabel };
    const own = Object.keys(entry.changes).filter((key) => labels.has(`${entry.entity}.${key}`));
    if (own.length === 0) return entry;
    const of = (key: string, value: unknown) => (value === null || value === undefined ? null : (labels.get(`${entry.entity}.${key}`)!.get(Number(value)) ?? null));
    return { ...entry, labels: Object.fromEntries(own.map((key) => [key, [of(key, entry.changes[key]![0]), of(key, entry.changes[key]![1])]])) };
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

function rowOf(row: Record<string, unknown>): AuditRow {
  const entry = storedEntryOf(row);
  return { ...entry, user_name: (row.user_name as string | null) ?? null, changes: shownChanges(entry.entity, entry.changes) };
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
    return ok(reply, { results: await withLabels(db, rows.slice(0, page_size).map(rowOf).map(forReader(req)), langOf(req)), paginator });
  });

  app.get('/api/audit/export/', { preHandler: requireAuth(config, ['Admin']) }, async (req, reply) => {
    const filters = parseBody(auditFilters, req.query);
    // Taking the history out is recorded in it, as every export is (ADR 038).
    await db.transaction((tx) => recordRequestEvent(tx, config.auditKey, req, { entity: 'audit', recordId: null, action: 'export', changes: { query: [null, filters] } }));
    const writeRow = (row: Record<string, unknown>) => {
      const entry = rowOf(row);
      return csvRow(AUDIT_CSV_COLUMNS.map((column) => (column === 'changes' ? JSON.stringify(entry.changes) : entry[column])));
    };
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeFileName('audit', 'csv')}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(csvLines(db, `select ${COLUMNS} ${FROM}`, whereOf(filters), csvRow(AUDIT_CSV_COLUMNS), writeRow)));
  });

  app.get('/api/audit/verify/', { preHandler: requireAuth(config, ['Admin']) }, async (_req, reply) => ok(reply, await verifyChain(db, config.auditKey)));
}
