import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Invitations } from '../invitations.ts';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { csvRow, safeFileName } from '../../shared/csv.ts';
import {
  MAX_CALENDAR_ROWS,
  labelFields,
  labelSearchFields,
  labelSql,
  actionRoles,
  filterSpecs,
  isRecordAction,
  ownActions,
  segmentOf,
  subResourceWriteRoles,
  isIsoDate,
  isOwnerScoped,
  isYearInRange,
  mayTransition,
  sortableKeys,
  statusFieldOf,
  writableFields,
  writeRoles,
  type EntityDef,
  type EntityRecord,
  type FieldDef,
  type Paginator,
  type ActionDef,
  type SubResourceDef,
} from '../../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, inputFieldsSchema, listParamsSchema } from '../../shared/entity/schemas.ts';
import { entityByName } from '../../shared/entities/registry.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { recordRequestChange, recordRequestEvent, type Changes } from '../lib/audit.ts';
import { askedOf, inActionScope, inActionScopeNow } from '../lib/audit-scope.ts';
import { requireAuth, type AuthUser } from '../lib/auth.ts';
import { checkUploadedImage } from '../lib/uploaded-images.ts';
import {
  cheapestPart,
  columnSample,
  containsPattern,
  cursorFits,
  decodeCursor,
  emailMayContain,
  encodeCursor,
  fewTerms,
  isKeysetColumn,
  isNullableColumn,
  listPage,
  matchingTerms,
  tableRows,
  termSource,
} from '../lib/page-query.ts';
import { readThroughRoles, upstreamReadScopes } from '../../shared/entity/access-roles.ts';
import { idParam, parseBody } from '../routes/validation.ts';
import { copyCsvLines, copySelect, exportColumns } from './csv-copy.ts';
import { checkEntitySql, referenceLabelSql, sqlOf } from './entity-sql-parts.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** Rows to JSON the same way on PGlite and on pg: dates as YYYY-MM-DD, times HH:MM, numerics as numbers. */
export function normalizeRow(def: EntityDef, row: Record<string, unknown>): EntityRecord {
  const out: Record<string, unknown> = { ...row, id: Number(row.id), version: Number(row.version) };
  for (const key of ['created_at', 'updated_at']) if (row[key] instanceof Date) out[key] = (row[key] as Date).toISOString();
  for (const [key, field] of Object.entries(def.fields)) {
    const value = row[key];
    if (value === null || value === undefined) continue;
    if (field.kind === 'date')
      out[key] = value instanceof Date ? `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}` : String(value).slice(0, 10);
    else if (field.kind === 'time') out[key] = String(value).slice(0, 5);
    else if (field.kind === 'datetime') out[key] = value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
    else if (field.kind === 'money' || field.kind === 'decimal' || field.kind === 'reference' || field.kind === 'integer') out[key] = Number(value);
    else if (field.kind === 'enum' && typeof value === 'number') out[key] = value;
    else if (field.kind === 'enum' && field.options?.every((o) => typeof o === 'number')) out[key] = Number(value);
  }
  return out as EntityRecord;
}

/** A filter value from the query string, checked against its field so no bad value reaches SQL. */
function filterValue(key: string, field: FieldDef, raw: unknown): unknown {
  const invalid = (message: string) => new ApiError(400, 'validation_error', undefined, { [key]: message });
  if (field.kind === 'boolean') return raw === true || raw === 'true' || raw === '1';
  if (field.kind === 'reference' || field.kind === 'integer') {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw invalid('validation.integer');
    // An integer column compared with a value beyond its type is an SQL error, not an empty list.
    if (field.kind === 'integer' && (field.max === undefined || field.max <= 2_147_483_647) && Math.abs(n) > 2_147_483_647) throw invalid('validation.option');
    return n;
  }
  if (field.kind === 'date') {
    if (!isIsoDate(String(raw))) throw invalid('validation.date');
    if (!isYearInRange(String(raw))) throw invalid('validation.dateYears');
    return String(raw);
  }
  if (field.kind === 'enum') {
    const option = field.options?.find((o) => String(o) === String(raw));
    if (option === undefined) throw invalid('validation.option');
    return option;
  }
  if (field.kind === 'decimal' || field.kind === 'money') {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw invalid('validation.number');
    return n;
  }
  return String(raw);
}

/** PostgreSQL error → API error: unique and foreign-key violations become field errors or 409 in_use. */
function mapDbError(def: EntityDef, error: unknown, op: 'write' | 'delete' = 'write'): never {
  if (error instanceof ApiError) throw error;
  const e = error as { code?: string; constraint?: string; message?: string };
  const names = (name: string) => e.constraint === name || Boolean(e.message?.includes(name));
  if (e.code === '23505') {
    const group = def.unique?.find((g) => names(`${def.table}_${g.name}_key`));
    if (group) throw new ApiError(400, 'validation_error', undefined, { [group.fields[group.fields.length - 1]!]: group.message });
    const field = Object.keys(def.fields).find((key) => names(`${def.table}_${key}_key`)) ?? '_form';
    throw new ApiError(400, 'validation_error', 'This value is already in use.', { [field]: 'validation.unique' });
  }
  // 23503 foreign_key_violation, 23001 restrict_violation (references are `on delete restrict`).
  if (e.code === '23503' || e.code === '23001') {
    if (op === 'delete') throw new ApiError(409, 'in_use', 'This record is still in use and cannot be deleted.');
    const field = Object.keys(def.fields).find((key) => e.message?.includes(key) && def.fields[key]!.kind === 'reference');
    if (field) throw new ApiError(400, 'validation_error', undefined, { [field]: 'validation.option' });
    throw new ApiError(409, 'in_use', 'This record is still in use and cannot be deleted.');
  }
  throw error;
}

export type Lang = 'en' | 'sv';

/** The language the back office asks in (`Accept-Language`, §7): reference labels follow it. */
export function langOf(req: FastifyRequest): Lang {
  return /^sv\b/i.test(String(req.headers['accept-language'] ?? '').trim()) ? 'sv' : 'en';
}

export interface WriteContext {
  tx: Db;
  user: AuthUser;
  /** The record as it is before this write (locked until the transaction ends); null on create. */
  current: EntityRecord | null;
  /** An Admin's explicit override (`force` on a transition) of a rule the entity's API checks beyond the status table (ADR 028, 032). */
  force?: boolean;
  /** The caller's language (`Accept-Language`), for a refusal that names records (a checklist's items). */
  lang?: Lang;
}

/**
 * Business rules beyond the schema, each run inside the transaction of the write it guards (with the row
 * being updated locked), so a rule that counts rows can lock what it counts.
 */
export interface ResourceHooks {
  /** Before an insert (e.g. an owner's bicycle limit). */
  beforeCreate?: (input: Record<string, unknown>, tx: Db) => Promise<void>;
  /** Before an update, after its version check. */
  beforeUpdate?: (id: number, input: Record<string, unknown>, tx: Db) => Promise<void>;
  /**
   * On create, update and status change alike (one write path, ADR 032), after the schema, access and
   * status checks and the hooks above. May return values for read-only columns (a service's bicycle owner).
   */
  beforeWrite?: (input: Record<string, unknown>, ctx: WriteContext) => Promise<Record<string, unknown> | void>;
  beforeDelete?: (current: EntityRecord, ctx: WriteContext) => Promise<void>;
  /**
   * Before a change locks its record, with what the request asked (its body): a lock every change of this kind
   * takes first, so two changes that each take both locks take them in one order (the users' Admin set, ADR 018).
   */
  beforeLock?: (id: number, asked: Readonly<Record<string, unknown>>, tx: Db) => Promise<void>;
  /** After an update is written, in its transaction: what else the change does beyond the row (sessions ended). */
  afterUpdate?: (input: Record<string, unknown>, written: EntityRecord, ctx: WriteContext) => Promise<void>;
}

/** What an entity's own handlers get: its record reader, the preHandlers of its reads and writes. */
export interface EntityResource {
  def: EntityDef;
  db: Db;
  config: UpstreamConfig;
  fetchOne(id: number, tx?: Db, user?: AuthUser, lock?: boolean, lang?: Lang): Promise<EntityRecord | null>;
  scopeOf(user: AuthUser | undefined, firstParam: number): { sql: string; params: unknown[] };
  /**
   * A caller who reads this record only through one they own (`access.readThrough`, ADR 044) and owns none that
   * names it is answered 404, as for a record that is not there; anyone reading the entity passes.
   */
  checkReadThrough(id: number, user: AuthUser | undefined, tx?: Db): Promise<void>;
  read: ReturnType<typeof requireAuth>;
  /** The guard of one record's reads (its record and sub-resources): the entity's readers and its `readThrough` roles. */
  readOne: ReturnType<typeof requireAuth>;
  write: ReturnType<typeof requireAuth>;
  /**
   * The one write path (ADR 032, 069), for a handler whose action changes this entity's record: the row locked,
   * the version checked, the entity's rules and reference checks, the version step, the history entry and its live
   * notice (the action's, in its scope). No handler writes `update <its table> set` itself.
   */
  change(req: FastifyRequest, change: RecordWrite): Promise<EntityRecord | null>;
}

