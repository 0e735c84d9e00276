import type { AppPath } from '../app-route.ts';
import type { Role } from '../roles.ts';
import type { UploadKind } from '../upload-kinds.ts';

/**
 * One declarative definition per entity (ADR 006). From it come: the zod schemas (record, create,
 * update, list params: schemas.ts), the tRPC CRUD router, the upstream REST resource with its SQL table,
 * and the generic list / form screens, labelled by i18n keys `resources.<name>.*`. This module is plain
 * data and functions without zod, so a list screen loads a definition without the validation library.
 */
export type FieldKind = 'text' | 'email' | 'phone' | 'url' | 'image' | 'integer' | 'decimal' | 'money' | 'boolean' | 'date' | 'time' | 'datetime' | 'enum' | 'reference';

export interface FieldDef {
  kind: FieldKind;
  required?: boolean;
  /** Strings: maximum length. Numbers: maximum value. */
  max?: number;
  /** Numbers: minimum value. */
  min?: number;
  multiline?: boolean;
  /** Unique (case-insensitive for text); a duplicate is refused with `<entity>.<field>_exists`. */
  unique?: boolean;
  searchable?: boolean;
  /**
   * A searchable single-line text whose values repeat across many rows (a model, a street address, an
   * insurer): searched through its distinct values, kept in `search_terms` by a trigger, and a b-tree on
   * `lower(<field>)` (ADR 050), both created by a migration. Same rows as the trigram search, without
   * reading a common trigram's posting list over the whole table.
   */
  valuesRepeat?: boolean;
  /**
   * A text searched by its trigram index whose contains-search of a text too short for a trigram ("zq": two
   * characters or more, no run of three letters or digits) is read through a GIN index on
   * `search_bigrams(lower(<field>))`, created by a migration (ADR 054): same rows, without reading every value.
   */
  shortSearch?: boolean;
  sortable?: boolean;
  /**
   * Offered as a list filter: `true` matches one value (`?<field>=value`); `'range'` (dates, numbers)
   * matches from/to bounds (`?<field>_from=&<field>_to=`), both inclusive.
   */
  filter?: boolean | 'range';
  /** Accepted as a list filter by the API but not offered in the filter bar (related lists use it). */
  filterHidden?: boolean;
  /** Shown as a list column. */
  list?: boolean;
  /** Kept by the upstream (counters, computed values): never accepted from input. */
  readOnly?: boolean;
  default?: string | number | boolean | null;
  options?: readonly (string | number)[];
  reference?: {
    entity: string;
    /**
     * A shorter label than the referenced entity's own (a slot by its name alone), as a template like
     * `EntityDef.label`; without it the reference reads as the entity's label.
     */
    label?: string;
    /**
     * Reads as the referenced entity's SQL label (its `referenceLabel`, upstream/resources/entity-sql-parts.ts, ADR 072:
     * a person's name) instead of `label`.
     */
    sqlLabel?: boolean;
    /**
     * That SQL label has a GIN index
     * on `search_bigrams(lower(<label>))` for texts too short for a trigram (as `shortSearch`, ADR 054).
     */
    labelShortSearch?: boolean;
    /** Choices and accepted values are records holding this role, as the referenced entity's `roleHolders` SQL says (a service's buddy). */
    role?: string;
  };
  /** Decimal places kept for `decimal` fields (default 2); coordinates keep 7 (about 1 cm). */
  scale?: number;
  /** The message of a missing required value, when the generic 'This field is required' says too little. */
  requiredMessage?: string;
  /** The field is the record's status: display colours and the allowed transitions (ADR 009). */
  status?: StatusFlow;
  currency?: 'sek' | 'gbp';
  uploadKind?: UploadKind;
  /** Field that must not be shown in lists or forms (kept for the upstream). */
  hidden?: boolean;
  /**
   * Read through a reference instead of stored: the `column` of the record that the reference field
   * `via` points to (a booking's event status). No table column; never accepted from input.
   */
  lookup?: { via: string; column: string };
  /** Money whose currency is another field of the same record (`'sek' | 'gbp'`), not fixed. */
  currencyField?: string;
  /** Action and sub-resource input only: a list of at most this many values of the field's kind (an invitation's roles). */
  many?: number;
  /** A secret (a password, a key): never written to the change history, not even that it changed (ADR 035). */
  secret?: boolean;
  /**
   * A date something is due by (an asset's next inspection): once it has passed — the day itself is not late
   * yet — the list cell and the record page flag it as overdue (ADR 041), unless `unless` says the record needs
   * it no more (a retired asset). Dates only.
   */
  due?: true | { unless: (record: Record<string, unknown>) => boolean };
}

