import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import enCommon from '../../locales/en/common.json';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { CORE_GROUPS, LATER_GROUPS, SERVER_ONLY_GROUPS, pickGroups } from '../../client/translation-parts.ts';

/**
 * A list page hydrates with only the first-load part of the texts (ADR 024); the server renders with all
 * of them, so a key of another part rendered by a first-load module would show as its key in the browser
 * and fail hydration. These read the sources of the modules a list page renders and check every literal
 * key they use is in the first-load groups.
 */
const root = join(import.meta.dirname, '..', '..');
const GROUPS = new Set(Object.keys(enCommon));
const FIRST_LOAD_MODULES = [
  'client/app.tsx',
  'client/routes.tsx',
  'client/errors.ts',
  'client/session.ts',
  'client/shell/app-shell.tsx',
  'client/shell/account-menu.tsx',
  'client/shell/confirm.tsx',
  'client/shell/confirm-dialog.tsx',
  'client/shell/toasts.tsx',
  'client/shell/language-switch.tsx',
  'client/components/page-spinner.tsx',
  'client/components/error-state.tsx',
  'client/components/pager.tsx',
  'client/components/controls.tsx',
  'client/pages/pending-page.tsx',
  'client/entity/resource-list-page.tsx',
  'client/entity/field-value.tsx',
  'client/entity/status-label.tsx',
  'client/entity/csv-export.tsx',
  'client/entity/reference-choices.tsx',
  'client/components/filter-bar.tsx',
  // Every route's title: the sidebar and the document title render them on any page.
  'shared/route-table.ts',
];

/** Every `'group.key'` string literal of a source (comments aside) whose group is a top-level group of common.json. */
function keysIn(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/['"`]([A-Za-z]+)\.[A-Za-z0-9_.{}$-]+['"`]/g)].map((m) => m[0].slice(1, -1)).filter((key) => GROUPS.has(key.split('.')[0]!));
}

describe('translations in parts', () => {
  it('gives the first-load modules every text they use literally', () => {
    const core = new Set<string>(CORE_GROUPS);
    const outside = FIRST_LOAD_MODULES.flatMap((file) =>
      keysIn(readFileSync(join(root, file), 'utf8'))
        .filter((key) => !core.has(key.split('.')[0]!))
        .map((key) => `${file}: ${key}`),
    );
    expect(outside).toEqual([]);
  });

  it('gives the list screen the success messages entities name for deletions', () => {
    const core = new Set<string>(CORE_GROUPS);
    const messages = ENTITIES.flatMap((def) => Object.values(def.messages ?? {}) as string[]);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.filter((key) => !core.has(key.split('.')[0]!))).toEqual([]);
  });

  it('keeps the public pages’ texts out of the browser: no app module uses them', () => {
    const serverOnly = new Set<string>(SERVER_ONLY_GROUPS);
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? (entry.name === 'public-pages' ? [] : files(join(dir, entry.name))) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
      );
    const used = files('client')
      .filter((file) => file !== join('client', 'entry-server.tsx'))
      .flatMap((file) =>
        keysIn(readFileSync(join(root, file), 'utf8'))
          .filter((key) => serverOnly.has(key.split('.')[0]!))
          .map((key) => `${file}: ${key}`),
      );
    expect(used).toEqual([]);
  });

  it('cuts common.json into parts that lose nothing the browser needs', () => {
    const parts = (['core', 'more', 'later'] as const).map((part) => Object.keys(pickGroups(enCommon, part)));
    const all = [...parts.flat(), ...SERVER_ONLY_GROUPS];
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(Object.keys(enCommon).sort());
    for (const group of LATER_GROUPS) expect(GROUPS.has(group), group).toBe(true);
  });

  it('gives a page with its own first-load need (Today) every text its first load uses: none of the `later` groups', () => {
    const later = new Set<string>(LATER_GROUPS);
    // The routes of client/routes.tsx whose page loads its own part first: `page('<module>'), translations: { page: … }`.
    const routes = readFileSync(join(root, 'client', 'routes.tsx'), 'utf8');
    const pages = [...routes.matchAll(/page\('([^']+)'\), translations: \{ page:/g)].map((m) => m[1]!);
    expect(pages).toContain('client/pages/today-page.tsx');
    const used = pages.flatMap((module) =>
      staticImports(module).flatMap((file) =>
        keysIn(readFileSync(join(root, file), 'utf8'))
          .filter((key) => later.has(key.split('.')[0]!))
          .map((key) => `${file}: ${key}`),
      ),
    );
    expect(used).toEqual([]);
  });
});

/** A module and every module it imports statically (not `import type`, not `import()`), within the repository. */
function staticImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(join(root, file), 'utf8');
  for (const match of source.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gm)) {
    const target = join(dirname(file), match[1]!);
    if (existsSync(join(root, target))) staticImports(target, seen);
  }
  return [...seen];
}