/** Everything the generic routes of one entity share, computed once from its definition. */
interface Resource extends EntityResource {
  hooks: ResourceHooks;
  base: string;
  columns: string[];
  create: ReturnType<typeof createSchema>;
  status: ReturnType<typeof statusFieldOf>;
  selects: Record<Lang, string>;
  exportSelect: (lang: Lang) => string;
  whereOf(query: Record<string, string>, search: string | undefined, user: AuthUser | undefined, lang: Lang, extra?: { sql: string; params: unknown[] }[]): Promise<ListWhere>;
  parseList(query: Record<string, string>): z.output<ReturnType<typeof listParamsSchema>>;
  /** The guard of the list and the calendar: `read`, with the session check overlapping the handler's reads (ADR 052). */
  list: ReturnType<typeof requireAuth>;
  filtersOf(query: Record<string, string>): Record<string, string>;
}

const versionSchema = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 31);

function referenceTable(field: FieldDef): string {
  const target = entityByName(field.reference!.entity);
  if (!target) throw new Error(`a reference to ${field.reference!.entity}, which is no entity`);
  return target.table;
}
// A reference's label over the referenced row `r`: the referenced entity's label template (or the
// reference's shorter one) in the request's language, or an SQL expression of its own (a person's name).
function labelExpression(field: FieldDef, lang: Lang): string {
  const reference = field.reference!;
  const template = reference.label ?? entityByName(reference.entity)?.label;
  if (!template) throw new Error(`the reference to ${reference.entity} needs a label`);
  return reference.sqlLabel ? referenceLabelSql(reference.entity) : labelSql(template, 'r', lang);
}

/** The labels of some records a reference field may point at, in a language (the change history's before and after). */
export async function referenceLabels(db: Db, field: FieldDef, ids: readonly number[], lang: Lang): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: number; label: string | null }>(
    `select r.id, ${labelExpression(field, lang)} as label from ${referenceTable(field)} r where r.id = any($1::bigint[])`,
    [[...ids]],
  );
  return new Map(rows.map((row) => [Number(row.id), row.label ?? String(row.id)]));
}

/**
 * The names of some records of one entity, as a reference to them reads (its SQL label where the server writes one,
 * `referenceLabel` in entity-sql-parts.ts: a user by their full name; else its label template), in a language: the Activity page names a record so rather than by its id (issue 33). An entity
 * whose label the SQL cannot read (a template over another record's label) gets none: the screens say `#id`.
 */
export async function recordLabels(db: Db, def: EntityDef, ids: readonly number[], lang: Lang): Promise<Map<number, string>> {
  const field: FieldDef = { kind: 'reference', reference: { entity: def.name, ...(sqlOf(def.name).referenceLabel ? { sqlLabel: true } : {}) } };
  try {
    labelExpression(field, lang);
  } catch {
    return new Map();
  }
  return referenceLabels(db, field, ids, lang);
}

/** The `<reference>_label` and lookup columns a record is read with, in a language. */
function derivedColumns(def: EntityDef, lang: Lang): string[] {
  const labels = Object.entries(def.fields)
    .filter(([, f]) => f.kind === 'reference' && !f.lookup)
    .map(([key, field]) => `(select ${labelExpression(field, lang)} from ${referenceTable(field)} r where r.id = t.${key}) as ${key}_label`);
  // Lookups are read through the reference they name: `(select r.status from events r where r.id = t.event_id)`.
  const lookups = Object.entries(def.fields)
    .filter(([, f]) => f.lookup)
    .map(([key, f]) => {
      const via = def.fields[f.lookup!.via];
      if (via?.kind !== 'reference') throw new Error(`${def.name}.${key}: lookup via a field that is not a reference`);
      return `(select r.${f.lookup!.column} from ${referenceTable(via)} r where r.id = t.${f.lookup!.via}) as ${key}`;
    });
  return [...labels, ...lookups];
}

/** How one search reads a field: the search's pattern parameter, and the parameter of a source's matching terms. */
interface SearchParams {
  search: string;
  pattern: () => string;
  /** The parameter of a source's matching terms; undefined when they are too many to be worth it (`fewTerms`). */
  terms: (source: string) => string | undefined;
  /** The contains-search of `table.column` by a cheaper part of the text (`cheapestPart`), or undefined. */
  byPart: (table: string, column: string, expression: string) => string | undefined;
  /** The contains-search of `expression` through its bigram index (`shortSearch`), for a text too short for a trigram; else undefined. */
  byBigrams: (expression: string) => string | undefined;
}

/**
 * A text field's contains-search over the row `alias` of `table`, or none when no stored value can hold
 * the search. A field whose values repeat is searched by its matching terms and its b-tree on
 * `lower(<field>)` (ADR 050).
 */
function textCondition(table: string, key: string, value: string, field: FieldDef, p: SearchParams): string | undefined {
  if (field.kind === 'email' && !emailMayContain(p.search)) return undefined;
  const terms = field.valuesRepeat ? p.terms(termSource(table, key)) : undefined;
  const lowered = `lower(${value})`;
  if (terms) return `${lowered} = any(${terms}::text[])`;
  return (field.shortSearch ? p.byBigrams(lowered) : undefined) ?? p.byPart(table, key, lowered) ?? `${lowered} like ${p.pattern()}`;
}

/**
 * What a list's search reads of an entity: its searchable fields, then its search expressions (ADR 056), each
 * expression as the searchable single-line text it is searched as.
 */
function searchedKeys(def: EntityDef): string[] {
  return [...Object.keys(def.fields).filter((k) => def.fields[k]!.searchable), ...Object.keys(def.searchExpressions ?? {})];
}

function searchedField(def: EntityDef, key: string): FieldDef {
  const field = def.fields[key];
  if (field) return field;
  const { valuesRepeat, shortSearch } = def.searchExpressions![key]!;
  return { kind: 'text', searchable: true, ...(valuesRepeat ? { valuesRepeat } : {}), ...(shortSearch ? { shortSearch } : {}) };
}

/** A reference's label as a template of its entity's fields, or undefined when the label is SQL of its own (a person's name). */
function labelTemplateOf(field: FieldDef): { target: EntityDef; template: string } | undefined {
  const reference = field.reference!;
  const target = entityByName(reference.entity);
  const template = reference.label ?? target?.label;
  return target && !reference.sqlLabel && template ? { target, template } : undefined;
}

/**
 * The fields of the referenced entity a reference's label search is split into (`labelSearchFields`,
 * ADR 050), when each is a text never NULL; undefined when the label is searched whole.
 */
function splitLabel(field: FieldDef, search: string, lang: Lang): { target: EntityDef; fields: string[] } | undefined {
  const label = labelTemplateOf(field);
  if (!label) return undefined;
  const { target } = label;
  const fields = labelSearchFields(label.template, search, lang);
  const textual = (key: string) => {
    const f = target.fields[key];
    return f && (f.kind === 'text' || f.kind === 'email' || f.kind === 'phone') && f.required;
  };
  return fields && fields.every(textual) ? { target, fields } : undefined;
}

/**
 * How one searchable field is found, or none when no stored value can contain the search: its own column's
 * condition, or for a reference the condition on the referenced row `r` (`matches`) and the table it reads.
 */
type FieldSearch = { own: string } | { matches: string; table: string; key: string };

function fieldSearch(def: EntityDef, key: string, lang: Lang, p: SearchParams): FieldSearch | undefined {
  const field = searchedField(def, key);
  if (field.kind !== 'reference') {
    const own = textCondition(def.table, key, sqlOf(def.name).searchExpressions?.[key] ?? `t.${key}`, field, p);
    return own === undefined ? undefined : { own };
  }
  const matches = referenceMatch(field, lang, p);
  return matches === undefined ? undefined : { matches, table: referenceTable(field), key };
}

/**
 * A searchable reference is searched by its label (a bicycle by its owner's e-mail), in one of two forms:
 * - `array`: the matching ids are found first (through the label's index, or its fields' own searches when the
 *   label can be split: ADR 050) and the rows then by their indexed reference column, so PostgreSQL can OR it
 *   with the other columns' indexes instead of scanning every row;
 * - `row`: each row asks its own record through the primary key, for a reference matching many records ("a":
 *   900 000 bicycles), whose array took longer than the statement timeout (ADR 052), or one whose ids no index
 *   can find (a text of two letters: ADR 054) when the page is walked in its order. A scalar subquery, not
 *   `exists`: PostgreSQL would hash every match of an `exists` under an OR first (1 s for 970 000 users), where
 *   a list stops after a page and a capped count.
 */
function searchCondition(f: FieldSearch, form: 'array' | 'row'): string {
  if ('own' in f) return f.own;
  if (form === 'row') return `(select ${f.matches} from ${f.table} r where r.id = t.${f.key})`;
  return `t.${f.key} = any(array(select r.id from ${f.table} r where ${f.matches}))`;
}

