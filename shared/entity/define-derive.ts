import type { FieldDef, ScopeRole, StatusFlow } from './define-fields.ts';
import type { ActionDef, EntityDef, SubResourceDef } from './define-entity.ts';

// ---- Derived from a definition: pages and records, lists and filters, access, actions ----

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

export interface Paginator {
  page: number;
  page_size: number;
  /** Exact, or — with `estimated` — the database's estimate of a count past the exact threshold (ADR 040). */
  count: number;
  total_pages: number;
  /** The count is the planner's estimate: shown as "about …", never as exact. */
  estimated?: boolean;
  /** A next page exists (known from the page's own rows, whatever the count). */
  has_next?: boolean;
  /**
   * Where the next page starts (its `after`), when the list's order allows keyset paging (ADR 051): the
   * next page is then read from there rather than by skipping the rows before it.
   */
  next_after?: string;
}

export interface Paged<T> {
  results: T[];
  paginator: Paginator;
}

/**
 * Is a due date field's value past on `today` (YYYY-MM-DD, the viewer's date as the screens compute it)? A date
 * before today is overdue, today itself not; an empty value, a field without `due` and a record its `unless`
 * excuses are not (ADR 041).
 */
export function isOverdue(field: FieldDef, value: unknown, record: Record<string, unknown>, today: string): boolean {
  if (!field.due || typeof value !== 'string' || !DATE_PATTERN.test(value.slice(0, 10))) return false;
  if (field.due !== true && field.due.unless(record)) return false;
  return value.slice(0, 10) < today;
}

/** YYYY-MM-DD, as date fields and date filters accept it. */
export const DATE_PATTERN = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/** A real calendar date as YYYY-MM-DD (not 2026-02-31, which the pattern alone lets through). */
export function isIsoDate(value: string): boolean {
  if (!DATE_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/**
 * The years a date may fall in. PostgreSQL has no year 0 (`0000-01-01` is an error there, not a date), and
 * nothing this business records lies before 1900 or after 2200: such a value is a typing mistake.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;

export function isYearInRange(value: string): boolean {
  const year = Number(value.slice(0, 4));
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

export function writableFields(def: EntityDef): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([, field]) => !field.readOnly && !field.lookup);
}

/** The scope roles that read some records of an entity through records they own (`access.readThrough`, ADR 044). */
export function readThroughRoles(def: EntityDef): ScopeRole[] {
  return [...new Set((def.access?.readThrough ?? []).flatMap((rule) => rule.roles))];
}

/** Fields that are columns of the entity's table (lookups are read through their reference). */
export function storedFields(def: EntityDef): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([, field]) => !field.lookup);
}

/** True when the entity has no screen at its own route (embedded lists, sub-collections). */
export function isEmbedded(def: EntityDef): boolean {
  return Boolean(def.embedded || def.parent);
}

export function sortableKeys(def: EntityDef): string[] {
  const meta = (def.metaColumns ?? []).filter((k) => k !== 'id');
  return [
    'id',
    ...meta,
    ...Object.entries(def.fields)
      .filter(([, f]) => f.sortable && !f.lookup)
      .map(([k]) => k),
  ];
}

export interface FilterSpec {
  /** The query parameter: the field name, or `<field>_from` / `<field>_to` for ranges. */
  key: string;
  field: string;
  op: 'eq' | 'gte' | 'lte';
}

export function filterSpecs(def: EntityDef): FilterSpec[] {
  return Object.entries(def.fields).flatMap(([name, f]): FilterSpec[] =>
    f.filter === 'range'
      ? [
          { key: `${name}_from`, field: name, op: 'gte' },
          { key: `${name}_to`, field: name, op: 'lte' },
        ]
      : f.filter
        ? [{ key: name, field: name, op: 'eq' }]
        : [],
  );
}

/** Every query parameter a list accepts as a filter. */
export function filterKeys(def: EntityDef): string[] {
  return filterSpecs(def).map((s) => s.key);
}

/** How many choices a reference's choice list holds; more are reached by filtering. */
export const OPTIONS_LIMIT = 100;

/**
 * A reference's choice list: the first OPTIONS_LIMIT records matching `search`, plus the record `include`
 * names (the value already chosen) wherever it would sort, so a form never shows a set value as empty.
 */
export interface ChoiceOption {
  id: number;
  label: string;
  /** The record is inactive (its entity's `activeField`): offered only as the value a record already has. */
  inactive?: boolean;
}

export type ListParams = {
  page: number;
  page_size: number;
  search?: string;
  ordering?: string;
  /** The page follows the row of this cursor (the previous page's `next_after`). */
  after?: string;
  filters: Record<string, string | number | boolean | undefined>;
};

export type EntityRecord = { id: number; version: number; created_at: string; updated_at: string } & Record<string, unknown>;

/** Calendar queries: every record of a date range (at most `MAX_CALENDAR_DAYS` days), filtered like lists. */
export const MAX_CALENDAR_DAYS = 62;
export const MAX_CALENDAR_ROWS = 2000;

export type CalendarParams = { from: string; to: string; filters: Record<string, string | number | boolean | undefined> };

