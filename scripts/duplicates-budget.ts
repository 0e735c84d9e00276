import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The duplicates budget (ADR 074): code written twice in app source (client/ server/ shared/ upstream/; not the
 * migrations, the tests, the bench or generated files) may not grow past BUDGET pairs. A pair is two places —
 * in two files, or two parts of one — that share a run of MIN_LINES identical lines once blank lines, comments,
 * imports and lone punctuation are passed over and white space is folded (the way `duplicates` reads, without
 * its same-shape matching, so it finds fewer pairs than that tool). A run found in more than MAX_PLACES places is
 * a common idiom, not a copy, and is not counted. No dependency, no network: it reads the tree and takes about a
 * second. `node scripts/duplicates-budget.ts --list` prints every pair; `npm test` runs it through scripts/check.ts.
 */
const root = join(import.meta.dirname, '..');
const ROOTS = ['client', 'server', 'shared', 'upstream'];
const MIN_LINES = 6;
const MAX_PLACES = 8;
/** Identical-run pairs in app source when the budget was set (ADR 074); lower it as copies go, never raise it. */
export const BUDGET = 3;

const SOURCE = /\.(ts|tsx|css)$/;
const SKIPPED = [/^upstream\/migrations\//, /\.generated\.ts$/, /\.d\.ts$/];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) && !SKIPPED.some((skip) => skip.test(path)) ? [path] : [];
  });
}

interface Line {
  text: string;
  number: number;
}

/** The lines that count: no blank, comment-only, import or lone-punctuation lines; white space folded. */
export function countedLines(source: string): Line[] {
  const lines: Line[] = [];
  let inComment = false;
  source.split('\n').forEach((raw, index) => {
    let text = raw.trim().replace(/\s+/g, ' ');
    if (inComment) {
      if (text.includes('*/')) inComment = false;
      return;
    }
    if (text.startsWith('/*')) {
      inComment = !text.includes('*/');
      return;
    }
    text = text.replace(/\s*\/\/.*$/, '');
    if (text === '' || text.startsWith('import ') || /^[\s{}()[\];,.<>/]*$/.test(text)) return;
    lines.push({ text, number: index + 1 });
  });
  return lines;
}

export interface Pair {
  a: string;
  b: string;
}

/** Every pair of places sharing a run of MIN_LINES counted lines, one per two files (or two parts of one file). */
export function duplicatePairs(files: Record<string, string>): Pair[] {
  const places = new Map<string, { file: string; line: number }[]>();
  for (const [file, source] of Object.entries(files)) {
    const lines = countedLines(source);
    for (let i = 0; i + MIN_LINES <= lines.length; i++) {
      const key = lines
        .slice(i, i + MIN_LINES)
        .map((l) => l.text)
        .join('\n');
      const list = places.get(key) ?? [];
      list.push({ file, line: lines[i]!.number });
      places.set(key, list);
    }
  }
  const pairs = new Map<string, Pair>();
  for (const list of places.values()) {
    if (list.length < 2 || list.length > MAX_PLACES) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const [x, y] = [list[i]!, list[j]!];
        // Two runs of one file that overlap are one place, not a copy.
        if (x.file === y.file && Math.abs(x.line - y.line) < MIN_LINES) continue;
        const key = x.file === y.file ? `${x.file}` : [x.file, y.file].sort().join(' ~ ');
        if (!pairs.has(key)) pairs.set(key, { a: `${x.file}:${x.line}`, b: `${y.file}:${y.line}` });
      }
  }
  return [...pairs.values()];
}

if (import.meta.main) {
  const started = Date.now();
  const files = Object.fromEntries(ROOTS.flatMap(sourceFiles).map((file) => [file, readFileSync(join(root, file), 'utf8')]));
  const pairs = duplicatePairs(files);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (process.argv.includes('--list')) for (const pair of pairs) process.stdout.write(`${pair.a} ~ ${pair.b}\n`);
  const summary = `duplicates budget: ${pairs.length} pairs of ${MIN_LINES}+ identical lines in ${Object.keys(files).length} files of ${ROOTS.join('/ ')}/ (budget ${BUDGET}), ${seconds} s`;
  if (pairs.length > BUDGET) {
    process.stdout.write(`${summary}\nOver budget: take the shared lines into one helper (\`node ${relative(process.cwd(), import.meta.filename)} --list\` names the places).\n`);
    process.exit(1);
  }
  process.stdout.write(`${summary}\n`);
}
