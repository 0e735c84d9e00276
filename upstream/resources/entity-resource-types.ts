import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { EntityDef, EntityRecord, statusFieldOf } from '../../shared/entity/define.ts';
import type { createSchema, listParamsSchema } from '../../shared/entity/schemas.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import type { requireAuth, AuthUser } from '../lib/auth.ts';
import type { Lang } from '../lib/lang.ts';

// The engine's types: what a write knows, an entity's rules, and the resource its handlers get.

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
export interface Resource extends EntityResource {
  hooks: ResourceHooks;
  base: string;
  columns: string[];
  create: ReturnType<typeof createSchema>;
  status: ReturnType<typeof statusFieldOf>;
  selects: Record<Lang, string>;
  exportSelect: (lang: Lang) => string;
  whereOf(query: Record<string, string>, search: string | undefined, user: AuthUser | undefined, lang: Lang, extra?: { sql: string; params: unknown[] }[]): Promise<ListWhere>;
  parseList(query: Readonly<Record<string, string | undefined>>): z.output<ReturnType<typeof listParamsSchema>>;
  /** The guard of the list and the calendar: `read`, with the session check overlapping the handler's reads (ADR 052). */
  list: ReturnType<typeof requireAuth>;
  filtersOf(query: Readonly<Record<string, string | undefined>>): Record<string, string>;
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

/** Generic routes an entity's handler file serves itself (`EntityHandlers.servesOwn`). */
export type OwnRoute = 'list' | 'get' | 'update';
