import type { i18n } from 'i18next';
import enCommon from '../locales/en/common.json';
import svCommon from '../locales/sv/common.json';
import enResources from '../locales/en/resources.json';
import svResources from '../locales/sv/resources.json';
import type { Language } from '../shared/languages.ts';
import { bundle, createI18n } from './i18n.ts';

const RESOURCES = { en: bundle(enCommon, enResources), sv: bundle(svCommon, svResources) };
const instances = new Map<Language, i18n>();

/**
 * What names a text whose answer never changes: its key alone, or with a context and a default (a list's enum
 * cells ask `t(key, { defaultValue })` for each row, ADR 053). Null for anything else: interpolation,
 * plurals, other options, or more arguments.
 */
function plainTextId(key: string, rest: unknown[]): string | null {
  if (rest.length === 0) return key;
  const options = rest[0];
  if (rest.length > 1 || typeof options !== 'object' || options === null) return null;
  // Each option as given or absent: i18next answers an empty default ('') differently from none.
  let context = '\u0000';
  let fallback = '\u0000';
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (typeof value !== 'string') return null;
    if (name === 'context') context = `\u0001${value}`;
    else if (name === 'defaultValue') fallback = `\u0001${value}`;
    else return null;
  }
  return `${key}\u0002${context}\u0002${fallback}`;
}

/**
 * Texts asked for without options, or with only a context and a default, are computed once per instance and
 * text (ADR 024, 053). A `t()` call costs
 * i18next ~8–11 µs (it merges its options object into every call), and a list page makes some eighty of
 * them per render; the server's instances never change after start, so the answer for a key does not
 * either. Calls with other options (interpolation, plurals) go to i18next as they are.
 */
function rememberPlainTexts(instance: i18n): i18n {
  type FixedT = ((...args: unknown[]) => unknown) & { lng?: unknown; lngs?: unknown; ns?: unknown; keyPrefix?: unknown };
  const getFixedT = instance.getFixedT.bind(instance) as unknown as (...args: unknown[]) => FixedT;
  const caches = new Map<string, Map<string, string>>();
  instance.getFixedT = ((lng: unknown, ns: unknown, keyPrefix: unknown, fixedOpts: unknown) => {
    const fixed = getFixedT(lng, ns, keyPrefix, fixedOpts);
    // react-i18next asks with `lng` null: the instance's own language, which on the server never changes.
    const language = typeof lng === 'string' ? lng : lng == null ? instance.language : null;
    // react-i18next passes `{ scopeNs }`, which only matters for keys given as selector functions.
    const onlyScope = fixedOpts === undefined || (typeof fixedOpts === 'object' && fixedOpts !== null && Object.keys(fixedOpts).every((k) => k === 'scopeNs'));
    if (!onlyScope || keyPrefix !== undefined || language === null) return fixed;
    const scope = `${language}|${String(ns)}`;
    let texts = caches.get(scope);
    if (!texts) caches.set(scope, (texts = new Map()));
    const known = texts;
    const remembering: FixedT = (key: unknown, ...rest: unknown[]) => {
      const id = typeof key === 'string' ? plainTextId(key, rest) : null;
      if (id === null) return fixed(key, ...rest);
      const text = known.get(id);
      if (text !== undefined) return text;
      const value = fixed(key, ...rest);
      if (typeof value === 'string') known.set(id, value);
      return value;
    };
    return Object.assign(remembering, { lng: fixed.lng, lngs: fixed.lngs, ns: fixed.ns, keyPrefix: fixed.keyPrefix });
  }) as unknown as i18n['getFixedT'];
  return instance;
}

/** The server's i18next instance for `lang`: every language bundled, one instance per language (never switched, so safe to share between requests). */
export function serverI18n(lang: Language): i18n {
  let shared = instances.get(lang);
  if (!shared) instances.set(lang, (shared = rememberPlainTexts(createI18n(lang, RESOURCES))));
  return shared;
}
