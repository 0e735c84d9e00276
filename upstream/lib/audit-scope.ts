import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';
import type { FieldDef } from '../../shared/entity/define.ts';
import type { Db } from '../db.ts';
import { diff, ownersOf, recordRequestEvent, type Changes } from './audit.ts';

/**
 * The history of declared actions and sub-resource writes (ADR 038). Their handlers are the entity's own code
 * and open their own transactions, so the engine does not hand them one: it runs each such request inside a
 * scope, and the database the handlers were given (`auditedDb`) appends the entry to every transaction opened
 * inside that scope, just before its commit. Neither the entry nor the change exists without the other, and
 * no handler has to remember to record anything.
 */
export interface ActionScope {
  req: FastifyRequest;
  entity: string;
  /** The record the request is about (`:id`), or null for an action on the collection (an invitation). */
  recordId: number | null;
  /** `<action key>`, or `<sub-resource>.<add|set|remove>`. */
  action: string;
  /** The definition's `access.ownerField`: the record's owners go with the entry, for live updates (ADR 037). */
  ownerField?: string;
  /** The entity's declared fields: the record's before and after are compared on these only. */
  fields: Record<string, FieldDef>;
  /** What the request asked for, as `{name: [before, after]}`: the declared input, the item added or removed. */
  asked: Changes;
  /** Reads the record (declared fields and more; only declared, non-secret ones are kept) inside `tx`. */
  read: (id: number, tx: Db) => Promise<Record<string, unknown> | null>;
  /** Entries this request has written so far. */
  entries: number;
}

const scopes = new AsyncLocalStorage<ActionScope>();

/** Runs a declared action's or sub-resource write's handler inside its history scope. */
export function inActionScope<T>(scope: Omit<ActionScope, 'entries'>, run: () => T): T {
  return scopes.run({ ...scope, entries: 0 }, run);
}

/**
 * Runs `run` outside any action scope: its transactions record no scope entry. For a handler that writes its own
 * entry, one that must carry no record values (a person's erasure and export, ADR 076).
 */
export function outsideActionScope<T>(run: () => T): T {
  return scopes.exit(run);
}

/**
 * Whether this request runs in an action scope: its transactions' entries are the scope's, so the write path
 * (`writeRecord`) records none of its own (ADR 069).
 */
export function inActionScopeNow(): boolean {
  return scopes.getStore() !== undefined;
}

/**
 * `db` whose transactions, when opened by a handler running in an action scope, end with the scope's entry:
 * the record's declared fields that the transaction changed, and (on the request's first entry) what was asked.
 * A later transaction of the same request that changed no declared field records nothing; the first always
 * records, since the action itself is the fact (a resent invitation changes no field). Outside a scope the
 * transaction is the plain one.
 */
export function auditedDb(db: Db, key: string): Db {
  return {
    ...db,
    query: (sql, params, options) => db.query(sql, params, options),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
    transaction: <T>(fn: (tx: Db) => Promise<T>) => {
      const scope = scopes.getStore();
      if (!scope) return db.transaction(fn);
      return db.transaction(async (tx) => {
        const before = scope.recordId === null ? null : await scope.read(scope.recordId, tx);
        const result = await fn(tx);
        const after = scope.recordId === null ? null : await scope.read(scope.recordId, tx);
        await recordScopeEntry(tx, key, scope, before, after);
        return result;
      });
    },
  };
}

async function recordScopeEntry(tx: Db, key: string, scope: ActionScope, before: Record<string, unknown> | null, after: Record<string, unknown> | null) {
  // A record the transaction removed or created is compared with nothing on that side.
  const changes = before || after ? diff(before, after, scope.fields) : {};
  if (scope.entries === 0) for (const [name, change] of Object.entries(scope.asked)) if (!(name in changes)) changes[name] = change;
  if (scope.entries > 0 && Object.keys(changes).length === 0) return;
  scope.entries++;
  await recordRequestEvent(tx, key, scope.req, {
    entity: scope.entity,
    recordId: scope.recordId,
    action: scope.action,
    changes,
    owners: scope.ownerField ? ownersOf(before, after, scope.ownerField) : null,
  });
}

/**
 * What a request asked for, as history changes: the declared input fields it sent (`[null, value]`), never a
 * secret one. Values are kept as sent, after the route's own parsing has accepted them.
 */
export function askedOf(input: Readonly<Record<string, FieldDef>> | undefined, body: unknown): Changes {
  const asked: Changes = {};
  if (!input || !body || typeof body !== 'object') return asked;
  for (const [name, field] of Object.entries(input)) {
    const value = (body as Record<string, unknown>)[name];
    if (field.secret || value === undefined) continue;
    asked[name] = [null, value];
  }
  return asked;
}
