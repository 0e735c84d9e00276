import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { labelOf, type EntityDef } from '../../shared/entity/define.ts';
import { entityScreenRoutes } from '../../shared/entity/screen-routes.ts';
import { APP_ROUTES } from '../../shared/route-table.ts';
import { entityTableSql } from '../../upstream/resources/entity-sql.ts';

/**
 * `npm run new:entity` (scripts/new-entity.ts, ADR 031), run with `--root` on a copy of the files it reads
 * and writes: a plain entity is its definition, its registry line, its labels and its migration.
 */
const root = join(import.meta.dirname, '..', '..');
const copy = mkdtempSync(join(tmpdir(), 'new-entity-'));
for (const path of ['shared/entities', 'shared/entity', 'shared/format.ts', 'shared/route-table.ts', 'client/components/sprite-icon-names.ts', 'locales', 'upstream/migrations']) {
  cpSync(join(root, path), join(copy, path), { recursive: true });
}
afterAll(() => rmSync(copy, { recursive: true, force: true }));

// The numbers the generator picks next: one past the highest committed migration.
const lastMigration = Math.max(
  ...readdirSync(join(root, 'upstream/migrations'))
    .map((f) => Number.parseInt(f, 10))
    .filter(Number.isFinite),
);
const nextMigration = (offset: number, name: string) => `upstream/migrations/${String(lastMigration + offset).padStart(3, '0')}-${name}.sql`;

const run = (...args: string[]) => spawnSync(process.execPath, [join(root, 'scripts', 'new-entity.ts'), ...args, '--root', copy], { encoding: 'utf8' });
const json = (path: string) => JSON.parse(readFileSync(join(copy, path), 'utf8')) as Record<string, Record<string, unknown>>;

// Each run starts Node (type stripping, the definitions): seconds on a busy machine.
describe('new:entity', { timeout: 60_000 }, () => {
  const first = run('lockers', '--fields', 'name:text,address:text,active:boolean');

  it('writes the definition, the registry line, the labels in both languages and the migration', () => {
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    for (const file of ['shared/entities/lockers.ts', 'shared/entities/registry.ts', 'locales/en/resources.json', 'locales/sv/common.json', nextMigration(1, 'lockers')]) {
      expect(first.stdout).toContain(file);
    }
    const registry = readFileSync(join(copy, 'shared/entities/registry.ts'), 'utf8');
    expect(registry).toContain("import { lockersEntity } from './lockers.ts';");
    expect(registry).toMatch(/ {2}lockersEntity,\n\] as const satisfies/);
    for (const lang of ['en', 'sv']) {
      expect(json(`locales/${lang}/resources.json`).lockers, lang).toMatchObject({
        name: 'Lockers',
        one: 'locker',
        fields: { name: expect.any(String), address: expect.any(String), active: expect.any(String) },
      });
      expect(json(`locales/${lang}/common.json`).routes!.lockers, lang).toBe('Lockers');
    }
    expect(json('locales/sv/resources.json').lockers!.fields).toEqual({ name: 'Namn', address: 'Adress', active: 'Aktiv' });
  });

  it('defines a plain entity with a screen whose routes, sidebar entry and table follow from it', async () => {
    const { lockersEntity: def } = (await import(join(copy, 'shared/entities/lockers.ts'))) as { lockersEntity: EntityDef };
    expect(def).toMatchObject({ name: 'lockers', table: 'lockers', route: '/lockers', defaultSort: 'name' });
    expect(Object.keys(def.fields)).toEqual(['name', 'address', 'active']);
    expect(def.fields.name).toMatchObject({ kind: 'text', required: true, searchable: true, sortable: true, list: true });
    expect(labelOf(def, { name: 'Spokes & Co' })).toBe('Spokes & Co');
    const routes = entityScreenRoutes([def]);
    expect(routes).toEqual([
      {
        path: '/lockers',
        titleKey: 'routes.lockers',
        roles: ['Admin'],
        sidebar: { group: 'catalogues', order: expect.any(Number), icon: 'package' },
        screen: { entity: 'lockers', kind: 'list' },
      },
    ]);
    // After the last entry of the sidebar, whatever it is today.
    const orders = APP_ROUTES.flatMap((route) => (route.sidebar ? [route.sidebar.order] : []));
    expect(routes[0]!.sidebar!.order).toBeGreaterThan(Math.max(...orders));
    const migration = readFileSync(join(copy, nextMigration(1, 'lockers')), 'utf8');
    expect(migration).toContain(entityTableSql(def));
    expect(migration).toContain('active boolean not null default false,');
  });

  it('refuses a name that exists, and names that are not plural kebab-case', () => {
    const again = run('lockers');
    expect(again.status).toBe(1);
    expect(again.stderr).toBe('new-entity: refused: an entity named "lockers" exists (shared/entities/lockers.ts); pick another name\n');
    expect(run('bicycle-types').stderr).toContain('exists');
    expect(run('Repair_Kits').stderr).toContain('plural kebab-case');
    expect(run('kits', '--fields', 'colour:enum').stderr).toContain('references and choices are added by hand');
    expect(run('kits', '--icon', 'no-such-icon').stderr).toContain('sprite-icon-names.ts');
  });

  it('adds a record page, its title and another sidebar position on request', async () => {
    const result = run('repair-kits', '--fields', 'label:text,price:money!', '--detail', '--icon', 'tools', '--sidebar', '195', '--roles', 'Admin,Buddy');
    expect(result.stderr).toBe('');
    const { repairKitsEntity: def } = (await import(join(copy, 'shared/entities/repair-kits.ts'))) as { repairKitsEntity: EntityDef };
    expect(def.screen).toEqual({ list: '/repair-kits', detail: '/repair-kits/:id', roles: ['Admin', 'Buddy'], sidebar: { group: 'catalogues', order: 195, icon: 'tools' } });
    expect(def.fields.price).toMatchObject({ kind: 'money', required: true });
    expect(json('locales/en/common.json').routes).toMatchObject({ repairKits: 'Repair kits', repairKitsDetail: 'Repair kit' });
    expect(readFileSync(join(copy, nextMigration(2, 'repair-kits')), 'utf8')).toContain(entityTableSql(def));
  });
});
