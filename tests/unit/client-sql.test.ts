import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTITY_SQL } from '../../upstream/resources/entity-sql-parts.ts';

/**
 * No SQL of a definition reaches the browser (issue 34, ADR 072): the definitions are shared with the client, so
 * what they would say in SQL — a person's name as a label, which users hold a role, a searched full name — is
 * written on the server (`ENTITY_SQL`). Read over the production build `npm test` makes first: every file the
 * browser may fetch (chunks, the service worker).
 */
const clientDir = join(import.meta.dirname, '..', '..', 'dist', 'client');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
}

/** SQL as the definitions and the engine write it; English texts ("Select a buddy from the list") do not match. */
export const SQL_SHAPES: readonly RegExp[] = [
  /\bselect (1|\*|[a-z_]+\.[a-z_]+)[^"'`]{0,80}? from [a-z_]+ [a-z]{1,3}\b/,
  /\bexists \(select\b/,
  /\bjoin [a-z_]+ [a-z]{1,3} on [a-z]{1,3}\.[a-z_]+ = /,
  /\b(coalesce|nullif|to_char|search_bigrams)\([a-z]{1,3}\.[a-z_]+/,
  /\b[a-z]{1,3}\.[a-z_]+ = \$\d/,
];

describe('the built client', () => {
  const files = filesUnder(clientDir).filter((file) => /\.(js|mjs|css|html|json)$/.test(file));
  const texts = files.map((file) => [file.slice(clientDir.length + 1), readFileSync(file, 'utf8')] as const);

  it('is there to read (npm test builds it first)', () => {
    expect(texts.filter(([file]) => file.endsWith('.js')).length).toBeGreaterThan(10);
  });

  it('holds none of the SQL the definitions declare on the server', () => {
    const expressions = Object.entries(ENTITY_SQL).flatMap(([entity, sql]) => [
      ...(sql.referenceLabel ? [[`${entity}.referenceLabel`, sql.referenceLabel]] : []),
      ...(sql.roleHolders ? [[`${entity}.roleHolders`, sql.roleHolders]] : []),
      ...Object.entries(sql.searchExpressions ?? {}).map(([key, expression]) => [`${entity}.searchExpressions.${key}`, expression]),
    ]);
    expect(expressions.length).toBeGreaterThanOrEqual(3);
    const found = expressions.flatMap(([name, expression]) => texts.filter(([, text]) => text.includes(expression!)).map(([file]) => `${name} in ${file}`));
    expect(found).toEqual([]);
  });

  it('holds no SQL at all, by its shape', () => {
    const found = texts.flatMap(([file, text]) => SQL_SHAPES.flatMap((shape) => (shape.exec(text) ? [`${file}: ${shape.exec(text)![0]}`] : [])));
    expect(found).toEqual([]);
  });

  it('the shapes find the SQL the definitions used to carry', () => {
    for (const expression of Object.values(ENTITY_SQL).flatMap((sql) => [sql.referenceLabel, sql.roleHolders, ...Object.values(sql.searchExpressions ?? {})])) {
      expect(
        SQL_SHAPES.some((shape) => shape.test(expression!)),
        expression,
      ).toBe(true);
    }
  });
});
