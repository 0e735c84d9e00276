import type { i18n } from 'i18next';
import enCommon from '../locales/en/common.json';
import svCommon from '../locales/sv/common.json';
import enResources from '../locales/en/resources.json';
import svResources from '../locales/sv/resources.json';
import type { Language } from '../shared/languages.ts';
import { bundle, createI18n } from './i18n.ts';

const RESOURCES = { en: bundle(enCommon, enResources), sv: bundle(svCommon, svResources) };
const instances = new Map<Language, i18n>();

/** The server's i18next instance for `lang`: every language bundled, one instance per language (never switched, so safe to share between requests). */
export function serverI18n(lang: Language): i18n {
  let shared = instances.get(lang);
  if (!shared) instances.set(lang, (shared = createI18n(lang, RESOURCES)));
  return shared;
}