/** A searched text that is not a column (`EntityDef.searchExpressions`); its SQL is the server's (ADR 072). */
export interface SearchExpression {
  valuesRepeat?: boolean;
  shortSearch?: boolean;
}

/** Primer label variants a status value is shown in. */
export type StatusColor = 'attention' | 'accent' | 'severe' | 'success' | 'danger' | 'done' | 'secondary';

/** Upstream role names (the token scope), which write rules name. */
export type ScopeRole = 'Admin' | 'Buddy' | 'Shop';

export interface StatusTransition {
  from: number;
  to: number;
  /** Who may take this step; default: everyone allowed to change the status. */
  roles?: readonly ScopeRole[];
}

/**
 * A status with colours and a transition table. Records are created in one of `initial`; a change of
 * status must be a listed transition open to one of the caller's roles; a status that no transition
 * leaves is final. `stamps` names read-only datetime fields set to now() on entering a status.
 */
export interface StatusFlow {
  colors: Readonly<Record<number, StatusColor>>;
  initial: readonly number[];
  transitions: readonly StatusTransition[];
  stamps?: Readonly<Record<number, string>>;
}

/**
 * Who may do what (ADR 009). Reads follow the route's roles; writes default to Admin.
 * With `ownerField`, a caller without Admin sees and writes only records whose `ownerField`
 * holds their own user id; the upstream enforces it, the screens follow it.
 */
export interface EntityAccess {
  create?: readonly ScopeRole[];
  update?: readonly ScopeRole[];
  delete?: readonly ScopeRole[];
  /** Changing the status through the transition action; default: the update roles. */
  transition?: readonly ScopeRole[];
  ownerField?: string;
  /**
   * Roles that read the entity from another screen than its own and outside any reference field (the
   * users list's role filter reads the roles catalogue): added to who may read it, here and upstream.
   */
  alsoReadBy?: readonly Role[];
  /**
   * Who reads one record — and its sub-resources — without reading the entity (ADR 044): a caller holding one
   * of `roles` reads a record that a record of `entity` they own (its `access.ownerField`) references through
   * `field` (a buddy reads the bicycle of a service assigned to them, and its history). Lists, calendars, choice
   * lists and exports stay closed to them; any other record is a 404, as another owner's is.
   */
  readThrough?: readonly ReadThrough[];
}

/** A read rule of `EntityAccess.readThrough`: through an owned record of `entity` whose `field` names this one. */
export interface ReadThrough {
  entity: string;
  field: string;
  roles: readonly ScopeRole[];
}

/** Several fields that are unique together; a duplicate is refused with `message` on the last field. */
export interface UniqueGroup {
  name: string;
  fields: readonly string[];
  message: string;
}

/** A place: an address and its point, edited together on a map (ADR 011). */
export interface LocationFields {
  address: string;
  latitude: string;
  longitude: string;
  /** The point must lie within the operation range (§5, §9). */
  withinOperationRange?: boolean;
}

export interface CrossFieldCheck {
  /** True when the values are acceptable. Missing values are for `required` to report. */
  test: (values: Record<string, unknown>) => boolean;
  message: string;
  path: string;
}

