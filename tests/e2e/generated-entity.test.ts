import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18's test of the design: a plain entity is its definition, one registry line, its en/sv labels and its
 * migration — all four written by `npm run new:entity` — and nothing else. In a copy of the repository, the
 * generator adds "workshops", the app is built, and a browser drives its list, create, edit and delete
 * (tests/support/generated-entity-driver.ts) through the derived route, sidebar, screens, tRPC router and REST
 * resource.
 */
const root = join(import.meta.dirname, '..', '..');
const copy = mkdtempSync(join(tmpdir(), 'generated-entity-'));
const node = (args: string[], timeout: number) => spawnSync(process.execPath, args, { cwd: copy, encoding: 'utf8', timeout, env: { ...process.env, NODE_ENV: 'production' } });
let seen: Record<string, unknown> = {};
let generated: ReturnType<typeof node>;

beforeAll(() => {
  for (const path of ['client', 'server', 'shared', 'upstream', 'locales', 'scripts', 'tests/support', 'package.json', 'tsconfig.json', 'vite.config.ts']) {
    cpSync(join(root, path), join(copy, path), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  generated = node([join(copy, 'scripts', 'new-entity.ts'), 'workshops', '--fields', 'name:text,address:text,active:boolean', '--root', copy], 60_000);
  if (generated.status !== 0) return;
  const vite = join(copy, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const args of [['build'], ['build', '--mode', 'public'], ['build', '--ssr']]) {
    const build = node([vite, ...args], 300_000);
    if (build.status !== 0) throw new Error(`vite ${args.join(' ')} failed:\n${build.stderr}`);
  }
  const driver = node([join(copy, 'tests', 'support', 'generated-entity-driver.ts')], 240_000);
  const line = driver.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  seen = line ? (JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>) : { error: `no result:\n${driver.stdout}\n${driver.stderr}` };
}, 900_000);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('a generated entity works end to end', () => {
  it('is written by the generator alone: definition, registry line, labels, migration', () => {
    expect(generated.status, generated.stderr).toBe(0);
    for (const file of ['shared/entities/workshops.ts', 'shared/entities/registry.ts', 'locales/en/resources.json', 'locales/sv/resources.json', 'upstream/migrations/']) {
      expect(generated.stdout).toContain(file);
    }
  });

  it('is listed, created, edited and deleted in the browser through the derived screens, router and API', () => {
    expect(seen.error).toBeUndefined();
    expect(seen.heading).toBe('Workshops');
    expect(seen.afterCreate).toEqual(['Spokes & Co']);
    expect(seen.afterEdit).toEqual(['Spokes and Sons']);
    expect(seen.stored).toEqual([{ name: 'Spokes and Sons', address: 'Sveavägen 1' }]);
    expect(seen.afterDelete).toEqual([]);
    expect(seen.storedAfterDelete).toBe(0);
  });
});
