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

/** Which chunk file each source module of the app was bundled into (vite.config.ts `moduleChunks`). */
export type ModuleChunks = Record<string, string>;

export const MODULE_CHUNKS_FILE = '.vite/module-chunks.json';

/**
 * The manifest key of a source module the router loads lazily. Usually the module itself; but a module
 * that other chunks also import statically (the list screen inside the users page, an entity definition)
 * is bundled into a shared chunk, which the manifest knows only by its file: the build's module map says
 * which.
 */
export function manifestKeyOf(manifest: Manifest, moduleChunks: ModuleChunks, module: string): string | undefined {
  if (manifest[module]) return module;
  const file = moduleChunks[module];
  return file ? Object.keys(manifest).find((key) => manifest[key]!.file === file) : undefined;
}