// ---- Actions and sub-resources (issue 18, ADR 032): declared in the definition, derived by every layer ----

/** The input of an action or sub-resource, described like fields (schemas.ts builds the zod object from it). */
export type InputFields = Readonly<Record<string, FieldDef>>;

/**
 * A named operation beyond create/update/delete. From the declaration come the tRPC mutation
 * (`trpc.<entity>.<key>`), the REST route (`POST <name>/:id/<path>/`, or `POST <name>/<path>/` on the
 * collection), its OpenAPI entry, and its button in `<RecordActions>`; only the upstream handler is written
 * by hand (`upstream/resources/<name>.ts` exports `actions.<key>`).
 */
export interface ActionDef {
  /** Who may run it; default: the entity's update roles. */
  roles?: readonly ScopeRole[];
  /** On one record (default) or on the collection (an invitation creates the record). */
  on?: 'record' | 'collection';
  /** URL segment; default: the key in kebab-case. */
  path?: string;
  /** Input beyond the record's id. */
  input?: InputFields;
  /**
   * The caller must send the version it saw. Any record action that is sent a version refuses a stale one with
   * 409 (the screens always send it, ADR 069); `versioned` makes leaving it out a 400 too.
   */
  versioned?: boolean;
  /**
   * The action is a change of the record's fields and nothing more (ADR 069): the engine runs it through the one
   * write path — the row locked, the version checked, the entity's rules and reference checks, the version step,
   * the history entry under the action's name and its live notice — and no handler is written. A fixed set of
   * values (`{is_active: true}`), or `'input'`: the action's declared input fields, set under the same names.
   * `enabledWhen` is checked by the API too, on the locked record (409 `action_not_allowed`).
   */
  sets?: Readonly<Record<string, unknown>> | 'input';
  /**
   * Asks before running, with `resources.<name>.actions.<key>.confirm` (the record's fields interpolated;
   * `title` beside it when the dialog has one). The button says `label`, and `done` or `failed` follow.
   */
  confirm?: boolean;
  /** Drawn and confirmed as a destructive step. */
  danger?: boolean;
  /** Whether the button is offered for a record (the API decides anyway); with variants, asked per variant's input. */
  enabledWhen?: (record: Record<string, unknown>, input?: Readonly<Record<string, unknown>>) => boolean;
  /**
   * What the API answers: the record as it now is (default: caches are set from it), an object holding
   * the record under `recordKey` beside other results (a refund), or nothing the screens keep.
   */
  result?: 'record' | { recordKey: string } | 'none';
  /** Shown in lists' rows as well as on the record page (the generic list draws it, `rowActionKeys`). */
  inList?: boolean;
  /** No button: the screen runs it from a control of its own (a user's operational range is a select). */
  button?: false;
  /**
   * The i18next context of the action's texts for a record, when the record decides it (activating a
   * subscription told to end is "resume"; resending a canceled invitation is "reopen"); default: the variant or
   * the target status.
   */
  textContext?: (record: Record<string, unknown>) => string | undefined;
  /**
   * Buttons that run the action with a fixed input, each with its texts in the variant's i18next context
   * (`resources.<name>.actions.<key>.label_<variant>`, `confirm_<variant>`…: cancel now, cancel at the
   * period's end); without them the action is one button.
   */
  variants?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * A refusal some callers may override after saying so (an Admin finishing a service before its date): when
   * the API answers `code`, a viewer holding one of `roles` is asked (`resources.<name>.actions.<key>.override`,
   * `overrideTitle`) and the action runs again with `input` added; anyone else reads the refusal.
   */
  override?: { code: string; roles: readonly ScopeRole[]; input: Readonly<Record<string, unknown>> };
}

/**
 * Records that belong to one record and are read (and, when declared, added, set or removed) under it:
 * `GET <name>/:id/<path>/`, `POST` to add, `PUT <path>/:key/` to set one, `DELETE <path>/:key/` to remove one,
 * and with `setMany` `PUT <path>/` to set many at once (ADR 043).
 */