/**
 * A field's condition as the first part of a capped count reads it (`ListPageQuery.lead`), and the rows it
 * does not hold: a reference as a semi-join, which PostgreSQL reads from the referenced records' side (the
 * bicycles holding "ab", then their services by `bicycle_id`) and stops when the count has enough.
 */
function leadCondition(f: FieldSearch, row: FieldSearch): { sql: string; not: string } {
  if ('own' in f) return { sql: f.own, not: `(${(row as { own: string }).own}) is not true` };
  return { sql: `t.${f.key} in (select r.id from ${f.table} r where ${f.matches})`, not: `${searchCondition(row, 'row')} is not true` };
}

/** Whether pg_trgm finds no trigram in a contains-search of `search` (no run of three letters or digits): no trigram index can serve it. */
export function withoutTrigram(search: string): boolean {
  return !/[\p{L}\p{N}]{3}/u.test(search);
}

/**
 * The condition on a referenced row `r` that its label contains the search: the label's fields searched
 * each (`splitLabel`), else the label whole; undefined when no stored label can hold the text.
 */
function referenceMatch(field: FieldDef, lang: Lang, p: SearchParams): string | undefined {
  const split = splitLabel(field, p.search, lang);
  if (!split) {
    const label = `lower(${labelExpression(field, lang)})`;
    return (field.reference!.sqlLabel && field.reference!.labelShortSearch ? p.byBigrams(label) : undefined) ?? `${label} like ${p.pattern()}`;
  }
  const table = referenceTable(field);
  const parts = split.fields.map((f) => textCondition(table, f, `r.${f}`, split.target.fields[f]!, p)).filter((c) => c !== undefined);
  return parts.length ? parts.join(' or ') : undefined;
}

/**
 * More referenced records than this matching a reference's label search are too many to list as an array of
 * ids: the search then asks each row's own record. An array is checked one id at a time for every row it is
 * tested on — including each row a trigram index's bitmap hands over for its recheck, about twice as many
 * services as bicycles listed — so its cost grows with the square of its length (40 000 bicycles holding
 * "ab": over 50 s on PGlite). Asked per row, a search pays a lookup for each row it reaches, which only a
 * search matching many rows keeps few (a page walked in order, a capped count): a sample that holds the
 * text once in a hundred values (one repeated model: ~9 000 of 1M bicycles) stays an array.
 */
const WIDE_REFERENCE_MATCHES = 20_000;

/**
 * On a page walked in its sort order, a reference expected to match more records than this is asked per row
 * (ADR 054): an array of ids is checked one id at a time for each row the walk reaches, so 15 000 bicycles
 * holding "grail" cost ~15 000 comparisons a row where a primary-key lookup costs a few microseconds. A short
 * array stays, as cheap as a lookup and cheaper if the walk reaches many rows.
 */
const WALK_ARRAY_MATCHES = 1_000;

/**
 * A reference expected to match more records than this does not lead a capped count (ADR 054): its records come
 * from their index all at once before the first row is counted (62 500 bicycles holding "canyon": 47 ms for the
 * services count; 238 000 users holding "er": 1 s for the bicycles count).
 */
const LEAD_REFERENCE_MATCHES = 100_000;

/**
 * The share of a table's rows past which a column leading a capped count for a short text (ADR 056) is read row by
 * row in table order, by the text's position, rather than from its bigram index. A bigram's posting list comes
 * whole (a bitmap) before the first row is counted: "an", in 38 % of 1M users' e-mails, took 32 ms to list, where
 * reading the users in order met 10 001 holding it after 26 500 rows (15 ms). The index costs a step per match
 * (share × rows), the walk a row read per `bound / share` rows at ~7 times a step's cost (the two measurements
 * above); they cross where share² = 7 × bound / rows: 0.26 for a 10 000 bound over 1M rows.
 */
function leadByPositionShare(bound: number, rows: number): number {
  return Math.sqrt((7 * bound) / Math.max(rows, 1));
}

/** The columns of the referenced row a reference's label reads: its template's fields, or the `r.<column>`s of its own SQL. */
function labelColumns(field: FieldDef, lang: Lang): string[] {
  const label = labelTemplateOf(field);
  if (label) return labelFields(label.template);
  return [...new Set([...labelExpression(field, lang).matchAll(/\br\.([a-z_][a-z0-9_]*)/g)].map((m) => m[1]!))];
}

/**
 * The share of each searchable field's values expected to contain the text: of a sample of its column's values
 * (`columnSample`, the statistics PostgreSQL keeps), for a reference the largest over its label's columns.
 * Both are read at most once per ten minutes, so this costs a statement at most once in ten minutes. It decides
 * only how the rows are found, never which.
 */
async function sampleShares(db: Db, def: EntityDef, searchable: readonly string[], search: string, lang: Lang): Promise<Map<string, number>> {
  const text = search.toLowerCase();
  const share = (values: string[]) => (values.length ? values.filter((v) => v.includes(text)).length / values.length : 0);
  const shares = await Promise.all(
    searchable.map(async (key) => {
      const field = def.fields[key];
      // A search expression has no column whose statistics sample it: it never leads a count.
      if (!field) return 0;
      if (field.kind !== 'reference') return share(await columnSample(db, def.table, key));
      const table = referenceTable(field);
      const samples = await Promise.all(labelColumns(field, lang).map((column) => columnSample(db, table, column)));
      return Math.max(0, ...samples.map(share));
    }),
  );
  return new Map(searchable.map((key, i) => [key, shares[i]!]));
}

/** Samples (`columnSample`) of the text columns a search of these fields reads by a trigram index, by `table.column`. */
async function samplesOf(db: Db, def: EntityDef, searchable: readonly string[]): Promise<Map<string, string[]>> {
  const columns = searchable.flatMap((key): [string, string][] => {
    const field = def.fields[key];
    if (!field) return [];
    if (field.kind !== 'reference') return field.valuesRepeat ? [] : [[def.table, key]];
    const label = labelTemplateOf(field);
    if (!label) return [];
    const { target } = label;
    return labelFields(label.template)
      .filter((f) => target.fields[f] && !target.fields[f]!.valuesRepeat)
      .map((f): [string, string] => [target.table, f]);
  });
  const values = await Promise.all(columns.map(([table, column]) => columnSample(db, table, column)));
  return new Map(columns.map(([table, column], i) => [`${table}.${column}`, values[i]!]));
}

/** The `search_terms` sources a search of these fields may read (its own fields' and its references' labels'). */
function termSourcesOf(def: EntityDef, searchable: readonly string[]): string[] {
  return searchable.flatMap((key) => {
    const field = searchedField(def, key);
    if (field.kind !== 'reference') return field.valuesRepeat ? [termSource(def.table, key)] : [];
    const label = labelTemplateOf(field);
    if (!label) return [];
    const { target } = label;
    return labelFields(label.template)
      .filter((f) => target.fields[f]?.valuesRepeat)
      .map((f) => termSource(target.table, f));
  });
}

/** A list's search in the forms its statements read it (`searchForms`). */
export interface SearchForms {
  /** Each field's contains-search, OR-ed (`false` when no field can hold the text): the planner's estimate and the few-matches way read it. */
  sql: string;
  /**
   * The same rows as a page walked in its sort order reads them (`ListPageQuery.walk`), which meets its page after
   * a few hundred rows: a reference is asked per row when no trigram index can serve the text (listing its
   * matching ids would read its whole table: 1 s for the users' names) or when more than `WALK_ARRAY_MATCHES`
   * of its records are expected to match (an array is checked id by id for every row reached).
   */
  walk: string;
  /**
   * The field expected to hold the most matches, when more than `leadAbove` (`ListPageQuery.lead`): its condition
   * alone, and the rows it does not hold.
   */
  lead?: { sql: string; not: string };
}

/**
 * A list's search over an entity's searchable fields (`t` its row), its parameters appended to `params`:
 * each field's contains-search, OR-ed; `false` when no field can hold the text. The terms of the fields
 * whose values repeat are read first, in one query (ADR 050).
 */
export async function searchClause(
  db: Db,
  def: EntityDef,
  search: string,
  lang: Lang,
  params: unknown[],
  options: { wideAbove?: number; leadAbove?: number } = {},
): Promise<string> {
  return (await searchForms(db, def, search, lang, params, options)).sql;
}

