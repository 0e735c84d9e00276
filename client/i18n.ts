import i18next, { type BackendModule, type i18n, type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, isLanguage, type Language } from '../shared/languages.ts';
import LOADERS from 'virtual:translations/loaders';
import { translationModule, type TranslationPart } from './translation-parts.ts';

export type Bundle = { common: Record<string, unknown> };

// Entity labels live in their own file but under the `resources.` prefix of the one namespace.
export const bundle = (common: object, resources: object): Bundle => ({ common: { ...common, resources } });

/**
 * The browser downloads only the languages it shows, and of those the part it needs first (ADR 024):
 * before hydrating, a list page the shell's and the list screen's texts (`core`) and its own entity's
 * labels, any other page every text; the rest in the background once the page is interactive; another
 * language when the user switches to it. The server has them all bundled (i18n-server.ts).
 */

/**
 * What a page needs before its first render: every text; those of a generic list of one entity; or the
 * pages' texts and one entity's labels (Today: the services'), the other entities' labels coming later.
 */
export type TranslationNeed = 'all' | { list: string } | { page: string };

const partsOf = (need: TranslationNeed): TranslationPart[] =>
  need === 'all' ? ['core', 'more', 'later', 'resources'] : 'list' in need ? ['core', `resources/${need.list}`] : ['core', 'more', `resources/${need.page}`];

async function loadBundle(lang: Language, need: TranslationNeed): Promise<Bundle> {
  const parts = LOADERS[lang];
  const all = need === 'all';
  const entity = all ? undefined : parts.entities['list' in need ? need.list : need.page];
  const withMore = all || 'page' in need;
  const [core, more, later, resources] = await Promise.all([
    parts.core(),
    withMore ? parts.more() : undefined,
    all ? parts.later() : undefined,
    entity ? entity() : parts.resources(),
  ]);
  // What came with the page is not fetched again (the entity's own labels are not the whole `resources`).
  for (const part of ['more', 'later', 'resources'] as const) if (all || (part === 'more' && withMore)) adding.set(`${lang}/${part}`, Promise.resolve());
  return bundle({ ...core.default, ...more?.default, ...later?.default }, resources.default);
}

/**
 * The language a page's text is in when its URL says so (`/terms-and-conditions/:lang`,
 * `/subscriptions/:plan/:language?`), whatever the interface language is.
 */
export function contentLanguage(params: Record<string, string> | undefined): Language | undefined {
  const value = params?.lang ?? params?.language;
  return isLanguage(value) ? value : undefined;
}

const languagesOf = (langs: (Language | undefined)[]) => [...new Set([...langs.filter((l): l is Language => Boolean(l)), DEFAULT_LANGUAGE])];

/** Module ids (client manifest keys) of the translations a page in these languages loads before hydrating. */
export function languageModules(need: TranslationNeed, ...langs: (Language | undefined)[]): string[] {
  return languagesOf(langs).flatMap((l) => partsOf(need).map((part) => translationModule(l, part)));
}

/** The translations a page needs before it renders: its languages (interface, content) and the fallback. */
export async function loadLanguages(need: TranslationNeed, ...langs: (Language | undefined)[]): Promise<Resource> {
  const needed = languagesOf(langs);
  const loaded = await Promise.all(needed.map((l) => loadBundle(l, need)));
  return Object.fromEntries(needed.map((l, i) => [l, loaded[i]!]));
}

/** Loads a language the first time the user switches to it. */
const lazyLanguages: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    if (!isLanguage(language)) return callback(null, {});
    loadBundle(language, 'all').then(
      (b) => callback(null, b[namespace as keyof Bundle] ?? {}),
      (error: unknown) => callback(error as Error, null),
    );
  },
};

let browserInstance: i18n | null = null;
type LaterPart = 'more' | 'later' | 'resources';
/** The parts the browser has added to its instance, or is fetching, per language (`sv/later`). */
const adding = new Map<string, Promise<void>>();

function addPart(instance: i18n, lang: Language, part: LaterPart): Promise<void> {
  const key = `${lang}/${part}`;
  let done = adding.get(key);
  if (!done) {
    done = LOADERS[lang][part]().then((module) => {
      instance.addResourceBundle(lang, 'common', part === 'resources' ? { resources: module.default } : module.default, true, false);
    });
    done.catch(() => adding.delete(key));
    adding.set(key, done);
  }
  return done;
}

/**
 * Adds texts a first load left out to the browser's instance; resolves once they are there. By default every
 * part (`more`, `later`: the screens that load all their texts first, and every entity's labels): screens that need
 * them (pages other than lists, the record dialog) wait for it before they render. The page's idle time fetches
 * only `more` and the labels, which the next list or record page needs at once; `later` waits until a screen of its
 * own opens, so a first visit does not download the texts of screens it may never open (issue 38, ADR 077).
 */
export function completeTranslations(parts: readonly LaterPart[] = ['more', 'later', 'resources']): Promise<void> {
  const instance = browserInstance;
  if (!instance) return Promise.resolve();
  const langs = languagesOf([isLanguage(instance.language) ? instance.language : undefined]);
  return Promise.all(langs.flatMap((lang) => parts.map((part) => addPart(instance, lang, part)))).then(() => undefined);
}

/** A lazily imported module that renders texts of the `more` part: loaded with them (with `parts`, only those). */
export function withAllTranslations<T>(module: Promise<T>, parts?: readonly LaterPart[]): Promise<T> {
  return Promise.all([module, completeTranslations(parts)]).then(([m]) => m);
}

/**
 * An i18next instance in `lang` with the given translations; in the browser, languages not given are
 * loaded on demand (a language switch). The server shares one instance per language (i18n-server.ts).
 */
export function createI18n(lang: Language, resources: Resource): i18n {
  const instance = i18next.createInstance();
  if (typeof window !== 'undefined') {
    instance.use(lazyLanguages);
    browserInstance = instance;
  }
  void instance.use(initReactI18next).init({
    resources,
    // Languages given up front are used as they are; any other is read through the lazy backend.
    partialBundledLanguages: true,
    lng: lang,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: LANGUAGES,
    defaultNS: 'common',
    ns: ['common'],
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return instance;
}