export interface SubResourceDef {
  /** URL segment; default: the key in kebab-case. */
  path?: string;
  /** Fields of an item as read. */
  item: InputFields;
  /** The item's key in `PUT`/`DELETE` paths; default `id`. */
  key?: string;
  /** Input of adding an item. */
  add?: InputFields;
  /** Input of setting the item at a key (upsert). */
  set?: InputFields;
  /**
   * Sets many items at their keys in one request and one transaction (`PUT <path>/` with
   * `{items: [{key, ...set}]}`): all are written or none (a checklist saved as one form, ADR 043). Needs `set`.
   */
  setMany?: boolean;
  remove?: boolean;
  /** Read page by page (`?page=&page_size=`), newest first. */
  paged?: boolean;
  /** Who may read it; default: the roles of the entity's detail route (else its list route). */
  readRoles?: readonly ScopeRole[];
  /** Who may add, set or remove; default: the entity's update roles. */
  writeRoles?: readonly ScopeRole[];
}

export interface EntityDef<F extends Record<string, FieldDef> = Record<string, FieldDef>> {
  /** Plural resource name: REST path `<name>/`, tRPC router key, i18n `resources.<name>`. */
  name: string;
  /**
   * The §2 route whose roles guard every procedure of the entity: `screen.list` when the entity has
   * screens of its own (set by defineEntity), else the route of the screen that shows it (ADR 031).
   */
  route: AppPath;
  /** `screen.detail`, set by defineEntity: the record's own page (`/companies/:id`). */
  detailRoute?: AppPath;
  table: string;
  fields: F;
  defaultSort: string;
  checks?: readonly CrossFieldCheck[];
  /**
   * A record's text in choice lists, titles and other records' references, as a template over its fields:
   * `'{brand_and_model} ({serial_number})'`; `{name_{lang}}` follows the language, `{start_time|hm}` keeps
   * hours and minutes. The screens format it with `labelOf`, the API's SQL with `labelSql` (one spelling).
   */
  label: string;
  /**
   * Texts a list's search reads beside the searchable fields that no one column holds (a person's full name, over
   * two): SQL over the row `t` as stored (the search lowers it), written on the server (`ENTITY_SQL`,
   * upstream/resources/entity-sql-parts.ts, ADR 072). Each is searched as a searchable single-line text
   * field would be, with the same declarations for its indexes, which a migration creates on `lower(<sql>)`:
   * `valuesRepeat` (its terms in `search_terms` under `<table>.<key>` and a b-tree) and `shortSearch` (a bigram
   * index). ADR 056.
   */
  searchExpressions?: Readonly<Record<string, SearchExpression>>;
  /** Offers a streamed CSV export of the list (same search and filters). */
  exportable?: boolean;
  access?: EntityAccess;
  unique?: readonly UniqueGroup[];
  /** A date field: the API serves every record in a date range (`calendar/?from=&to=`) for calendars. */
  calendarField?: string;
  location?: LocationFields;
  /**
   * Records are written by other parts of the marketplace (bookings, subscriptions): the REST
   * resource, the tRPC router and the screens offer reading only (plus any extra actions).
   */
  readOnly?: boolean;
  /**
   * Records are created and removed by the entity's own actions or elsewhere (a user comes by invitation and
   * is deactivated, never deleted): no create or delete route, procedure or button; reads and update stay.
   */
  updateOnly?: boolean;
  /**
   * No screen of its own at `route` (which then only lends its roles): the list is embedded in
   * another screen (the subscriptions tab of /users).
   */
  embedded?: boolean;
  /**
   * A sub-collection: every record belongs to one record of `entity` through the reference `field`,
   * and is listed and edited on that record's detail page (an event's slots). Implies `embedded`.
   */
  parent?: { entity: string; field: string };
  /** i18n keys of the success toasts, instead of the generic `form.created|saved|deleted` (`{{name}}` available). */
  messages?: { created?: string; saved?: string; deleted?: string };
  /**
   * A boolean field saying whether the record is still offered (a catalogue entry made inactive rather than
   * deleted, ADR 041): choice lists for a new value leave inactive records out, and the API refuses one as a
   * newly chosen reference (`validation.option`); a record keeping the inactive one it has stays valid and
   * shows it. It must be a list filter (`filter: true`), which the choice list asks with.
   */
  activeField?: string;
  /** Record columns beside the fields that the list shows and sorts by (`id` first, `created_at` last). */
  metaColumns?: readonly ('id' | 'created_at')[];
  /** Operations beyond CRUD (ADR 032); a status field adds its `transition` action by itself (`actionsOf`). */
  actions?: Readonly<Record<string, ActionDef>>;
  /** Collections under each record (ADR 032). */
  subResources?: Readonly<Record<string, SubResourceDef>>;
  /** The entity's own screens (ADR 031); absent for entities shown inside another screen. */
  screen?: EntityScreen;
  /** How its history entries read beyond its fields, sub-resources and actions' input (ADR 065). */
  history?: EntityHistory;
}

