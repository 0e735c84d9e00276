/**
 * The repository's import graph, read from the source with a regular expression (no TypeScript program:
 * it runs in well under a second). Used by tests/unit/structure.test.ts, which fails on a circle or on an
 * import against the layering of ADR 001/030, and runnable on its own: `node scripts/import-graph.ts`
 * prints the circles and the layering violations.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The folders whose modules form the app; tests, bench and scripts may import any of them. */
export const LAYERS = ['client', 'server', 'shared', 'upstream'] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer must never import (client → shared ← server → (HTTP) → upstream; upstream may import shared). */
export const FORBIDDEN: Record<Layer, readonly Layer[]> = {
  client: ['server', 'upstream'],
  server: ['client'],
  shared: ['client', 'server', 'upstream'],
  upstream: ['client', 'server'],
};

/**
 * The client may import *types* from the server (`AppRouter`, ADR 001): an `import type` is erased from
 * the bundle. Anything else from the server is a layering error.
 */
const TYPE_ONLY_ALLOWED: Partial<Record<Layer, readonly Layer[]>> = { client: ['server'] };

export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  dynamic: boolean;
}

const SOURCE = /\.(ts|tsx)$/;
// `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`; comments are stripped first.
const STATIC = /(?:^|[;\s])(import|export)\s+(type\s+)?([\w*{}\s,$]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|[;\s])import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function stripComments(source: string): string {
  // Good enough for this code base: no `/*` or `//` inside the string literals that name modules.
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Every relative import of every source file under the given folders, as repository-relative paths. */
export function importEdges(folders: readonly string[] = LAYERS): Edge[] {
  const edges: Edge[] = [];
  for (const folder of folders) {
    for (const file of walk(join(ROOT, folder), [])) {
      const source = stripComments(readFileSync(file, 'utf8'));
      const from = rel(file);
      const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
        if (!spec.startsWith('.')) return;
        edges.push({ from, to: rel(resolve(dirname(file), spec)), typeOnly, dynamic });
      };
      for (const m of source.matchAll(STATIC)) {
        if (m[5]) add(m[5], false, false);
        else add(m[4]!, Boolean(m[2]) || isTypeOnlyClause(m[3] ?? ''), false);
      }
      for (const m of source.matchAll(DYNAMIC)) add(m[1]!, false, true);
    }
  }
  return edges;
}

/** `{ type A, type B }` imports nothing at run time either. */
function isTypeOnlyClause(clause: string): boolean {
  const inner = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!inner) return false;
  const names = inner[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

function rel(path: string): string {
  return relative(ROOT, path).split(sep).join('/');
}

const layerOf = (path: string): Layer | undefined => LAYERS.find((l) => path.startsWith(`${l}/`));

/** Imports against the layering, as `from → to` strings. */
export function layeringViolations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    // `*.server.ts` marks a module that must never reach the browser bundle (style guide: files); its types may.
    if (from === 'client' && e.to.endsWith('.server.ts') && !e.typeOnly) {
      out.push(`${e.from} → ${e.to}`);
      continue;
    }
    if (!from || !to || from === to) continue;
    if (!FORBIDDEN[from].includes(to)) continue;
    if (e.typeOnly && TYPE_ONLY_ALLOWED[from]?.includes(to)) continue;
    out.push(`${e.from} → ${e.to}`);
  }
  return out;
}

/**
 * The circles: strongly connected components of more than one module (or a module importing itself),
 * each given as one shortest cycle through its first module so the message shows a path to cut.
 * Type-only and dynamic imports count too: a type circle is still two modules that cannot be read apart.
 */
export function importCircles(edges: readonly Edge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  const circles: string[][] = [];
  for (const component of stronglyConnected(graph)) {
    const start = [...component].sort()[0]!;
    if (component.size === 1 && !graph.get(start)?.has(start)) continue;
    circles.push(shortestCycle(graph, start, component));
  }
  return circles;
}

function stronglyConnected(graph: Map<string, Set<string>>): Set<string>[] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: Set<string>[] = [];
  for (const root of graph.keys()) {
    if (indexOf.has(root)) continue;
    const work: { node: string; next: Iterator<string> }[] = [];
    const visit = (node: string) => {
      indexOf.set(node, index);
      low.set(node, index++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, next: (graph.get(node) ?? new Set()).values() });
    };
    visit(root);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const step = frame.next.next();
      if (!step.done) {
        const to = step.value;
        if (!indexOf.has(to)) visit(to);
        else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, indexOf.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === indexOf.get(frame.node)) {
        const component = new Set<string>();
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.add(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

function shortestCycle(graph: Map<string, Set<string>>, start: string, within: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!within.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const edges = importEdges();
  const circles = importCircles(edges);
  const violations = layeringViolations(edges);
  for (const c of circles) console.log(`circle: ${c.join(' → ')}`);
  for (const v of violations) console.log(`layering: ${v}`);
  console.log(`${edges.length} imports, ${circles.length} circles, ${violations.length} layering violations`);
  process.exitCode = circles.length || violations.length ? 1 : 0;
}