/** A list's search (`searchClause`) in each form its statements read it (`SearchForms`), with the same parameters. */
export async function searchForms(
  db: Db,
  def: EntityDef,
  search: string,
  lang: Lang,
  params: unknown[],
  /**
   * A reference matching more records than `wideAbove` is asked per row (`WIDE_REFERENCE_MATCHES`; tests lower
   * it); a field expected to hold more than `leadAbove` of the rows leads the capped count (the list's exact count's bound).
   */
  options: { wideAbove?: number; leadAbove?: number; walkArrayAbove?: number; leadReferenceUpTo?: number } = {},
): Promise<SearchForms> {
  const searchable = searchedKeys(def);
  const pattern = containsPattern(search);
  const references = searchable.filter((key) => searchedField(def, key).kind === 'reference');
  const [matched, sampled, shares, rows, referencedRows] = await Promise.all([
    matchingTerms(db, termSourcesOf(def, searchable), pattern),
    samplesOf(db, def, searchable),
    sampleShares(db, def, searchable, search, lang),
    tableRows(db, def.table),
    Promise.all(references.map((key) => tableRows(db, referenceTable(def.fields[key]!)))),
  ]);
  const wideAbove = options.wideAbove ?? WIDE_REFERENCE_MATCHES;
  // How many referenced records are expected to hold the text (the share of the sample times the referenced table's rows).
  const expected = (key: string) => (references.includes(key) ? shares.get(key)! * referencedRows[references.indexOf(key)]! : 0);
  const wide = new Set(references.filter((key) => expected(key) > wideAbove));
  // Parameters as the conditions ask for them: an unused one has no type PostgreSQL could infer. Each is
  // asked for once, whichever forms read it.
  let patternParam = '';
  let textParam = '';
  // Two characters or more without a trigram: each holds a pair of characters a bigram index can find (ADR 054).
  // Lowered here, as the LIKE's pattern is (`containsPattern`): the pairs are those of the very text the LIKE
  // looks for, so they stay a pre-filter of it where JavaScript and the database lower a letter differently
  // ('Σ' at a word's end, 'İ', any non-ASCII letter under a C locale).
  const lowered = search.toLowerCase();
  const loweredLength = [...lowered].length;
  const short = withoutTrigram(lowered) && loweredLength >= 2;
  // The lowered text itself, for the cheaper part's check and the pairs alike.
  const text = () => textParam || ((textParam = `$${params.push(lowered)}`), textParam);
  // A short text's condition on `expression` from its test (`found`): a text of two characters is its one pair,
  // so holding the pair is holding it; a longer one keeps its LIKE, first.
  const shortCondition = (expression: string, found: string) => (loweredLength === 2 ? found : `(${expression} like ${p.pattern()} and ${found})`);
  const termParams = new Map<string, string>();
  const partParams = new Map<string, string | undefined>();
  const p: SearchParams = {
    search,
    pattern: () => patternParam || ((patternParam = `$${params.push(pattern)}`), patternParam),
    terms: (source) => {
      const terms = fewTerms(matched.get(source));
      return terms && (termParams.get(source) ?? termParams.set(source, `$${params.push(terms)}`).get(source)!);
    },
    byPart: (table, column, expression) => {
      const key = `${table}.${column}:${expression}`;
      if (partParams.has(key)) return partParams.get(key);
      const part = cheapestPart(search, sampled.get(`${table}.${column}`) ?? []);
      if (!part) return partParams.set(key, undefined).get(key);
      return partParams.set(key, `(${expression} like $${params.push(`%${part}%`)} and strpos(${expression}, ${text()}) > 0)`).get(key);
    },
    byBigrams: (expression) => {
      if (!short) return undefined;
      // For two characters, the LIKE beside the pair would have the planner multiply two selectivities of one
      // condition ("ab" in 4 % of the serial numbers estimated at 0.16 %: the few-matches way, then its
      // fallback). A longer text's LIKE comes first: an index scan takes the pairs from the AND all the same.
      return shortCondition(expression, `search_bigrams(${expression}) @> search_bigrams(${text()}::text)`);
    },
  };
  // The row's own columns first: PostgreSQL tries an OR's terms in the order written, and a column's test
  // costs less than a referenced record's (a text matching the row's address needs no lookup of its bicycle).
  const ordered = [...searchable].sort((a, b) => Number(searchedField(def, a).kind === 'reference') - Number(searchedField(def, b).kind === 'reference'));
  const found = ordered.map((key) => ({ key, search: fieldSearch(def, key, lang, p) })).filter((f) => f.search !== undefined) as { key: string; search: FieldSearch }[];
  if (found.length === 0) return { sql: 'false', walk: 'false' };
  // Tested row by row (a page walked in its order, a record asked per row, the rows a count's lead leaves) a field
  // with a bigram index is read by the position of the lowered text in it: a value's pairs serve the index only,
  // and computing them costs more than finding the text, the longer the value the more (the same rows either way).
  // Every form of one search reads the same parameters (a statement cannot type one it does not read): the
  // lowered text, and for a longer text the pattern its LIKE reads first. Without a short text the forms are one.
  const byPosition: SearchParams = { ...p, byBigrams: (expression) => (short ? shortCondition(expression, `strpos(${expression}, ${text()}) > 0`) : undefined) };
  const perRow = new Map(found.map((f) => [f.key, short ? fieldSearch(def, f.key, lang, byPosition)! : f.search]));
  const or = (form: (key: string) => 'array' | 'row') =>
    `(${found.map((f) => (form(f.key) === 'row' ? searchCondition(perRow.get(f.key)!, 'row') : searchCondition(f.search, 'array'))).join(' or ')})`;
  const sql = or((key) => (wide.has(key) ? 'row' : 'array'));
  const noTrigram = withoutTrigram(search);
  const walk = or((key) => (noTrigram || wide.has(key) || expected(key) > (options.walkArrayAbove ?? WALK_ARRAY_MATCHES) ? 'row' : 'array'));
  // The field expected to hold the most rows leads the capped count when it alone should pass its bound.
  const leading = found.reduce((best, f) => (shares.get(f.key)! > shares.get(best.key)! ? f : best));
  // A reference leads from its records' side only while they are not too many to list first: an index can hand
  // them over only all at once (a bitmap), and 238 000 users holding "er" took a bicycles count 1 s, where the
  // rows read in table order, each asking its owner, reach the bound after ~40 000.
  const lead =
    options.leadAbove !== undefined &&
    found.length > 1 &&
    shares.get(leading.key)! * rows > options.leadAbove &&
    expected(leading.key) <= (options.leadReferenceUpTo ?? LEAD_REFERENCE_MATCHES)
      ? leadCondition(
          short && 'own' in leading.search && shares.get(leading.key)! > leadByPositionShare(options.leadAbove, rows) ? perRow.get(leading.key)! : leading.search,
          perRow.get(leading.key)!,
        )
      : undefined;
  return { sql, walk, ...(lead ? { lead } : {}) };
}

/** A record's SELECT in a language: its row and its references' labels and lookups. */
function selectOf(def: EntityDef, lang: Lang): string {
  return `select t.*${derivedColumns(def, lang)
    .map((l) => ', ' + l)
    .join('')} from ${def.table} t`;
}

/**
 * A list's WHERE clause (or empty) and its parameters; with a search, also as a page walked in its sort order
 * reads it, and the search's leading field with the other conditions (`SearchForms`, `ListPageQuery`).
 */
export interface ListWhere {
  sql: string;
  params: unknown[];
  walk?: string;
  lead?: { where: string; not: string };
}

/**
 * A list's filter conditions over the row `t`, as its definition declares them (`filterSpecs`), from the query
 * string; each value checked against its field and appended to `params`.
 */
export function filterConditions(def: EntityDef, query: Readonly<Record<string, unknown>>, params: unknown[], filters = filterSpecs(def)): string[] {
  return filters.flatMap((spec) => {
    if (query[spec.key] === undefined || query[spec.key] === '') return [];
    params.push(filterValue(spec.key, def.fields[spec.field]!, query[spec.key]));
    return [`t.${spec.field} ${spec.op === 'gte' ? '>=' : spec.op === 'lte' ? '<=' : '='} $${params.length}`];
  });
}

/** A list's WHERE clause from its search's forms (if searched) and its other conditions, AND-ed (`ListWhere`). */
export function listWhere(forms: SearchForms | undefined, where: readonly string[], params: unknown[]): ListWhere {
  const clause = (first?: string) => {
    const all = first ? [first, ...where] : where;
    return all.length ? ` where ${all.join(' and ')}` : '';
  };
  if (!forms) return { sql: clause(), params };
  return {
    sql: clause(forms.sql),
    params,
    ...(forms.walk !== forms.sql ? { walk: clause(forms.walk) } : {}),
    ...(forms.lead ? { lead: { where: clause(forms.lead.sql), not: forms.lead.not } } : {}),
  };
}

/**
 * The rows of an entity's export over `t`: only the exported columns, and the two timestamps already as ISO
 * text (to_char truncates to milliseconds as Date does): parsing them into Date objects was a tenth of the
 * export's CPU.
 */
export function exportSelectOf(def: EntityDef, lang: Lang): string {
  const isoText = (column: string) => `to_char(t.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`;
  const exportFields = Object.keys(def.fields).filter((k) => !def.fields[k]!.lookup);
  const derived = derivedColumns(def, lang).map((l) => ', ' + l);
  return `select t.id${exportFields.map((k) => `, t.${k}`).join('')}${derived.join('')}, ${isoText('created_at')}, ${isoText('updated_at')} from ${def.table} t`;
}