/**
 * What a history entry of an entity may carry besides its fields, sub-resources' items and actions' input
 * (ADR 065): the fields of the events the API records itself (an account's sign-in method, the address a failed
 * sign-in tried), labelled `resources.<name>.historyFields.<field>`, and per action the field whose value words
 * the action itself (`sign_in` with `method`: "Signed in with password", i18next context) instead of a line.
 */
export interface EntityHistory {
  fields?: InputFields;
  context?: Readonly<Record<string, string>>;
}

// ---- Screens (ADR 031): the definition declares its routes; the route table, router and sidebar derive ----

/**
 * The screens of an entity: its routes with their roles, its sidebar entry, and the page modules that
 * render them (the generic list and record screens unless `pages` names a custom one). Titles are
 * `routes.<camelName>` (list) and `routes.<camelName>Detail` (record) of common.json (`screenTitleKeys`).
 */
export interface EntityScreen {
  /** The list screen's route; its roles guard every procedure of the entity. */
  list: AppPath;
  /** The record's page (`/bicycles/:id`); without it records open in a dialog of the list. */
  detail?: AppPath;
  /** Who may open the screens (and call the entity's procedures). */
  roles: readonly Role[];
  /** Who may open the record's page and read one record, when fewer than `roles` (the users list is also a BuddyShop's; a user's page an Admin's). */
  detailRoles?: readonly Role[];
  /** A sidebar entry: its position (ascending) and octicon (a name of client/components/sprite-icon-names.ts). */
  sidebar?: { order: number; icon: string };
  /** Custom page modules (`client/pages/<name>-page.tsx`, default export) instead of the generic screens. */
  pages?: { list?: `client/pages/${string}-page.tsx`; detail?: `client/pages/${string}-page.tsx` };
}

