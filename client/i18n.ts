import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import enCommon from '../locales/en/common.json';
import svCommon from '../locales/sv/common.json';
import enResources from '../locales/en/resources.json';
import svResources from '../locales/sv/resources.json';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../shared/schemas/common.ts';

export const resources = {
  // Entity labels live in their own file but under the `resources.` prefix of the one namespace.
  en: { common: { ...enCommon, resources: enResources } },
  sv: { common: { ...svCommon, resources: svResources } },
} as const;

const serverInstances = new Map<Language, i18n>();

/**
 * The browser gets one instance that switches language; the server keeps one instance per language
 * (never switched, so safe to share between requests). Resources are bundled: no flash of keys.
 */
export function createI18n(lang: Language): i18n {
  if (typeof window === 'undefined') {
    let shared = serverInstances.get(lang);
    if (!shared) serverInstances.set(lang, (shared = createInstance(lang)));
    return shared;
  }
  return createInstance(lang);
}

function createInstance(lang: Language): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources,
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

export const LANG_STORAGE_KEY = 'lang';
export const LANG_COOKIE = 'lang';
