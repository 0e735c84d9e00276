import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { entityTableSql } from '../../upstream/resources/entity-sql.ts';
import { migrationsDir } from '../../upstream/migrate.ts';

describe('entity tables', () => {
  const migrations = readdirSync(migrationsDir())
    .filter((f) => f.endsWith('.sql'))
    .map((f) => readFileSync(join(migrationsDir(), f), 'utf8'))
    .join('\n');

  it.each(ENTITIES.map((e) => [e.name, e] as const))('%s: the committed migration matches its definition', (_name, def) => {
    expect(migrations).toContain(entityTableSql(def));
  });

  it('indexes what lists sort and search by', () => {
    const sql = entityTableSql(ENTITIES.find((e) => e.name === 'promo-codes')!);
    expect(sql).toContain('create unique index promo_codes_code_key on promo_codes (lower(code));');
    expect(sql).toContain('create index promo_codes_starts_at_idx on promo_codes (starts_at, id);');
    expect(sql).toContain('uses integer not null default 0');
  });
});
