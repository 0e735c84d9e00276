/** One chunk of Vite's client manifest (`dist/client/.vite/manifest.json`). */
export interface ManifestChunk {
  file: string;
  src?: string;
  css?: string[];
  imports?: string[];
  dynamicImports?: string[];
  isEntry?: boolean;
  isDynamicEntry?: boolean;
}
export type Manifest = Record<string, ManifestChunk>;

/**
 * The manifest key of a source module the router loads lazily. Usually the module itself; but a module
 * that other lazy chunks also import statically (the list screen inside the users page) is bundled as a
 * shared chunk, which the manifest names after it: `_resource-list-page-<hash>.js`.
 */
export function manifestKeyOf(manifest: Manifest, module: string): string | undefined {
  if (manifest[module]) return module;
  const base = module.split('/').pop()!.replace(/\.[cm]?[jt]sx?$/, '');
  const pattern = new RegExp(`^_${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[\\w-]{8}\\.js$`);
  const shared = Object.keys(manifest).filter((key) => pattern.test(key));
  return shared.length === 1 ? shared[0] : undefined;
}
