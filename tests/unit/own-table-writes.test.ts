import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';

/**
 * A declared action is a change of the record (ADR 069, 073): no entity's handler file writes `update <its own
 * table> set` — its changes go through the one write path (`resource.change`), where the version step, the
 * history entry and the live notice are the engine's. Other tables (a role's holders' session version) are theirs.
 */
const dir = join(import.meta.dirname, '../../upstream/resources');

/** `update <table> set` statements of a source text, by table. */
function ownTableWrites(source: string, table: string): string[] {
  return [...source.matchAll(new RegExp(`update\\s+${table}\\s+set\\b[^'\`"]*`, 'gi'))].map((m) => m[0]);
}

describe('entity handler files', () => {
  const files = ENTITIES.flatMap((def) => {
    const file = `${def.name}.ts`;
    return readdirSync(dir).includes(file) ? [[file, def.table] as const] : [];
  });

  it('are found for the entities with handlers of their own', () => {
    expect(files.map(([file]) => file)).toEqual(expect.arrayContaining(['users.ts', 'subscriptions.ts', 'bicycles.ts', 'services.ts']));
  });

  it.each(files)('%s writes no `update <own table> set`', (file, table) => {
    expect(ownTableWrites(readFileSync(join(dir, file), 'utf8'), table)).toEqual([]);
  });

  it('finds such a statement where there is one', () => {
    expect(ownTableWrites("await tx.query('update users set invitation_status = $2 where id = $1')", 'users')).toHaveLength(1);
    expect(ownTableWrites('`UPDATE  subscriptions\n SET status = 1`', 'subscriptions')).toHaveLength(1);
    expect(ownTableWrites("'update users set session_version = 1'", 'roles')).toEqual([]);
  });
});
