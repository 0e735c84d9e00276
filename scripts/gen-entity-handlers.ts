import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITIES } from '../shared/entities/registry.ts';

/**
 * The per-entity code is found by its file name (ADR 032): `server/trpc/extras/<entity>.ts` (tRPC
 * procedures beside the derived ones) and `upstream/resources/<entity>.ts` (the API's handlers of its
 * actions and sub-resources, hooks, extra routes). This script writes the two indexes that import them,
 * so a bundle and the type checker see them; `tests/unit/entity-handlers.test.ts` fails when an index is
 * stale. `node scripts/gen-entity-handlers.ts` rewrites both.
 */
const root = join(import.meta.dirname, '..');

export const HANDLER_INDEXES = [
  { dir: 'server/trpc/extras', index: 'server/trpc/entity-extras.generated.ts', name: 'ENTITY_EXTRAS', from: './extras/' },
  { dir: 'upstream/resources', index: 'upstream/resources/entity-handlers.generated.ts', name: 'ENTITY_HANDLERS', from: './' },
] as const;

/** The entities that have a file of their own in `dir`, in registry order. */
export function entitiesWithFiles(dir: string): string[] {
  const files = new Set(existsSync(join(root, dir)) ? readdirSync(join(root, dir)) : []);
  return ENTITIES.map((def) => def.name as string).filter((name) => files.has(`${name}.ts`));
}

export function indexSource(entry: (typeof HANDLER_INDEXES)[number]): string {
  const names = entitiesWithFiles(entry.dir);
  const ident = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  return [
    '// Written by scripts/gen-entity-handlers.ts from the files named after entities (ADR 032); do not edit.',
    ...names.map((name) => `import * as ${ident(name)} from '${entry.from}${name}.ts';`),
    '',
    `export const ${entry.name} = {`,
    ...names.map((name) => `  '${name}': ${ident(name)},`),
    '} as const;',
    '',
  ].join('\n');
}

export function staleIndexes(): string[] {
  return HANDLER_INDEXES.filter((entry) => !existsSync(join(root, entry.index)) || readFileSync(join(root, entry.index), 'utf8') !== indexSource(entry)).map((e) => e.index);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  for (const entry of HANDLER_INDEXES) {
    writeFileSync(join(root, entry.index), indexSource(entry));
    process.stdout.write(`wrote ${entry.index}\n`);
  }
}
