import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `docs/architecture.md` is the map a new colleague starts from (issue 34): every file it names exists, every
 * function, component, type or definition part it names is declared somewhere in the app's source, and every
 * translation key it names is in the English texts. A rename that leaves the map behind fails here.
 */
const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
const named = [...new Set([...doc.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}
const source = ['client', 'server', 'shared', 'upstream', 'scripts']
  .flatMap(sourceFiles)
  .map((file) => readFileSync(join(root, file), 'utf8'))
  .join('\n');

const PATH = /^(client|server|shared|upstream|tests|scripts|docs|locales|bench|deploy)\/[\w./-]*$/;
/** `fooBar`, `fooBar(def)`, `<FooBar>`, `fooBar(def).create`: the identifier in front. */
const SYMBOL = /^<?([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?>?(\.[\w.]+)?$/;

function declared(name: string): boolean {
  const declaration = new RegExp(
    `(function\\*?\\s+${name}\\b|\\b(const|let|class|interface|type|enum)\\s+${name}\\b|\\b${name}\\??\\s*:|\\b${name}\\s*\\([^)]*\\)\\s*[:{]|export\\s*\\{[^}]*\\b${name}\\b)`,
  );
  return declaration.test(source);
}

function hasKey(object: unknown, path: string[]): boolean {
  return path.reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), object) !== undefined;
}

describe('docs/architecture.md', () => {
  it('names files that exist', () => {
    const paths = named.filter((token) => PATH.test(token));
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it('names functions, components and definition parts that are declared in the source', () => {
    const symbols = named.flatMap((token) => {
      const match = SYMBOL.exec(token);
      // Plain lowercase words are prose ("label", "status") unless called or tagged; dotted paths other than a call's result are not symbols.
      if (!match || (!/[A-Z_]/.test(match[1]!) && !match[2] && !token.startsWith('<'))) return [];
      // SQL and columns (`COPY`, `pg_notify`, `serial_number`) are the database's words, not the source's.
      if (/^[A-Z]+$/.test(match[1]!) || (/^[a-z0-9_]+$/.test(match[1]!) && !match[2])) return [];
      if (match[3] && !match[2]) return [];
      return [match[1]!];
    });
    expect(symbols).toEqual(expect.arrayContaining(['writeRecord', 'registerEntity', 'entityApi', 'RecordActions', 'createSchema']));
    expect(symbols.filter((name) => !declared(name))).toEqual([]);
  });

  it('names translation keys that exist in English', () => {
    const resources = JSON.parse(readFileSync(join(root, 'locales', 'en', 'resources.json'), 'utf8')) as unknown;
    const keys = named.filter((token) => /^resources\.[\w.]+$/.test(token));
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !hasKey(resources, key.split('.').slice(1)))).toEqual([]);
  });
});
