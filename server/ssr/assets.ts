import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
  isEntry?: boolean;
}

export interface ClientAssets {
  styles: string[];
  scripts: string[];
  preloads: string[];
}

export const CLIENT_ENTRY = 'client/entry-client.tsx';

/** Reads Vite's client manifest once and lists what every page needs in its <head>. */
export function loadClientAssets(clientDir: string): ClientAssets {
  const manifest = JSON.parse(readFileSync(join(clientDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const entry = manifest[CLIENT_ENTRY];
  if (!entry) throw new Error(`${CLIENT_ENTRY} missing from the client manifest; run npm run build`);
  const styles = new Set<string>();
  const preloads = new Set<string>();
  const visit = (key: string, seen = new Set<string>()) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    chunk.css?.forEach((css) => styles.add('/' + css));
    if (key !== CLIENT_ENTRY) preloads.add('/' + chunk.file);
    chunk.imports?.forEach((imported) => visit(imported, seen));
  };
  visit(CLIENT_ENTRY);
  for (const chunk of Object.values(manifest)) if (chunk.file.endsWith('.css')) styles.add('/' + chunk.file);
  return { styles: [...styles], scripts: ['/' + entry.file], preloads: [...preloads] };
}
