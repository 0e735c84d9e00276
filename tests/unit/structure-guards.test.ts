import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countedLines, duplicatePairs } from '../../scripts/duplicates-budget.ts';

/**
 * Structure guards (ADR 074): no source file of the app over 500 lines, so a module that grows past it is split
 * along what it holds rather than left to grow; and the duplicates budget's counting (scripts/duplicates-budget.ts).
 */
const root = join(import.meta.dirname, '..', '..');
const MAX_LINES = 500;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'upstream/migrations' ? [] : sourceFiles(path);
    return /\.(ts|tsx|css)$/.test(entry.name) ? [path] : [];
  });
}

describe('structure guards', () => {
  it(`keeps every file of client/ server/ shared/ upstream/ at ${MAX_LINES} lines or fewer`, () => {
    const files = ['client', 'server', 'shared', 'upstream'].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const over = files.map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 })).filter(({ lines }) => lines > MAX_LINES);
    expect(over).toEqual([]);
  });

  it('counts six identical lines in two files as one pair, passing over comments, imports and white space', () => {
    const body = ['const a = 1;', 'const b = 2;', 'const c = a + b;', 'if (c > 2) run(c);', 'else stop(c);', 'log(a, b, c);'];
    const one = ["import { x } from 'y';", ...body.slice(0, 3), '// a remark', '', ...body.slice(3)].join('\n');
    const two = ['/* other', ' words */', ...body.map((line) => `    ${line}`)].join('\n');
    expect(countedLines(one).map((l) => l.text)).toEqual(body);
    expect(duplicatePairs({ 'one.ts': one, 'two.ts': two })).toEqual([{ a: 'one.ts:2', b: 'two.ts:3' }]);
    expect(duplicatePairs({ 'one.ts': one, 'two.ts': two.replace('log(a, b, c)', 'log(c)') })).toEqual([]);
  });
});