/** The shared state of an entity's routes: SQL, schemas, the owner scope and the record reader. */
function resourceOf(db: Db, config: UpstreamConfig, def: EntityDef, hooks: ResourceHooks): Resource {
  const t = def.table;
  const searchable = searchedKeys(def);
  const filters = filterSpecs(def);
  const ownerField = def.access?.ownerField;
  const selects: Record<Lang, string> = { en: selectOf(def, 'en'), sv: selectOf(def, 'sv') };
  const listParams = listParamsSchema(def);

  const readScopes = upstreamReadScopes(def);
  // A caller holding a role that reads the entity reads any record of it; one holding only a readThrough role
  // reads a record some record of theirs names (an exists over the owning entity's reference and owner columns).
  async function checkReadThrough(id: number, user: AuthUser | undefined, tx: Db = db) {
    if (!user || user.roles.some((role) => readScopes.includes(role))) return;
    const ways = (def.access?.readThrough ?? [])
      .filter((rule) => rule.roles.some((role) => user.roles.includes(role)))
      .map((rule) => {
        const through = entityByName(rule.entity)!;
        return `exists (select 1 from ${through.table} o where o.${rule.field} = t.id and o.${through.access!.ownerField} = $2)`;
      });
    const { rows } = ways.length ? await tx.query(`select 1 from ${t} t where t.id = $1 and (${ways.join(' or ')})`, [id, user.id]) : { rows: [] };
    if (rows.length === 0) throw new ApiError(404, 'not_found');
  }

  function scopeOf(user: AuthUser | undefined, firstParam: number) {
    if (!ownerField || !user || !isOwnerScoped(def, user.roles)) return { sql: '', params: [] as unknown[] };
    return { sql: `t.${ownerField} = $${firstParam}`, params: [user.id] as unknown[] };
  }

  async function fetchOne(id: number, tx: Db = db, user?: AuthUser, lock = false, lang: Lang = 'en'): Promise<EntityRecord | null> {
    const scope = scopeOf(user, 2);
    // FOR UPDATE cannot lock through the label subqueries' tables; lock the row itself first.
    if (lock) await tx.query(`select 1 from ${t} t where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''} for update`, [id, ...scope.params]);
    const { rows } = await tx.query(`${selects[lang]} where t.id = $1${scope.sql ? ` and ${scope.sql}` : ''}`, [id, ...scope.params]);
    return rows[0] ? normalizeRow(def, rows[0]) : null;
  }

  /** WHERE clause of a list, export or calendar from its query string (search, filters, owner), parameterised. */
  async function whereOf(
    query: Record<string, string>,
    search: string | undefined,
    user: AuthUser | undefined,
    lang: Lang,
    extra: { sql: string; params: unknown[] }[] = [],
  ): Promise<ListWhere> {
    const where: string[] = [];
    const params: unknown[] = [];
    const forms = search && searchable.length ? await searchForms(db, def, search, lang, params, { leadAbove: config.exactCountUpTo }) : undefined;
    where.push(...filterConditions(def, query, params, filters));
    const scope = scopeOf(user, params.length + 1);
    if (scope.sql) {
      where.push(scope.sql);
      params.push(...scope.params);
    }
    for (const clause of extra) {
      where.push(clause.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + params.length}`));
      params.push(...clause.params);
    }
    return listWhere(forms, where, params);
  }

  const filtersOf = (query: Record<string, string>) =>
    Object.fromEntries(filters.filter((s) => query[s.key] !== undefined && query[s.key] !== '').map((s) => [s.key, query[s.key]!]));

  const resource: Resource = {
    def,
    db,
    config,
    hooks,
    change: (req, change) => writeRecord(resource, req, change),
    base: `/api/${def.name}/`,
    columns: writableFields(def).map(([key]) => key),
    create: createSchema(def),
    status: statusFieldOf(def),
    read: requireAuth(config, readScopes),
    // Pure reads: their statements start beside the session check, and their answer waits for it (ADR 052).
    list: requireAuth(config, readScopes, { overlap: true }),
    readOne: requireAuth(config, [...new Set([...readScopes, ...readThroughRoles(def)])]),
    checkReadThrough,
    write: requireAuth(config, writeRoles(def, 'update')),
    selects,
    exportSelect: (lang) => exportSelectOf(def, lang),
    fetchOne,
    scopeOf,
    whereOf,
    filtersOf,
    parseList: (query) =>
      parseBody(listParams, { page: query.page, page_size: query.page_size, search: query.search, ordering: query.ordering, after: query.after, filters: filtersOf(query) }),
  };
  return resource;
}

/** GET <resource>/: a page, searched, filtered and sorted (ADR 006). */
function registerList(app: FastifyInstance, r: Resource) {
  const sortable = new Set(sortableKeys(r.def));
  app.get(r.base, { preHandler: r.list }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { page, page_size, search, ordering, after } = r.parseList(query);
    const lang = langOf(req);
    const { sql: whereSql, params, walk, lead } = await r.whereOf(query, search, req.user, lang);
    const order = ordering ?? r.def.defaultSort;
    const desc = order.startsWith('-');
    const column = order.replace(/^-/, '');
    if (!sortable.has(column)) throw new ApiError(400, 'validation_error', undefined, { ordering: 'validation.option' });
    const keyset = isKeysetColumn(r.def, column);
    const decoded = after && keyset ? decodeCursor(after) : null;
    const cursor = decoded && cursorFits(r.def, column, decoded) ? decoded : null;
    if (after && keyset && !cursor) throw new ApiError(400, 'validation_error', undefined, { after: 'validation.option' });
    // One row more than the page: whether a next page exists, whatever the count says.
    const { rows, ...counted } = await listPage<Record<string, unknown>>(r.db, {
      select: r.selects[lang],
      from: `${r.def.table} t`,
      alias: 't',
      where: whereSql,
      ...(walk ? { walk } : {}),
      ...(lead ? { lead } : {}),
      params,
      column,
      desc,
      nullable: isNullableColumn(r.def, column),
      limit: page_size + 1,
      offset: (page - 1) * page_size,
      exactUpTo: r.config.exactCountUpTo,
      after: cursor,
    });
    const paginator: Paginator = { page, page_size, count: counted.count, total_pages: Math.ceil(counted.count / page_size), has_next: rows.length > page_size };
    if (counted.estimated) paginator.estimated = true;
    if (paginator.has_next && keyset) paginator.next_after = encodeCursor(rows[page_size - 1]!, column);
    return ok(reply, { results: rows.slice(0, page_size).map((row) => normalizeRow(r.def, row)), paginator });
  });
}

/** GET <resource>/calendar/?from=&to=: every record of a date range, for calendars; bounded in days and rows. */
function registerCalendar(app: FastifyInstance, r: Resource, dateColumn: string) {
  const calendarParams = calendarParamsSchema(r.def);
  app.get(`${r.base}calendar/`, { preHandler: r.list }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { from, to } = parseBody(calendarParams, { from: query.from, to: query.to, filters: r.filtersOf(query) });
    const lang = langOf(req);
    const { sql: whereSql, params } = await r.whereOf(query, undefined, req.user, lang, [{ sql: `t.${dateColumn} between $1 and $2`, params: [from, to] }]);
    const { rows } = await r.db.query(`${r.selects[lang]}${whereSql} order by t.${dateColumn}, t.id limit ${MAX_CALENDAR_ROWS + 1}`, params);
    return ok(reply, { results: rows.slice(0, MAX_CALENDAR_ROWS).map((row) => normalizeRow(r.def, row)), truncated: rows.length > MAX_CALENDAR_ROWS });
  });
}

/**
 * Keyset pages by id: constant memory and no OFFSET cost however many rows there are. While one page is
 * written out, the next is already being read (one query ahead, never more).
 */
export async function* csvLines(db: Db, select: string, where: { sql: string; params: unknown[] }, header: string, writeRow: (row: Record<string, unknown>) => string) {
  const batch = 2000;
  yield header;
  const keyset = `${where.sql ? where.sql + ' and' : ' where'} t.id > $${where.params.length + 1}`;
  const fetchPage = (from: number) => {
    const query = db.query(`${select}${keyset} order by t.id limit ${batch}`, [...where.params, from]);
    query.catch(() => undefined); // read ahead: if the client has gone, nobody awaits it
    return query;
  };
  let next = fetchPage(0);
  for (;;) {
    const { rows: page } = await next;
    if (page.length === 0) return;
    if (page.length === batch) next = fetchPage(Number(page[page.length - 1]!.id));
    let chunk = '';
    for (const row of page) chunk += writeRow(row);
    yield chunk;
    if (page.length < batch) return;
  }
}

/** GET <resource>/export/: the list as CSV (same search and filters, every row), streamed. */
function registerExport(app: FastifyInstance, r: Resource) {
  const columnsOut = exportColumns(r.def);
  const selects: Record<Lang, string> = { en: r.exportSelect('en'), sv: r.exportSelect('sv') };
  // The database writes the cells (ADR 061); csvRowWriter is what they are held to.
  const cells = (inner: string) => copySelect(r.def, columnsOut, inner);
  app.get(`${r.base}export/`, { preHandler: r.read }, async (req, reply) => {
    const query = req.query as Record<string, string>;
    const { search } = r.parseList({ ...query, page: undefined as unknown as string, page_size: undefined as unknown as string, ordering: undefined as unknown as string });
    const lang = langOf(req);
    const where = await r.whereOf(query, search, req.user, lang);
    // Who took the data out, and which part of it: the query it was asked with.
    const asked = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== '' && v !== undefined));
    await r.db.transaction((tx) => recordRequestEvent(tx, r.config.auditKey, req, { entity: r.def.name, recordId: null, action: 'export', changes: { query: [null, asked] } }));
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeFileName(r.def.name, 'csv')}"`)
      .header('cache-control', 'no-store');
    return reply.send(Readable.from(copyCsvLines(r.db, selects[lang], where, csvRow(columnsOut), cells)));
  });
}

