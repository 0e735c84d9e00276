import type { Role } from '../roles.ts';
import type { UploadKind } from '../upload-kinds.ts';

// ---- Fields (ADR 006): what a definition's fields, status flows, access rules and checks declare ----

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
   * A person's own value (a name, an e-mail, a phone number, an address) of an entity whose records are people
   * (`person`): written into the change history sealed under that person's key, unreadable once they are erased
   * (crypto-shredding, ADR 076).
   */
  personal?: boolean;
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
