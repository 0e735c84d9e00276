import i18next, { type BackendModule, type i18n, type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, isLanguage, type Language } from '../shared/languages.ts';

export type Bundle = { common: Record<string, unknown> };

// Entity labels live in their own file but under the `resources.` prefix of the one namespace.
export const bundle = (common: object, resources: object): Bundle => ({ common: { ...common, resources } });

/**
 * The browser downloads only the languages it shows: the page's language and the fallback before
 * hydrating, another one when the user switches to it (each is ~5 KB gzip that no page needs twice).
 * The server has them all bundled (i18n-server.ts).
 */
const LOADERS: Record<Language, () => Promise<Bundle>> = {
  en: () => Promise.all([import('../locales/en/common.json'), import('../locales/en/resources.json')]).then(([c, r]) => bundle(c.default, r.default)),
  sv: () => Promise.all([import('../locales/sv/common.json'), import('../locales/sv/resources.json')]).then(([c, r]) => bundle(c.default, r.default)),
};

/**
 * The language a page's text is in when its URL says so (`/terms-and-conditions/:lang`,
 * `/subscriptions/:plan/:language?`), whatever the interface language is.
 */
export function contentLanguage(params: Record<string, string> | undefined): Language | undefined {
  const value = params?.lang ?? params?.language;
  return isLanguage(value) ? value : undefined;
}

/** Source paths (client manifest keys) of the translations a page in these languages loads before hydrating. */
export function languageModules(...langs: (Language | undefined)[]): string[] {
  return [...new Set([...langs.filter((l): l is Language => Boolean(l)), DEFAULT_LANGUAGE])].flatMap((l) => [`locales/${l}/common.json`, `locales/${l}/resources.json`]);
}

/** The translations a page needs before it renders: its languages (interface, content) and the fallback. */
export async function loadLanguages(...langs: (Language | undefined)[]): Promise<Resource> {
  const needed = [...new Set([...langs.filter((l): l is Language => Boolean(l)), DEFAULT_LANGUAGE])];
  const loaded = await Promise.all(needed.map((l) => LOADERS[l]()));
  return Object.fromEntries(needed.map((l, i) => [l, loaded[i]!]));
}

/** Loads a language the first time the user switches to it. */
const lazyLanguages: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read(language, namespace, callback) {
    const load = LOADERS[language as Language];
    if (!load) return callback(null, {});
    load().then((b) => callback(null, b[namespace as keyof Bundle] ?? {}), (error: unknown) => callback(error as Error, null));
  },
};

/**
 * An i18next instance in `lang` with the given translations; in the browser, languages not given are
 * loaded on demand (a language switch). The server shares one instance per language (i18n-server.ts).
 */
export function createI18n(lang: Language, resources: Resource): i18n {
  const instance = i18next.createInstance();
  if (typeof window !== 'undefined') instance.use(lazyLanguages);
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

