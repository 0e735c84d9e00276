import { isLanguage, type Language } from '../shared/languages.ts';

/** §9: the chosen language is kept in local storage (key `lang`), and in a cookie so the server renders in it. */
export const LANG_STORAGE_KEY = 'lang';
export const LANG_COOKIE = 'lang';

export function storedLanguage(): Language | null {
  try {
    const value = window.localStorage.getItem(LANG_STORAGE_KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null;
  }
}

/** Stores the choice in local storage and in the cookie the server reads; plain DOM, so the public pages' script can use it. */
export function persistLanguage(lang: Language) {
  try {
    window.localStorage.setItem(LANG_STORAGE_KEY, lang);
  } catch {
    // Storage may be disabled; the cookie still carries the choice.
  }
  document.cookie = `${LANG_COOKIE}=${lang}; Path=/; Max-Age=31536000; SameSite=Lax${location.protocol === 'https:' ? '; Secure' : ''}`;
  document.documentElement.lang = lang;
}
