/**
 * How the browser's translations are cut (ADR 024): a page of the app loads before hydrating the part
 * its first render needs, and the rest in the background. The server renders with every text
 * (i18n-server.ts); what the browser lacks it must not render, which tests/unit/translation-parts.test.ts
 * checks against the sources of the first-load modules.
 */

/** Top-level groups of common.json that the shell and the generic list screen render. */
export const CORE_GROUPS = ['app', 'shell', 'languages', 'confirm', 'toast', 'routes', 'errors', 'common', 'list', 'form', 'export', 'pending', 'APP', 'phone'] as const;

/**
 * Groups of screens that load every text before they render (`withAllTranslations`): left out of `more`,
 * which a page with its own first-load need (Today) waits for before hydrating, and loaded with the rest in
 * the background (`later`). tests/unit/translation-parts.test.ts checks no module of such a page's first
 * load uses them.
 */
export const LATER_GROUPS = [
  'trialGroups',
  'dispatch',
  'users',
  'home',
  'profile',
  'subscriptionActions',
  'promoCodes',
  'subscriptions',
  'userConfirm',
  'scheduler',
  'bicycles',
  // Today's route panel, which loads its code and these texts when opened (ADR 044).
  'route',
  // The sign-in security page (ADR 068): its own screen, all texts loaded before it renders.
  'security',
] as const;

/** Groups only the server's public pages use (client/public-pages/): never sent to the browser. */
export const SERVER_ONLY_GROUPS = ['auth', 'forbidden', 'legal', 'plans', 'notFound'] as const;

/**
 * `core`, `more` and `later` are common.json cut in three; `resources` is resources.json (every entity's
 * labels), `resources/<entity>` one entity's.
 */
export type TranslationPart = 'core' | 'more' | 'later' | 'resources' | `resources/${string}`;

export const TRANSLATIONS_PREFIX = 'virtual:translations/';
/** The module that imports every part lazily (generated: one loader per language, part and entity). */
export const TRANSLATION_LOADERS = `${TRANSLATIONS_PREFIX}loaders`;

/** The module id of a part, as the build names it (vite.config.ts `translationParts`) and the manifest knows it. */
export const translationModule = (lang: string, part: TranslationPart) => `${TRANSLATIONS_PREFIX}${lang}/${part}`;

export interface LanguageLoaders {
  core: () => Promise<{ default: Record<string, unknown> }>;
  more: () => Promise<{ default: Record<string, unknown> }>;
  later: () => Promise<{ default: Record<string, unknown> }>;
  resources: () => Promise<{ default: Record<string, unknown> }>;
  entities: Record<string, () => Promise<{ default: Record<string, unknown> }>>;
}

/** The groups of `part` from common.json. */
export function pickGroups(common: Record<string, unknown>, part: 'core' | 'more' | 'later'): Record<string, unknown> {
  const core = new Set<string>(CORE_GROUPS);
  const later = new Set<string>(LATER_GROUPS);
  const serverOnly = new Set<string>(SERVER_ONLY_GROUPS);
  const partOf = (group: string) => (core.has(group) ? 'core' : later.has(group) ? 'later' : serverOnly.has(group) ? null : 'more');
  return Object.fromEntries(Object.entries(common).filter(([group]) => partOf(group) === part));
}