/** camelCase of a kebab-case name: tRPC router keys, title keys (`bicycle-types` → `bicycleTypes`). */
export function camelName(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The i18n keys of an entity's screen titles (common.json `routes`, a first-load group). */
export function screenTitleKeys(name: string): { list: string; detail: string } {
  return { list: `routes.${camelName(name)}`, detail: `routes.${camelName(name)}Detail` };
}

/**
 * A definition as `defineEntity` returns it: an `EntityDef` whose name, actions, sub-resources, read-only
 * flag and calendar field keep their literal types, so the derived tRPC router is typed per entity
 * (`trpc.bicycles.images.list`, no `create` on a read-only entity).
 */
export type DefinedEntity<
  N extends string = string,
  F extends Record<string, FieldDef> = Record<string, FieldDef>,
  A extends Record<string, ActionDef> = Record<string, ActionDef>,
  S extends Record<string, SubResourceDef> = Record<string, SubResourceDef>,
  RO extends boolean = boolean,
  CF extends string = string,
  UO extends boolean = boolean,
> = Omit<EntityDef<F>, 'name' | 'actions' | 'subResources' | 'readOnly' | 'calendarField' | 'updateOnly'> & {
  name: N;
  actions?: A;
  subResources?: S;
  readOnly?: RO;
  calendarField?: CF;
  updateOnly?: UO;
};

export function defineEntity<
  const N extends string,
  const F extends Record<string, FieldDef>,
  const A extends Record<string, ActionDef> = Record<never, never>,
  const S extends Record<string, SubResourceDef> = Record<never, never>,
  const RO extends boolean = false,
  const CF extends string = never,
  const UO extends boolean = false,
>(
  input: Omit<EntityDef<F>, 'name' | 'route' | 'actions' | 'subResources' | 'readOnly' | 'calendarField' | 'updateOnly' | 'table' | 'defaultSort'> & {
    name: N;
    /** Default: the name in snake_case (`bicycle-types` → `bicycle_types`). */
    table?: string;
    /** Default: the first field the label names, ascending (`'{name}'` → `name`). */
    defaultSort?: string;
    actions?: A & Record<string, ActionDef>;
    subResources?: S & Record<string, SubResourceDef>;
    readOnly?: RO;
    calendarField?: CF;
    updateOnly?: UO;
  } & ({ screen: EntityScreen; route?: AppPath } | { route: AppPath }),
): DefinedEntity<N, F, A, S, RO, CF, UO> {
  const defaultSort = input.defaultSort ?? labelFields(input.label).find((key) => input.fields[key]?.sortable);
  if (!defaultSort) throw new Error(`${input.name}: declare defaultSort (no sortable field in the label)`);
  const withDefaults = { ...input, table: input.table ?? input.name.replace(/-/g, '_'), defaultSort };
  const def = input.screen ? { ...withDefaults, route: input.screen.list, detailRoute: input.screen.detail } : { ...withDefaults, route: input.route! };
  return def as DefinedEntity<N, F, A, S, RO, CF, UO>;
}

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

// ---- Types derived from declarations (the typed tRPC router; zod builds the same shapes at run time) ----

/** The TypeScript value of a field as input: a list of them with `many`. */
export type FieldValue<D> = D extends { many: number } ? OneValue<D>[] : OneValue<D>;
type OneValue<D> = D extends { kind: 'enum'; options: readonly (infer O)[] }
  ? O
  : D extends { kind: 'boolean' }
    ? boolean
    : D extends { kind: 'integer' | 'reference' | 'decimal' | 'money' }
      ? number
      : string;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The input object that InputFields describe: required fields required, the others optional (null clears). */
export type InputOf<I> = Simplify<
  { [K in keyof I as I[K] extends { required: true } ? K : never]: FieldValue<I[K]> } & {
    [K in keyof I as I[K] extends { required: true } ? never : K]?: FieldValue<I[K]> | null;
  }
>;

/**
 * A sub-resource item as read: its declared fields, null unless declared `required` (always present), and
 * beside each reference its `<field>_label` as records have them.
 */
export type ItemOf<I> = Simplify<
  { [K in keyof I]: I[K] extends { required: true } ? FieldValue<I[K]> : FieldValue<I[K]> | null } & {
    [K in keyof I as I[K] extends { kind: 'reference' } ? `${K & string}_label` : never]: string | null;
  }
>;

/** Whether a definition has a status field (and so the `transition` action). */
export type HasStatus<D> = D extends { fields: infer F } ? ({ [K in keyof F]: F[K] extends { status: StatusFlow } ? K : never }[keyof F] extends never ? false : true) : false;

/** The transition action's declaration as a type (`transitionActionOf` builds its value). */
export interface TransitionActionType {
  versioned: true;
  input: { to: { kind: 'integer'; required: true }; override: { kind: 'boolean' } };
}

/** Every action of a definition, as types: the declared ones and `transition` for a status field. */
export type ActionsOfType<D> = (D extends { actions?: infer A } ? (unknown extends A ? Record<never, never> : NonNullable<A>) : Record<never, never>) &
  (HasStatus<D> extends true ? { transition: TransitionActionType } : Record<never, never>);

/** The sub-resources of a definition, as types. */
export type SubResourcesOfType<D> = D extends { subResources?: infer S } ? (unknown extends S ? Record<never, never> : NonNullable<S>) : Record<never, never>;

// ---- Labels (issue 18): one template, formatted in JS and in SQL ----

type LabelPart = { text: string } | { field: string; format?: 'hm' };

function labelParts(template: string, lang: string): LabelPart[] {
  const parts: LabelPart[] = [];
  const pattern = /\{([a-z][a-z0-9_]*)(?:\|(hm))?\}/g;
  const source = template.replaceAll('{lang}', lang);
  let at = 0;
  for (const match of source.matchAll(pattern)) {
    if (match.index > at) parts.push({ text: source.slice(at, match.index) });
    parts.push({ field: match[1]!, ...(match[2] ? { format: match[2] as 'hm' } : {}) });
    at = match.index + match[0].length;
  }
  if (at < source.length) parts.push({ text: source.slice(at) });
  return parts;
}

/**
 * The fields a contains-search of a label may be split into (ADR 050): `lower(<label>) like '%text%'` holds
 * exactly when one field's `lower(<field>) like '%text%'` does, if the text cannot meet the template's own
 * text. That is so when each piece of the template's text holds a character other than white space and the
 * search holds none of those characters, nor white space at either end: a match reaching into a piece would
 * then hold only white space of it, at the match's start or end. Undefined when the label cannot be split
 * (a formatted part, or a search that could meet the template's text); the caller also needs every field
 * not null, as a NULL part makes the whole label NULL.
 */
export function labelSearchFields(template: string, search: string, lang = 'en'): string[] | undefined {
  if (search.trim() !== search || search === '') return undefined;
  const parts = labelParts(template, lang);
  const fields: string[] = [];
  const lowered = search.toLowerCase();
  for (const part of parts) {
    if ('field' in part) {
      if (part.format) return undefined;
      fields.push(part.field);
      continue;
    }
    const own = [...part.text.toLowerCase()].filter((c) => !/\s/.test(c));
    if (own.length === 0 || own.some((c) => lowered.includes(c))) return undefined;
  }
  return fields;
}

/** The fields a label template reads (for checks: each must be a field, a `<reference>_label` or `id`). */
export function labelFields(template: string): string[] {
  return labelParts(template, 'en').flatMap((p) => ('field' in p ? [p.field] : []));
}

/** A record's label in `lang` (en by default), trimmed: what lists, titles and choice lists show. */
export function labelOf(def: Pick<EntityDef, 'label'>, record: Record<string, unknown>, lang = 'en'): string {
  return labelParts(def.label, lang)
    .map((p) => {
      if ('text' in p) return p.text;
      const value = String(record[p.field] ?? '');
      return p.format === 'hm' ? value.slice(0, 5) : value;
    })
    .join('')
    .trim();
}

/**
 * The same label as SQL over the row `alias` (`r.brand_and_model || ' (' || r.serial_number || ')'`): the
 * expression the API selects as a reference's `<field>_label`, searches by, and migrations index. Only stored
 * columns can be read so; a template naming another record's label is for screens only.
 */
export function labelSql(template: string, alias: string, lang = 'en'): string {
  return labelParts(template, lang)
    .map((p) => {
      if ('text' in p) return `'${p.text.replace(/'/g, "''")}'`;
      if (p.field.endsWith('_label')) throw new Error(`label ${template}: ${p.field} is not a column`);
      return p.format === 'hm' ? `to_char(${alias}.${p.field}, 'HH24:MI')` : `${alias}.${p.field}`;
    })
    .join(' || ');
}
