import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 18's test of the design: a plain entity is its definition, one registry line, its en/sv labels and its
 * migration — all four written by `npm run new:entity` — and nothing else; an action that sets a field is its
 * declaration and its texts (issue 34, ADR 069). In a copy of the repository, the generator adds "lockers" (not
 * the README's example, which a real entity may take) with a record page, the test declares two actions, the app
 * is built, and a browser drives its list, create, edit, actions and delete
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
  generated = node([join(copy, 'scripts', 'new-entity.ts'), 'lockers', '--fields', 'name:text,address:text,active:boolean', '--detail', '--root', copy], 60_000);
  if (generated.status !== 0) return;
  declareActions();
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

/**
 * What a maintainer adds for two actions (ADR 069): their declarations — each sets a field, so no handler — and
 * their texts in both languages. Nothing else: no page, button, router or SQL.
 */
function declareActions() {
  const definition = join(copy, 'shared', 'entities', 'lockers.ts');
  const source = readFileSync(definition, 'utf8');
  const declared = source.replace(
    /\n\}\);\s*$/,
    `\n  actions: {\n    open: { sets: { active: true }, inList: true, enabledWhen: (r) => !r.active },\n    close: { sets: { active: false }, inList: true, confirm: true, danger: true, enabledWhen: (r) => Boolean(r.active) },\n  },\n});\n`,
  );
  if (declared === source) throw new Error(`no end of the definition found in:\n${source}`);
  writeFileSync(definition, declared);
  const texts = {
    en: { open: { label: 'Open', done: '{{name}} is open.' }, close: { label: 'Close', confirm: 'Close {{name}}?', done: '{{name}} is closed.' } },
    sv: { open: { label: 'Öppna', done: '{{name}} är öppet.' }, close: { label: 'Stäng', confirm: 'Stänga {{name}}?', done: '{{name}} är stängt.' } },
  };
  for (const lang of ['en', 'sv'] as const) {
    const path = join(copy, 'locales', lang, 'resources.json');
    const resources = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>;
    resources.lockers!.actions = texts[lang];
    writeFileSync(path, `${JSON.stringify(resources, null, 2)}\n`);
  }
}

describe('a generated entity works end to end', () => {
  it('is written by the generator alone: definition, registry line, labels, migration', () => {
    expect(generated.status, generated.stderr).toBe(0);
    for (const file of ['shared/entities/lockers.ts', 'shared/entities/registry.ts', 'locales/en/resources.json', 'locales/sv/resources.json', 'upstream/migrations/']) {
      expect(generated.stdout).toContain(file);
    }
  });

  it('is listed, created, edited and deleted in the browser through the derived screens, router and API', () => {
    expect(seen.error).toBeUndefined();
    expect(seen.heading).toBe('Lockers');
    expect(seen.afterCreate).toEqual(['Spokes & Co']);
    expect(seen.afterEdit).toEqual(['Spokes and Sons']);
    expect(seen.stored).toEqual([{ name: 'Spokes and Sons', address: 'Sveavägen 1', active: true }]);
    expect(seen.afterDelete).toEqual([]);
    expect(seen.storedAfterDelete).toBe(0);
  });

  it('draws each declared action on the record page and the list row, and runs it through the write path', () => {
    expect(seen.error).toBeUndefined();
    // The record page offers Open (the new locker is closed), the row then offers Close and not Open.
    expect(seen.pageButtons).toEqual(['Open']);
    expect(seen.afterOpen).toMatchObject({ active: true, version: 2 });
    expect(seen.rowButtons).toEqual(['Close']);
    expect(seen.afterClose).toMatchObject({ active: false, version: 4 }); // create, open, the edit, close
    expect(seen.history).toEqual(['close', 'open', 'create']);
  });
});