/** GET <resource>/<id>/: one record (another owner's is a 404). */
function registerGet(app: FastifyInstance, r: Resource) {
  app.get(`${r.base}:id/`, { preHandler: r.readOne }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    await r.checkReadThrough(id, req.user);
    const record = await r.fetchOne(id, r.db, req.user, false, langOf(req));
    if (!record) throw new ApiError(404, 'not_found');
    return ok(reply, record);
  });
}

// ---- The one write path (create, PUT, PATCH, transition: ADR 009, 032) ----

/** A caller who only writes their own records cannot write one for someone else. */
function checkOwner(def: EntityDef, user: AuthUser, input: Record<string, unknown>) {
  const ownerField = def.access?.ownerField;
  if (ownerField && isOwnerScoped(def, user.roles) && Number(input[ownerField]) !== user.id) throw new ApiError(403, 'forbidden');
}

/** The status table's check: a new record starts in an initial status; a change is a listed step for the caller. */
function checkStatus(r: Resource, user: AuthUser, previous: number | null, next: unknown) {
  if (!r.status) return;
  const [key, field] = r.status;
  if (previous === null) {
    if (!field.status.initial.includes(Number(next))) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.initialStatus' });
    return;
  }
  if (!mayTransition(field.status, previous, Number(next), user.roles)) throw new ApiError(409, 'invalid_transition', undefined, { [key]: 'validation.transition' });
}

/** Values of the status stamps (finished_at…) for a record entering `next` from `previous`. */
function stampsFor(r: Resource, previous: number | null, next: number): Record<string, 'now' | null | 'keep'> {
  if (!r.status) return {};
  const stamps = r.status[1].status.stamps ?? {};
  const stampColumns = [...new Set(Object.values(stamps))];
  return Object.fromEntries(
    stampColumns.map((column) => {
      const entering = Object.entries(stamps).some(([s, c]) => c === column && Number(s) === next);
      const already = previous !== null && Object.entries(stamps).some(([s, c]) => c === column && Number(s) === previous);
      return [column, entering ? (already ? 'keep' : 'now') : null];
    }),
  );
}

/** Column assignments of an insert or update: writable input, hook values, status stamps. */
function assignments(r: Resource, input: Record<string, unknown>, extra: Record<string, unknown>, stamps: Record<string, 'now' | null | 'keep'>) {
  const values: [string, unknown][] = [...r.columns.filter((key) => !(key in extra)).map((key): [string, unknown] => [key, input[key] ?? null]), ...Object.entries(extra)];
  const stamped = Object.entries(stamps).filter(([column, v]) => v !== 'keep' && !(column in extra));
  return { values: values.filter(([key]) => !stamped.some(([c]) => c === key)), stamped: stamped as [string, 'now' | null][] };
}

/**
 * The references and images of a write: a reference that names a role (a service's buddy) takes only active
 * users holding it, a reference to an entity with an `activeField` only active records (ADR 041), an image
 * field only files our upload endpoint stored (ADR 020); a value kept from before is left alone, so a buddy
 * who lost the role or a service type made inactive does not block edits of the records that have them.
 */
async function checkReferences(r: Resource, tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
  await checkReferenceValues(r, tx, input, current);
  for (const [key, field] of writableFields(r.def)) {
    if (field.kind === 'image' && field.uploadKind) await checkUploadedImage(tx, r.config, input[key], { field: key, kind: field.uploadKind, current: current?.[key] ?? null });
  }
}

/** The reference values among `input` (`checkReferences`): a role's holders, an active record. */
async function checkReferenceValues(r: Resource, tx: Db, input: Record<string, unknown>, current: EntityRecord | null) {
  for (const [key, field] of Object.entries(r.def.fields)) {
    if (field.kind !== 'reference' || field.lookup) continue;
    const value = input[key];
    if (value === null || value === undefined || (current && Number(current[key]) === Number(value))) continue;
    const reference = field.reference!;
    const refused = reference.role ? !(await holdsRole(tx, reference, Number(value))) : !(await isActive(tx, reference, Number(value)));
    if (refused) throw new ApiError(400, 'validation_error', undefined, { [key]: 'validation.option' });
  }
}

/** The checks and hooks every write runs once, in the write's transaction; answers the hook's extra columns. */
async function rulesOfWrite(r: Resource, input: Record<string, unknown>, ctx: WriteContext): Promise<Record<string, unknown>> {
  checkOwner(r.def, ctx.user, input);
  const previous = r.status && ctx.current ? Number(ctx.current[r.status[0]]) : null;
  if (r.status) checkStatus(r, ctx.user, previous, input[r.status[0]]);
  if (ctx.current) await r.hooks.beforeUpdate?.(ctx.current.id, input, ctx.tx);
  else await r.hooks.beforeCreate?.(input, ctx.tx);
  await checkReferences(r, ctx.tx, input, ctx.current);
  return (await r.hooks.beforeWrite?.(input, ctx)) ?? {};
}

/** The change history's entry of a write (ADR 035), in the write's transaction; a write that changed no field records nothing. */
function recordWrite(r: Resource, tx: Db, req: FastifyRequest, action: string, before: EntityRecord | null, after: EntityRecord | null) {
  return recordRequestChange(tx, r.config.auditKey, req, { entity: r.def.name, action, before, after, fields: r.def.fields, ownerField: r.def.access?.ownerField });
}

/** POST <resource>/: create. */
function registerCreate(app: FastifyInstance, r: Resource) {
  app.post(r.base, { preHandler: requireAuth(r.config, writeRoles(r.def, 'create')) }, async (req, reply) => {
    const user = req.user!;
    const input = parseBody(r.create, req.body) as Record<string, unknown>;
    try {
      const record = await r.db.transaction(async (tx) => {
        const extra = await rulesOfWrite(r, input, { tx, user, current: null, lang: langOf(req) });
        const { values, stamped } = assignments(r, input, extra, r.status ? stampsFor(r, null, Number(input[r.status[0]])) : {});
        const names = [...values.map(([k]) => k), ...stamped.map(([c]) => c)];
        const placeholders = [...values.map((_, i) => `$${i + 1}`), ...stamped.map(([, v]) => (v === 'now' ? 'now()' : 'null'))];
        const { rows } = await tx.query<{ id: number }>(
          `insert into ${r.def.table} (${names.join(', ')}) values (${placeholders.join(', ')}) returning id`,
          values.map(([, v]) => v),
        );
        const created = await r.fetchOne(Number(rows[0]!.id), tx, undefined, false, langOf(req));
        await recordWrite(r, tx, req, 'create', null, created);
        return created;
      });
      return ok(reply, record, 201);
    } catch (error) {
      mapDbError(r.def, error);
    }
  });
}

export interface RecordWrite {
  id: number;
  /** The history's name of the change: a declared action's key (default `update`, or `transition`). */
  action?: string;
  /** Whether the record, locked, may take this change (a declared action's `enabledWhen`); else 409 `action_not_allowed`. */
  allowed?: (current: EntityRecord) => boolean;
  /** The version the caller saw; a different one is 409. Only a transition may leave it out. */
  version?: number;
  /** The record's writable values after the write, from what it is now (default: as they are). */
  values?: (current: EntityRecord) => Record<string, unknown>;
  /**
   * Values a handler computes on the locked record for declared stored fields, read-only ones too (a period, a
   * cancellation time, an invitation's status): the writable ones parsed with the rest, all checked as references
   * and written in the same step. `null` changes nothing: the record is answered as it is (an idempotent action).
   */
  computed?: (current: EntityRecord, tx: Db) => Promise<Record<string, unknown> | null>;
  /** What else the change does in its transaction once the row is written (a refund paid, links revoked). */
  effects?: (tx: Db, written: EntityRecord, before: EntityRecord) => Promise<void>;
  /** The values are already parsed (PUT checks its body before looking the record up). */
  parsed?: boolean;
  /** A status change to the status the record already has writes nothing and answers it as it is. */
  statusOnly?: boolean;
  /** An Admin's override of a rule that allows one (ADR 028). */
  force?: boolean;
}

/**
 * The one path of every change to an existing record — PUT, PATCH (the dispatch board's move) and the
 * status transition alike: the row locked, the version checked, the values parsed once, the status table,
 * the entity's rules (`rulesOfWrite`, its hooks) run once, the stamps set, the row written, and the record
 * answered as it now is.
 */
