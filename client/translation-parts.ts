/**
 * How the browser's translations are cut (ADR 024): a page of the app loads before hydrating the part
 * its first render needs, and the rest in the background. The server renders with every text
 * (i18n-server.ts); what the browser lacks it must not render, which tests/unit/translation-parts.test.ts
 * checks against the sources of the first-load modules.
 */

/** Top-level groups of common.json that the shell and the generic list screen render. */
export const CORE_GROUPS = ['app', 'shell', 'languages', 'confirm', 'toast', 'routes', 'errors', 'common', 'list', 'form', 'export', 'pending', 'APP', 'phone'] as const;

/** Groups only the server's public pages use (client/public-pages/): never sent to the browser. */
export const SERVER_ONLY_GROUPS = ['auth', 'forbidden', 'legal', 'plans', 'notFound'] as const;

/**
 * `core` and `more` are common.json cut in two; `resources` is resources.json (every entity's labels),
 * `resources/<entity>` one entity's.
 */
export type TranslationPart = 'core' | 'more' | 'resources' | `resources/${string}`;

export const TRANSLATIONS_PREFIX = 'virtual:translations/';
/** The module that imports every part lazily (generated: one loader per language, part and entity). */
export const TRANSLATION_LOADERS = `${TRANSLATIONS_PREFIX}loaders`;

/** The module id of a part, as the build names it (vite.config.ts `translationParts`) and the manifest knows it. */
export const translationModule = (lang: string, part: TranslationPart) => `${TRANSLATIONS_PREFIX}${lang}/${part}`;

export interface LanguageLoaders {
  core: () => Promise<{ default: Record<string, unknown> }>;
  more: () => Promise<{ default: Record<string, unknown> }>;
  resources: () => Promise<{ default: Record<string, unknown> }>;
  entities: Record<string, () => Promise<{ default: Record<string, unknown> }>>;
}

/** The groups of `part` from common.json. */
export function pickGroups(common: Record<string, unknown>, part: 'core' | 'more'): Record<string, unknown> {
  const core = new Set<string>(CORE_GROUPS);
  const serverOnly = new Set<string>(SERVER_ONLY_GROUPS);
  return Object.fromEntries(Object.entries(common).filter(([group]) => (part === 'core' ? core.has(group) : !core.has(group) && !serverOnly.has(group))));
}
