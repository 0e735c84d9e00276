import type { AppPath, SidebarDeclaration } from '../app-route.ts';
import type { Role } from '../roles.ts';
import type { CrossFieldCheck, EntityAccess, FieldDef, LocationFields, ScopeRole, SearchExpression, UniqueGroup } from './define-fields.ts';
import { labelFields } from './define-labels.ts';

// ---- The definition (ADR 006, 031, 032): an entity, its actions, sub-resources, history and screens ----

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
  /**
   * With `confirm`: the dialog's Yes is enabled only once the record's value of this field is typed (an erasure
   * asks for the person's e-mail): a step that cannot be undone is not taken by a reflex click.
   */
  confirmTyped?: string;
  /** Whether the button is offered for a record (the API decides anyway); with variants, asked per variant's input. */
  enabledWhen?: (record: Record<string, unknown>, input?: Readonly<Record<string, unknown>>) => boolean;
  /**
   * What the API answers: the record as it now is (default: caches are set from it), an object holding
   * the record under `recordKey` beside other results (a refund), nothing the screens keep, or a file
   * (`{file: {name, type, content}}`: a person's data) the browser saves.
   */
  result?: 'record' | { recordKey: string } | 'none' | 'file';
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
   * hours and minutes, `{service_date|date}` writes a date in the app's date format (issue 33). The screens format it with `labelOf`, the API's SQL with `labelSql` (one spelling).
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
  /**
   * Its records are people (users): their `personal` fields go into the change history sealed under each
   * person's own key, so erasing the person (ADR 076) leaves their history entries verifiable and unreadable.
   */
  person?: boolean;
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
  /** A sidebar entry: its group, position (ascending within the group) and octicon (a name of client/components/sprite-icon-names.ts). */
  sidebar?: SidebarDeclaration;
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
