import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { MODULE_CHUNKS_FILE, manifestKeyOf, type Manifest, type ManifestChunk, type ModuleChunks } from './manifest.ts';

export interface ClientAssets {
  styles: string[];
  scripts: string[];
  preloads: string[];
  /** Style sheets put into the page itself (the public pages' one small sheet: no request before first paint). */
  inlineStyles?: string[];
  /** An offline route's on-demand chunks and their CSS, which the page itself does not load (ADR 048). */
  offline?: string[];
}

export const CLIENT_ENTRY = 'client/entry-client.tsx';
export const PUBLIC_ENTRY = 'client/entry-public.ts';

/** The public pages' entry (ADR 024): its script, the chunks it imports, and its CSS to inline. */
export function loadPublicAssets(clientDir: string): ClientAssets {
  // Built on its own (vite.config.ts `--mode public`), with a manifest of its own.
  const manifest = JSON.parse(readFileSync(join(clientDir, '.vite', 'manifest-public.json'), 'utf8')) as Manifest;
  const entry = manifest[PUBLIC_ENTRY];
  if (!entry) throw new Error(`${PUBLIC_ENTRY} missing from the client manifest; run npm run build`);
  const preloads = new Set<string>();
  const css = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk) return;
    chunk.imports?.forEach(visit);
    chunk.css?.forEach((file) => css.add(file));
    if (key !== PUBLIC_ENTRY) preloads.add('/' + chunk.file);
  };
  visit(PUBLIC_ENTRY);
  return {
    styles: [],
    inlineStyles: [...css].map((file) => readFileSync(join(clientDir, file), 'utf8')),
    scripts: ['/' + entry.file],
    preloads: [...preloads],
  };
}

/**
 * Reads Vite's client manifest once; answers, per route, what its <head> needs: the CSS of the entry and
 * of the route's lazy modules (layout, page) with everything they import, and modulepreload links for
 * those chunks, so the browser fetches the page's code in parallel with the entry instead of after it.
 */
export function loadClientAssets(clientDir: string): (modules: readonly string[], offline?: boolean) => ClientAssets {
  const manifest = JSON.parse(readFileSync(join(clientDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
  const moduleChunks = JSON.parse(readFileSync(join(clientDir, MODULE_CHUNKS_FILE), 'utf8')) as ModuleChunks;
  const entry = manifest[CLIENT_ENTRY];
  if (!entry) throw new Error(`${CLIENT_ENTRY} missing from the client manifest; run npm run build`);
  // CSS attached to no chunk (one global style sheet when CSS is not code-split) belongs to every page.
  const attached = new Set(Object.values(manifest).flatMap((chunk) => chunk.css ?? []));
  const global = Object.values(manifest)
    .filter((chunk) => chunk.file.endsWith('.css') && !attached.has(chunk.file))
    .map((chunk) => '/' + chunk.file);
  const cache = new Map<string, ClientAssets>();

  /**
   * Visits the chunks of the entry and of the route's modules, each once, depth first: `next` names the
   * chunks a chunk leads to, and `onChunk` sees it after them (Vite's order: a chunk's own CSS comes after
   * the CSS of what it imports).
   */
  const walk = (modules: readonly string[], next: (key: string, chunk: ManifestChunk) => readonly string[] | undefined, onChunk: (key: string, chunk: ManifestChunk) => void) => {
    const seen = new Set<string>();
    const visit = (key: string) => {
      if (seen.has(key)) return;
      seen.add(key);
      const chunk = manifest[key];
      if (!chunk) return;
      next(key, chunk)?.forEach(visit);
      onChunk(key, chunk);
    };
    visit(CLIENT_ENTRY);
    for (const module of modules) {
      const key = manifestKeyOf(manifest, moduleChunks, module);
      if (key) visit(key);
    }
  };

  /**
   * Every chunk and style sheet the route's modules may load later (their dynamic imports, with what those
   * import) and the shell's own on-demand parts (client/shell/: the confirm dialog, the account menu), less
   * what the page loads anyway: what an offline route needs kept for a dead spot. The entry's other dynamic
   * imports are the other pages and languages, which stay out.
   */
  const onDemand = (modules: readonly string[], loaded: ClientAssets): string[] => {
    const files = new Set<string>();
    walk(
      modules,
      (key, chunk) => [
        ...(chunk.imports ?? []),
        ...((key === CLIENT_ENTRY ? chunk.dynamicImports?.filter((module) => module.startsWith('client/shell/')) : chunk.dynamicImports) ?? []),
      ],
      (_key, chunk) => {
        files.add('/' + chunk.file);
        chunk.css?.forEach((css) => files.add('/' + css));
      },
    );
    for (const file of [...loaded.styles, ...loaded.scripts, ...loaded.preloads]) files.delete(file);
    return [...files];
  };

  return (modules, offline = false) => {
    const cacheKey = `${modules.join('|')}${offline ? '|offline' : ''}`;
    const cached = cache.get(cacheKey);
    if (cached) return cached;
    const styles = new Set<string>(global);
    const preloads = new Set<string>();
    walk(
      modules,
      (_key, chunk) => chunk.imports,
      (key, chunk) => {
        chunk.css?.forEach((css) => styles.add('/' + css));
        if (key !== CLIENT_ENTRY) preloads.add('/' + chunk.file);
      },
    );
    const assets: ClientAssets = { styles: [...styles], scripts: ['/' + entry.file], preloads: [...preloads] };
    if (offline) assets.offline = onDemand(modules, assets);
    cache.set(cacheKey, assets);
    return assets;
  };
}
