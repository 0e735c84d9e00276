import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import type { Db } from '../../upstream/db.ts';
import { openMigrated } from '../support/pglite-template.ts';
import { entityTableSql } from '../../upstream/resources/entity-sql.ts';
import { migrationsDir } from '../../upstream/migrate.ts';

/**
 * Tables whose definition changed after their generated migration: a later, hand-written migration
 * brought the table to the definition, so the generated text no longer appears verbatim. The schema
 * test below checks them (and every other table) against the definition instead.
 */
const ALTERED_LATER: Record<string, string> = {
  services: '076 (service type became a reference to the catalogue), 077 (rating), 087 (route position)',
  'service-items': '085 (required items, ADR 043), 090',
  // 090: the sort indexes carry the boolean list filters (ADR 052).
  'service-slots': '090 (sort indexes cover the boolean filters, ADR 052)',
  'service-types': '090',
  products: '090',
  bicycles: '090',
  'buddy-work-slots': '090',
  'subscription-plans': '090',
  subscriptions: '090',
};

/**
 * Tables older than the engine, written by hand: they hold columns no definition declares (a user's
 * password hash and session version), so only the declared columns are compared (ADR 034).
 */
const HAND_WRITTEN: Record<string, string> = {
  users: '001 and later: credentials, sessions and e-mail confirmation beside the declared fields',
};

describe('entity tables', () => {
  const migrations = readdirSync(migrationsDir())
    .filter((f) => f.endsWith('.sql'))
    .map((f) => readFileSync(join(migrationsDir(), f), 'utf8'))
    .join('\n');

  it.each(ENTITIES.filter((e) => !(e.name in ALTERED_LATER) && !(e.name in HAND_WRITTEN)).map((e) => [e.name, e] as const))(
    '%s: the committed migration matches its definition',
    (_name, def) => {
      expect(migrations).toContain(entityTableSql(def));
    },
  );

  it('indexes what lists sort and search by', () => {
    const sql = entityTableSql(ENTITIES.find((e) => e.name === 'promo-codes')!);
    expect(sql).toContain('create unique index promo_codes_code_key on promo_codes (lower(code));');
    expect(sql).toContain('create index promo_codes_starts_at_idx on promo_codes (starts_at, id);');
    expect(sql).toContain('uses integer not null default 0');
  });

  it('carries the boolean list filters in the sort indexes (ADR 052)', () => {
    const bicycles = entityTableSql(ENTITIES.find((e) => e.name === 'bicycles')!);
    expect(bicycles).toContain('create index bicycles_serial_number_idx on bicycles (serial_number, id) include (is_active);');
    // The boolean's own sort index does not repeat it; an entity without a boolean filter has plain sort indexes.
    expect(bicycles).toContain('create index bicycles_is_active_idx on bicycles (is_active, id);');
    expect(entityTableSql(ENTITIES.find((e) => e.name === 'promo-codes')!)).not.toContain('include');
  });
});

interface TableShape {
  columns: string[];
  foreignKeys: string[];
  indexes: string[];
}

async function shapeOf(db: Db, schema: string, table: string): Promise<TableShape> {
  const { rows: columns } = await db.query<{ c: string }>(
    `select column_name || ' ' || data_type || coalesce('(' || numeric_precision || ',' || numeric_scale || ')', '') || case when is_nullable = 'NO' then ' not null' else '' end as c
       from information_schema.columns where table_schema = $1 and table_name = $2 order by column_name`,
    [schema, table],
  );
  const { rows: keys } = await db.query<{ k: string }>(
    `select a.attname || ' -> ' || target.relname || ' on delete ' || c.confdeltype::text as k
       from pg_constraint c
       join pg_class own on own.oid = c.conrelid join pg_namespace n on n.oid = own.relnamespace
       join pg_class target on target.oid = c.confrelid
       join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and n.nspname = $1 and own.relname = $2 order by 1`,
    [schema, table],
  );
  const { rows: indexes } = await db.query<{ d: string }>('select indexdef as d from pg_indexes where schemaname = $1 and tablename = $2 order by indexname', [schema, table]);
  return { columns: columns.map((r) => r.c), foreignKeys: keys.map((r) => r.k), indexes: indexes.map((r) => r.d.replace(`ON ${schema}.`, 'ON ')) };
}

/**
 * What the migrations build is what the definitions describe, for every entity — including tables a later
 * migration altered: the migrated tables are compared with the definitions' own tables, generated beside
 * them in a schema of their own (references to tables that are not entities, such as users, resolve to
 * the migrated ones).
 */
describe('migrated schema', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openMigrated();
    await db.exec('create schema generated; set search_path = generated, public;');
    for (const def of ENTITIES as readonly EntityDef[]) await db.exec(entityTableSql(def));
    await db.exec('set search_path = public;');
  }, 60_000);
  afterAll(async () => db?.close());

  it.each(ENTITIES.map((e) => [e.name, e] as const))('%s: the migrated table has the columns, references and indexes of its definition', async (_name, def) => {
    const migrated = await shapeOf(db, 'public', def.table);
    const generated = await shapeOf(db, 'generated', def.table);
    if (def.name in HAND_WRITTEN) return expect(migrated.columns).toEqual(expect.arrayContaining(generated.columns));
    expect(migrated.columns).toEqual(generated.columns);
    // Later migrations add constraints and indexes of their own (a booking's service, searches); the
    // definition's must all be there.
    expect(migrated.foreignKeys).toEqual(expect.arrayContaining(generated.foreignKeys));
    expect(migrated.indexes).toEqual(expect.arrayContaining(generated.indexes));
  });
});