export async function writeRecord(r: Resource, req: FastifyRequest, change: RecordWrite): Promise<EntityRecord | null> {
  const user = req.user!;
  try {
    return await r.db.transaction(async (tx) => {
      await r.hooks.beforeLock?.(change.id, (req.body ?? {}) as Record<string, unknown>, tx);
      const current = await r.fetchOne(change.id, tx, user, true);
      if (!current) throw new ApiError(404, 'not_found');
      if (change.version !== undefined && current.version !== change.version)
        throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
      if (change.allowed && !change.allowed(current)) throw new ApiError(409, 'action_not_allowed', 'The record does not allow this action now.');
      const computed = change.computed ? await change.computed(current, tx) : {};
      if (computed === null) return current;
      const asked = { ...(change.values ?? ((c: EntityRecord) => columnsOf(r, c)))(current), ...computed };
      const input = change.parsed ? asked : (parseBody(r.create, asked) as Record<string, unknown>);
      const previous = r.status ? Number(current[r.status[0]]) : null;
      if (change.statusOnly && r.status && previous === Number(input[r.status[0]])) return current;
      const ctx: WriteContext = { tx, user, current, force: change.force, lang: langOf(req) };
      const own = computedColumns(r, computed);
      await checkReferenceValues(r, tx, own, current);
      const extra = { ...(await rulesOfWrite(r, input, ctx)), ...own };
      await updateRow(r, tx, change.id, input, extra, previous);
      const written = (await r.fetchOne(change.id, tx, undefined, false, langOf(req)))!;
      await r.hooks.afterUpdate?.(input, written, ctx);
      await change.effects?.(tx, written, current);
      // Inside a declared action's scope the scope records the entry, under the action's name (ADR 038, 069).
      if (!inActionScopeNow()) await recordWrite(r, tx, req, change.action ?? (change.statusOnly ? 'transition' : 'update'), current, written);
      return written;
    });
  } catch (error) {
    mapDbError(r.def, error);
  }
}

/** The row's `update`: its assignments, the stamps of a status step, the version step and `updated_at`. */
async function updateRow(r: Resource, tx: Db, id: number, input: Record<string, unknown>, extra: Record<string, unknown>, previous: number | null) {
  const { values, stamped } = assignments(r, input, extra, r.status ? stampsFor(r, previous, Number(input[r.status[0]])) : {});
  const sets = [...values.map(([key], i) => `${key} = $${i + 2}`), ...stamped.map(([c, v]) => `${c} = ${v === 'now' ? 'now()' : 'null'}`)];
  await tx.query(`update ${r.def.table} set ${sets.join(', ')}, version = version + 1, updated_at = now() where id = $1`, [id, ...values.map(([, v]) => v)]);
}

/** A handler's computed values beyond the writable columns (those are parsed as input): declared stored fields only. */
function computedColumns(r: Resource, computed: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(computed)) {
    const field = r.def.fields[key];
    if (!field || field.lookup || field.secret) throw new Error(`${r.def.name}: a change computes ${key}, which is no stored field`);
    if (!r.columns.includes(key)) out[key] = value;
  }
  return out;
}

const columnsOf = (r: Resource, record: EntityRecord) => Object.fromEntries(r.columns.map((k) => [k, record[k]]));

/** PUT <resource>/<id>/ (the whole record) and PATCH (some fields), both with the version they were based on. */
function registerUpdate(app: FastifyInstance, r: Resource) {
  const versionOf = (body: unknown) => parseBody(z.object({ version: versionSchema }), body).version;
  app.put(`${r.base}:id/`, { preHandler: r.write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    const input = parseBody(r.create, req.body) as Record<string, unknown>;
    return ok(reply, await writeRecord(r, req, { id, version, parsed: true, values: () => input }));
  });
  app.patch(`${r.base}:id/`, { preHandler: r.write }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const version = versionOf(req.body);
    return ok(reply, await writeRecord(r, req, { id, version, values: (current) => ({ ...columnsOf(r, current), ...(req.body as Record<string, unknown>) }) }));
  });
}

/** POST <resource>/<id>/transition/ {to, version?, force?}: a status change, through the one write path. */
function registerTransition(app: FastifyInstance, r: Resource) {
  const [statusKey, statusField] = r.status!;
  const body = z.object({ to: z.coerce.number().int().min(0).max(1000), version: versionSchema.optional(), force: z.boolean().optional() });
  app.post(`${r.base}:id/transition/`, { preHandler: requireAuth(r.config, writeRoles(r.def, 'transition')) }, async (req, reply) => {
    const { id } = parseBody(idParam, req.params);
    const { to, version, force } = parseBody(body, req.body);
    if (!statusField.options?.includes(to)) throw new ApiError(400, 'validation_error', undefined, { to: 'validation.option' });
    // `force` sets aside a rule an Admin may set aside (the entity's rules say which, ADR 028); nobody else may send it.
    if (force && !req.user!.roles.includes('Admin')) throw new ApiError(403, 'forbidden');
    return ok(reply, await writeRecord(r, req, { id, version, statusOnly: true, force: Boolean(force), values: (current) => ({ ...columnsOf(r, current), [statusKey]: to }) }));
  });
}

/** DELETE <resource>/<id>/ (a record still referenced is 409 in_use). */
function registerDelete(app: FastifyInstance, r: Resource) {
  app.delete(`${r.base}:id/`, { preHandler: requireAuth(r.config, writeRoles(r.def, 'delete')) }, async (req, reply) => {
    const user = req.user!;
    const { id } = parseBody(idParam, req.params);
    try {
      await r.db.transaction(async (tx) => {
        const current = await r.fetchOne(id, tx, user, true);
        if (!current) throw new ApiError(404, 'not_found');
        await r.hooks.beforeDelete?.(current, { tx, user, current });
        await tx.query(`delete from ${r.def.table} where id = $1`, [id]);
        await recordWrite(r, tx, req, 'delete', current, null);
      });
    } catch (error) {
      mapDbError(r.def, error, 'delete');
    }
    return ok(reply, { id });
  });
}

/**
 * The generic REST resource of an entity (ADR 006, 009): list with paging/search/sort/filters, read,
 * create, full and partial update guarded by `version`, delete; a status transition action and a
 * calendar read when the definition has them. Reads need a role the back office reads it with (its
 * route's, or one choosing it in a form or filter: `upstreamReadScopes`); writes the roles of
 * `def.access` (Admin by default); owner-scoped entities show non-admins only their own records.
 */
export function registerEntityResource(
  app: FastifyInstance,
  db: Db,
  config: UpstreamConfig,
  def: EntityDef,
  hooks: ResourceHooks = {},
  servesOwn: readonly OwnRoute[] = [],
): EntityResource {
  checkEntitySql(def);
  const r = resourceOf(db, config, def, hooks);
  const generic = (route: OwnRoute) => !servesOwn.includes(route);
  if (generic('list')) registerList(app, r);
  if (def.calendarField) registerCalendar(app, r, def.calendarField);
  if (def.exportable) registerExport(app, r);
  if (generic('get')) registerGet(app, r);
  // Records written elsewhere in the marketplace (ADR 013): reads only.
  if (def.readOnly) return r;
  if (!def.updateOnly) registerCreate(app, r);
  if (generic('update')) registerUpdate(app, r);
  if (r.status) registerTransition(app, r);
  if (!def.updateOnly) registerDelete(app, r);
  return r;
}

/** Does the referenced record hold the reference's role (its entity's `roleHolders`)? */
async function holdsRole(tx: Db, reference: NonNullable<FieldDef['reference']>, id: number): Promise<boolean> {
  const target = entityByName(reference.entity);
  const roleHolders = sqlOf(reference.entity).roleHolders;
  if (!target || !roleHolders) throw new Error(`a reference naming a role needs the roleHolders SQL of ${reference.entity} (entity-sql-parts.ts)`);
  const { rows } = await tx.query(`select 1 from ${target.table} r where r.id = $1 and ${roleHolders}`, [id, reference.role]);
  return rows.length > 0;
}

/**
 * Is the referenced record offered (its entity's `activeField` holds)? True for an entity without one, and for
 * a record that is not there (the foreign key answers for that).
 */
async function isActive(tx: Db, reference: NonNullable<FieldDef['reference']>, id: number): Promise<boolean> {
  const target = entityByName(reference.entity);
  if (!target?.activeField) return true;
  const { rows } = await tx.query<{ active: boolean }>(`select r.${target.activeField} as active from ${target.table} r where r.id = $1`, [id]);
  return rows[0]?.active !== false;
}

// ---- An entity's own handlers, found by file name (ADR 032) ----

/** What an entity's handler file may need beyond its resource: the API's database, config and invitations. */
export interface HandlerEnv {
  db: Db;
  config: UpstreamConfig;
  invitations: Invitations;
}

export type OwnRoute = 'list' | 'get' | 'update';

export type EntityRouteHandler = (req: FastifyRequest, reply: FastifyReply, resource: EntityResource) => Promise<unknown>;

/**
 * What `upstream/resources/<entity>.ts` exports as `handlers(env)`: the hooks of its generic resource, the
 * handler of each declared action and sub-resource operation (the routes, their roles and their OpenAPI
 * entries come from the declaration), and `routes` for anything else it serves.
 */