// ---- Access (ADR 009): the same answers for the upstream, the tRPC routers and the screens ----

export type WriteAction = 'create' | 'update' | 'delete' | 'transition';

/** Scope roles allowed to perform a write; Admin when the definition says nothing. */
export function writeRoles(def: EntityDef, action: WriteAction): readonly ScopeRole[] {
  const access = def.access ?? {};
  if (def.updateOnly && (action === 'create' || action === 'delete')) return [];
  if (action === 'transition') return access.transition ?? access.update ?? ['Admin'];
  return access[action] ?? ['Admin'];
}

export function mayWrite(def: EntityDef, action: WriteAction, roles: readonly string[]): boolean {
  return writeRoles(def, action).some((role) => roles.includes(role));
}

/** True when the caller only sees and writes their own records. */
export function isOwnerScoped(def: EntityDef, roles: readonly string[]): boolean {
  return Boolean(def.access?.ownerField) && !roles.includes('Admin');
}

export function statusFieldOf(def: EntityDef): [string, FieldDef & { status: StatusFlow }] | undefined {
  const entry = Object.entries(def.fields).find(([, f]) => f.status);
  return entry as [string, FieldDef & { status: StatusFlow }] | undefined;
}

/** Statuses reachable from `from` by a caller holding `roles` (never includes `from` itself). */
export function nextStatuses(flow: StatusFlow, from: number, roles: readonly string[]): number[] {
  return flow.transitions.filter((t) => t.from === from && (!t.roles || t.roles.some((r) => roles.includes(r)))).map((t) => t.to);
}

export function isFinalStatus(flow: StatusFlow, status: number): boolean {
  return !flow.transitions.some((t) => t.from === status);
}

export function mayTransition(flow: StatusFlow, from: number, to: number, roles: readonly string[]): boolean {
  return from === to || nextStatuses(flow, from, roles).includes(to);
}

// ---- Derived actions (ADR 032) ----

/** tRPC router key of an entity (`trpc.<key>.<action>`): `bicycle-types` → `bicycleTypes`. */
export function routerKey(def: Pick<EntityDef, 'name'>): string {
  return def.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The kebab-case URL segment of an action or sub-resource key. */
export function segmentOf(key: string, declared?: string): string {
  return declared ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The status flow's own action: `transition` to a status the flow allows from the record's, with the
 * version the caller saw; stamps are set by the API on entering a stamped status. An Admin may `override`
 * a rule the flow's API checks beyond the table (finishing before the service date).
 */
export function transitionActionOf(def: EntityDef): ActionDef | undefined {
  const status = statusFieldOf(def);
  if (!status) return undefined;
  return {
    roles: writeRoles(def, 'transition'),
    versioned: true,
    input: { to: { kind: 'integer', required: true, min: 0, max: 1000 }, force: { kind: 'boolean' } },
    enabledWhen: (record) => !isFinalStatus(status[1].status, Number(record[status[0]])),
  };
}

/**
 * Every action of an entity: the declared ones and, for a status field, `transition` (a declared
 * `transition` adds to the derived one: its override, say).
 */
export function actionsOf(def: EntityDef): Record<string, ActionDef> {
  const { transition: declared, ...others } = def.actions ?? {};
  const derived = transitionActionOf(def);
  return { ...(derived ? { transition: { ...derived, ...declared } } : {}), ...others };
}

/**
 * The actions with handlers of their own (REST routes, OpenAPI entries, metrics templates): the declared ones
 * but the status flow's `transition`, which the generic resource serves (a declaration only adds its override).
 */
export function ownActions(def: EntityDef): [string, ActionDef][] {
  return Object.entries(def.actions ?? {}).filter(([key]) => !(key === 'transition' && statusFieldOf(def)));
}

/**
 * The record actions a list row draws as buttons (ADR 069): those declared `inList`, and every one of an entity
 * whose records have no page of their own (edited in the list's dialog), so a declared action always has a button.
 */
export function rowActionKeys(def: EntityDef): string[] {
  return Object.entries(actionsOf(def))
    .filter(([, action]) => isRecordAction(action) && action.button !== false && (action.inList || !def.detailRoute))
    .map(([key]) => key);
}

/** Scope roles allowed to run an action: its own, else the entity's update roles. */
export function actionRoles(def: EntityDef, action: ActionDef): readonly ScopeRole[] {
  return action.roles ?? writeRoles(def, 'update');
}

/** The record an action runs on, or none (collection actions). */
export function isRecordAction(action: ActionDef): boolean {
  return (action.on ?? 'record') === 'record';
}

/** Scope roles allowed to add, set or remove items of a sub-resource: its own, else the entity's update roles. */
export function subResourceWriteRoles(def: EntityDef, sub: SubResourceDef): readonly ScopeRole[] {
  return sub.writeRoles ?? writeRoles(def, 'update');
}

/** Most items one `setMany` request may set. */
export const SET_MANY_MAX = 100;

/** The item key's name in `PUT`/`DELETE` paths of a sub-resource. */
export function subResourceKey(sub: SubResourceDef): string {
  return sub.key ?? 'id';
}
