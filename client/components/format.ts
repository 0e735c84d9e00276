/**
 * The one place the app turns dates, times, numbers and amounts into text (ADR 045). Each UI language has
 * one way to write each of them, built on Intl with the language's locale (English as in the UK, Swedish
 * as in Sweden); `tests/unit/formatting.test.ts` fails when code elsewhere in client/ formats by itself.
 *
 * | what       | en                 | sv                  |
 * | ---------- | ------------------ | ------------------- |
 * | date       | 25 Nov 2026        | 25 nov. 2026        |
 * | date-time  | 25 Nov 2026, 14:05 | 25 nov. 2026 14:05  |
 * | time       | 14:05              | 14:05               |
 * | number     | 1,234.5            | 1 234,5             |
 * | money      | £1,234.50          | 1 234,50 kr         |
 */

/** The Intl locale of a UI language ('en', 'sv'; a regional tag counts as its language). */
export function localeOf(lang: string): 'sv-SE' | 'en-GB' {
  return lang === 'sv' || lang.startsWith('sv-') ? 'sv-SE' : 'en-GB';
}

// Building an Intl formatter costs far more than using one: a list formats every cell.
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

function dateFormat(lang: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${localeOf(lang)} ${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) dateFormats.set(key, (format = new Intl.DateTimeFormat(localeOf(lang), options)));
  return format;
}

function numberFormat(lang: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${localeOf(lang)} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(localeOf(lang), options)));
  return format;
}

/** The app's date: day, short month and year, unambiguous in either language. */
export const DATE: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric' };
/** The app's date-time: the date and the 24-hour time, in the browser's (or the server's) time zone. */
const DATE_TIME: Intl.DateTimeFormatOptions = { ...DATE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})$/;

/**
 * A calendar date (`YYYY-MM-DD`, or the date part of a timestamp) in the app's date format, or with the
 * options a calendar heading asks for ("Wednesday 25 November"). A calendar date is read in UTC, so no
 * time zone moves it to another day; a timestamp's day is the browser's.
 */
export function formatDate(value: unknown, lang: string, options: Intl.DateTimeFormatOptions = DATE): string {
  if (value === null || value === undefined || value === '') return '';
  const text = String(value);
  const iso = ISO_DATE.exec(text);
  const date = iso ? new Date(`${iso[1]}T00:00:00Z`) : new Date(text);
  if (Number.isNaN(date.getTime())) return text;
  return dateFormat(lang, iso ? { timeZone: 'UTC', ...options } : options).format(date);
}

/** A moment (an ISO timestamp) as a date and a time of day. */
export function formatDateTime(value: unknown, lang: string): string {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) return String(value);
  return dateFormat(lang, DATE_TIME).format(date);
}

/** A time of day (`HH:MM` or `HH:MM:SS`) as hours and minutes: both languages write 24-hour `14:05`. */
export function formatTime(value: unknown, _lang: string): string {
  if (value === null || value === undefined || value === '') return '';
  return String(value).slice(0, 5);
}

/** A number in the language's digits grouping and decimal sign. */
export function formatNumber(value: number, lang: string, options: Intl.NumberFormatOptions = {}): string {
  return numberFormat(lang, options).format(value);
}

const CURRENCY = { sek: { suffix: ' kr', prefix: '' }, gbp: { suffix: '', prefix: '£' } } as const;

/** An amount with two decimals and its currency's sign: "£12.50", "12,50 kr". Empty for no amount. */
export function formatMoney(value: unknown, currency: 'sek' | 'gbp', lang: string): string {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === null || value === undefined || value === '' || Number.isNaN(n)) return '';
  const text = formatNumber(n, lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${CURRENCY[currency].prefix}${text}${CURRENCY[currency].suffix}`;
}