export interface EntityHandlers {
  hooks?: ResourceHooks;
  /**
   * Generic routes the file serves itself in `routes`, at the same paths (ADR 034): the users' reads and update,
   * since their table holds credentials that the generic `select t.*` would answer with.
   */
  servesOwn?: readonly OwnRoute[];
  actions?: Record<string, EntityRouteHandler>;
  subResources?: Record<string, { list?: EntityRouteHandler; add?: EntityRouteHandler; set?: EntityRouteHandler; setMany?: EntityRouteHandler; remove?: EntityRouteHandler }>;
  routes?: (app: FastifyInstance, resource: EntityResource) => void;
}

export type EntityHandlersFactory = (env: HandlerEnv) => EntityHandlers;

/** The path parameters of a sub-resource's item route: the record and the item's key. */
export const itemParams = idParam.extend({ key: z.string().min(1).max(255) });
function handlerOf<T>(def: EntityDef, what: string, handler: T | undefined): T {
  if (!handler) throw new Error(`${def.name}: ${what} is declared but upstream/resources/${def.name}.ts has no handler for it`);
  return handler;
}

/** POST <resource>/<id>/<action>/ (or <resource>/<action>/) for every declared action, with the declared roles. */
function registerActions(app: FastifyInstance, r: EntityResource, handlers: EntityHandlers) {
  const { def, config } = r;
  for (const [key, action] of ownActions(def)) {
    if (action.sets && handlers.actions?.[key]) throw new Error(`${def.name}: action ${key} declares what it sets, so it has no handler of its own`);
    const handler = action.sets ? setsHandler(key, action) : handlerOf(def, `action ${key}`, handlers.actions?.[key]);
    const segment = segmentOf(key, action.path);
    const onRecord = isRecordAction(action);
    const url = onRecord ? `/api/${def.name}/:id/${segment}/` : `/api/${def.name}/${segment}/`;
    app.post(url, { preHandler: requireAuth(config, actionRoles(def, action)) }, (req, reply) =>
      audited(r, req, key, onRecord, askedOf(action.input, req.body), async () => {
        if (onRecord && !action.sets) await checkActionVersion(r, req, action);
        return handler(req, reply, r);
      }),
    );
  }
  for (const key of Object.keys(handlers.actions ?? {})) if (!def.actions?.[key]) throw new Error(`${def.name}: a handler for undeclared action ${key}`);
}

const actionVersion = z.object({ version: versionSchema.optional() });

/** The version a record action's body carries, if any (checked again on the locked row by `change`). */
export const actionVersionOf = (req: FastifyRequest): number | undefined => parseBody(actionVersion, req.body ?? {}).version;

/**
 * The version a record action was sent, checked before its handler runs (ADR 069): a stale one is 409, as for an
 * edit; a `versioned` action without one is 400. (A `sets` action checks it on the locked row, in the write path.)
 */
async function checkActionVersion(r: EntityResource, req: FastifyRequest, action: ActionDef) {
  const { version } = parseBody(actionVersion, req.body ?? {});
  if (version === undefined) {
    if (action.versioned) throw new ApiError(400, 'validation_error', undefined, { version: 'validation.required' });
    return;
  }
  const current = await r.fetchOne(parseBody(idParam, req.params).id, r.db, req.user);
  if (!current) throw new ApiError(404, 'not_found');
  if (current.version !== version) throw new ApiError(409, 'conflict', 'The record was changed by someone else.', { version: String(current.version) });
}

/**
 * The handler of a `sets` action (ADR 069): its declared input parsed, the values it sets merged into the record
 * as it is, through the one write path under the action's name, `enabledWhen` checked on the locked row.
 */
function setsHandler(key: string, action: ActionDef): EntityRouteHandler {
  const body = inputFieldsSchema(action.input).extend({ version: versionSchema.optional() });
  return async (req, reply, r) => {
    const { id } = parseBody(idParam, req.params);
    const { version, ...input } = parseBody(body, req.body ?? {}) as Record<string, unknown> & { version?: number };
    if (action.versioned && version === undefined) throw new ApiError(400, 'validation_error', undefined, { version: 'validation.required' });
    const sets = action.sets === 'input' ? input : action.sets!;
    const saved = await r.change(req, {
      id,
      version,
      action: key,
      allowed: action.enabledWhen ? (current) => action.enabledWhen!(current, input) : undefined,
      values: (current) => ({ ...Object.fromEntries(writableFields(r.def).map(([k]) => [k, current[k]])), ...sets }),
    });
    return ok(reply, saved);
  };
}

/**
 * Runs a declared action's or sub-resource write's handler in its history scope (ADR 038): every transaction
 * it opens on the resource's database records the entry of what it changed, before its commit. An entity's own
 * routes (`routes`: a checklist row's images) write through it too (ADR 058).
 */
export function audited(r: EntityResource, req: FastifyRequest, action: string, onRecord: boolean, asked: Changes, run: () => Promise<unknown>) {
  const id = onRecord ? Number((req.params as { id?: string }).id) : NaN;
  return inActionScope(
    {
      req,
      entity: r.def.name,
      recordId: Number.isSafeInteger(id) && id > 0 ? id : null,
      action,
      fields: r.def.fields,
      ownerField: r.def.access?.ownerField,
      asked,
      read: (recordId, tx) => r.fetchOne(recordId, tx),
    },
    run,
  );
}

/** The declared input values of a body, never a secret one. */
function askedValues(input: Readonly<Record<string, FieldDef>> | undefined, body: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(askedOf(input, body)).map(([name, [, value]]) => [name, value]));
}

/** The items a `setMany` body asks to set, each with its declared input values (for its history entry). */
function askedItems(sub: SubResourceDef, body: unknown): Record<string, unknown>[] {
  const items = (body as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items.map((item) => ({ key: (item as { key?: unknown } | null)?.key ?? null, ...askedValues(sub.set, item) })) : [];
}

/** GET (and the declared POST, PUT, PUT :key, DELETE :key) of every sub-resource under <resource>/<id>/<path>/. */
function registerSubResources(app: FastifyInstance, r: EntityResource, handlers: EntityHandlers) {
  const { def, config } = r;
  for (const [key, sub] of Object.entries(def.subResources ?? {})) {
    const own = handlers.subResources?.[key] ?? {};
    const at = `/api/${def.name}/:id/${segmentOf(key, sub.path)}/`;
    // Roles of its own, or whoever reads the record: the entity's readers and, for records they reach, its readThrough roles.
    const reader = sub.readRoles ? requireAuth(config, sub.readRoles) : r.readOne;
    const writer = requireAuth(config, subResourceWriteRoles(def, sub));
    const list = handlerOf(def, `${key}.list`, own.list);
    app.get(at, { preHandler: reader }, async (req, reply) => {
      if (!sub.readRoles) await r.checkReadThrough(parseBody(idParam, req.params).id, req.user);
      return list(req, reply, r);
    });
    // The item added, set or removed is what was asked: `{<sub-resource>: [before, after]}` in its history entry.
    const itemKey = (req: FastifyRequest) => (req.params as { key?: string }).key ?? null;
    if (sub.add) {
      const add = handlerOf(def, `${key}.add`, own.add);
      app.post(at, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.add`, true, { [key]: [null, askedValues(sub.add, req.body)] }, () => add(req, reply, r)));
    }
    if (sub.set) {
      const set = handlerOf(def, `${key}.set`, own.set);
      app.put(`${at}:key/`, { preHandler: writer }, (req, reply) =>
        audited(r, req, `${key}.set`, true, { [key]: [null, { key: itemKey(req), ...askedValues(sub.set, req.body) }] }, () => set(req, reply, r)),
      );
    }
    if (sub.setMany) {
      // Many items at once, in one transaction of the handler's (ADR 043); the history entry lists them all.
      const setMany = handlerOf(def, `${key}.setMany`, own.setMany);
      app.put(at, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.setMany`, true, { [key]: [null, askedItems(sub, req.body)] }, () => setMany(req, reply, r)));
    }
    if (sub.remove) {
      const remove = handlerOf(def, `${key}.remove`, own.remove);
      app.delete(`${at}:key/`, { preHandler: writer }, (req, reply) => audited(r, req, `${key}.remove`, true, { [key]: [itemKey(req), null] }, () => remove(req, reply, r)));
    }
  }
  for (const key of Object.keys(handlers.subResources ?? {})) if (!def.subResources?.[key]) throw new Error(`${def.name}: handlers for undeclared sub-resource ${key}`);
}

/** One entity: its generic resource with its hooks, its declared actions and sub-resources, and its own routes. */
export function registerEntity(app: FastifyInstance, env: HandlerEnv, def: EntityDef, factory?: EntityHandlersFactory) {
  const handlers = factory?.(env) ?? {};
  const resource = registerEntityResource(app, env.db, env.config, def, handlers.hooks, handlers.servesOwn);
  registerActions(app, resource, handlers);
  registerSubResources(app, resource, handlers);
  handlers.routes?.(app, resource);
}
