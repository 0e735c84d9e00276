import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { manifestKeyOf, type Manifest } from '../server/ssr/manifest.ts';

export type { Manifest };

/**
 * What a route makes the browser download before it is interactive, computed from Vite's client
 * manifest: the entry, the route's lazy modules (page and layout), everything they import statically,
 * and the CSS of all of those. Sizes are gzip (zlib level 6, what a typical server sends). Used by
 * `npm run bench` (table in RESULTS.md) and by the budget test in `npm test` (sizes, never times).
 */
export const CLIENT_ENTRY = 'client/entry-client.tsx';

/**
 * Issue 7 budgets (KB = 1024 bytes, gzip): `target` is the figure; `enforced` is what `npm test`
 * holds the build to. Where the target is met they are the same. Where it is not (yet), `enforced` is
 * the size reached, with a little headroom, so the build cannot grow back while the gap is open; the
 * gap and its reason are in bench/RESULTS.md. Lower `enforced` whenever a change makes a route smaller.
 */
export const BUNDLE_BUDGETS: Record<string, { js: { target: number; enforced: number }; css: { target: number; enforced: number } }> = {
  // React DOM (~62 KB), zod (~24), i18next (~17), React Router (~14), TanStack Query + tRPC (~21) and
  // styled-components (~11) alone are ~150 KB before the first line of this app: see RESULTS.md.
  // Raised from 210/225 when services, subscriptions, events and trial groups landed (+3.4/+2.3 KB): the
  // router registers entity routes from every entity definition, so each new entity's definition and
  // English labels ship with every page. Loading definitions with the pages that use them is the next step.
  '/login': { js: { target: 120, enforced: 216 }, css: { target: 25, enforced: 25 } },
  // Services and scheduling (issue 5) add four entity definitions to the registry the router reads and
  // their English texts to the one translation file every page loads (~3 KB together): +3 KB.
  // Issue 13 (phone layout, ADR 021): 227.4 → 230.8 KB. The drawer's behaviour and the menu icon in the
  // shell (+1.1), the folding filter bar and labelled cells of the list (+0.7), the card table's chunk
  // (+0.4; its phone rules are CSS), the /today route, its query and the new texts every page loads (+1.0,
  // also on /login), and a chunk split Rolldown chose for the calendar dates (+0.2). The Today page itself,
  // its map and the Admin's buddy picker load on their own.
  // Issue 13 (dispatch board, assets, service types, bicycle history; their screens are lazy) adds two
  // definitions, three sidebar entries with their icons and the English texts: +1 KB.
  '/bicycles': { js: { target: 190, enforced: 233 }, css: { target: 25, enforced: 25 } },
  // Issue 13: the buddy's phone page (Lighthouse mobile ≥ 90) stays below what /bicycles loads: 209.2 KB
  // when it landed, the map (Leaflet) and the Admin's buddy picker on demand.
  '/today': { js: { target: 211, enforced: 211 }, css: { target: 25, enforced: 25 } },
};

export function readManifest(clientDir: string): Manifest {
  const path = join(clientDir, '.vite', 'manifest.json');
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build`);
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

/** Manifest keys of the entry and of `modules`, with their static imports, in load order. */
export function initialChunks(manifest: Manifest, modules: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the client manifest`);
    seen.add(key);
    chunk.imports?.forEach(visit);
  };
  visit(CLIENT_ENTRY);
  modules.forEach((module) => visit(manifestKeyOf(manifest, module) ?? module));
  return [...seen];
}

export interface RouteBundle {
  route: string;
  js: { files: number; rawBytes: number; gzipBytes: number };
  css: { files: number; rawBytes: number; gzipBytes: number };
}

const gzipCache = new Map<string, number>();
function sizes(clientDir: string, file: string) {
  const path = join(clientDir, file);
  const body = readFileSync(path);
  let gz = gzipCache.get(path + body.length);
  if (gz === undefined) gzipCache.set(path + body.length, (gz = gzipSync(body, { level: 6 }).length));
  return { raw: body.length, gz };
}

/** The route's initial JS and CSS. CSS not attached to any chunk (a single style.css) counts for every route. */
export function routeBundle(clientDir: string, manifest: Manifest, route: string, modules: readonly string[]): RouteBundle {
  const keys = initialChunks(manifest, modules);
  const js = new Set(keys.map((k) => manifest[k]!.file));
  const css = new Set(keys.flatMap((k) => manifest[k]!.css ?? []));
  const attached = new Set(Object.values(manifest).flatMap((c) => c.css ?? []));
  for (const chunk of Object.values(manifest)) if (chunk.file.endsWith('.css') && !attached.has(chunk.file)) css.add(chunk.file);
  const total = (files: Set<string>) => {
    let rawBytes = 0;
    let gzipBytes = 0;
    for (const file of files) {
      const s = sizes(clientDir, file);
      rawBytes += s.raw;
      gzipBytes += s.gz;
    }
    return { files: files.size, rawBytes, gzipBytes };
  };
  return { route, js: total(js), css: total(css) };
}

export const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
