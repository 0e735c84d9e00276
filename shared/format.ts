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
  return lang.startsWith('sv') ? 'sv-SE' : 'en-GB';
}

// Made once per language and options, then kept: making an Intl formatter costs far more than using one
// (a Today page of five stops spent ~25 ms making them, ADR 048). Found first by the options object itself,
// so a list's 25 dates in the app's format do not each turn their options into a key (ADR 053); options
// written inline at a call are new objects each time and are found by their text, as before. Options are
// never changed once passed (the module's own are frozen): a changed object would keep its first formatter.
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
const byOptions = new WeakMap<object, Map<string, Intl.NumberFormat | Intl.DateTimeFormat>>();
const formatter = (number: boolean, lang: string, options: object) => {
  const locale = localeOf(lang);
  const kind = `${number}${locale}`;
  let known = byOptions.get(options);
  const found = known?.get(kind);
  if (found) return found;
  const key = `${kind}${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = number ? new Intl.NumberFormat(locale, options) : new Intl.DateTimeFormat(locale, options)));
  if (!known) byOptions.set(options, (known = new Map()));
  known.set(kind, made);
  return made;
};

/** A calendar date's options read in UTC, one object per options object (so its formatter is found as above). */
const inUtc = new WeakMap<Intl.DateTimeFormatOptions, Intl.DateTimeFormatOptions>();
const utcOptions = (options: Intl.DateTimeFormatOptions) => {
  let utc = inUtc.get(options);
  if (!utc) inUtc.set(options, (utc = { timeZone: 'UTC', ...options }));
  return utc;
};

const empty = (value: unknown) => value === null || value === undefined || value === '';

/** The app's date: day, short month and year, unambiguous in either language. */
const DATE: Intl.DateTimeFormatOptions = Object.freeze({ day: 'numeric', month: 'short', year: 'numeric' });
/** The app's date-time: the date and the 24-hour time, in the browser's (or the server's) time zone. */
const DATE_TIME: Intl.DateTimeFormatOptions = Object.freeze({ ...DATE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/**
 * A calendar date (`YYYY-MM-DD`) or a moment (an ISO timestamp) in the app's date format, or with the
 * options a calendar heading asks for ("Wednesday 25 November"). A calendar date is read in UTC, so no
 * time zone moves it to another day; a moment's day is the browser's. Text that is no date comes back as it is.
 */
export function formatDate(value: unknown, lang: string, options: Intl.DateTimeFormatOptions = DATE): string {
  const text = empty(value) ? '' : String(value);
  if (/^\d{4}-\d\d-\d\d$/.test(text)) return formatDay(text, formatter(false, lang, utcOptions(options)) as Intl.DateTimeFormat);
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : (formatter(false, lang, options) as Intl.DateTimeFormat).format(date);
}

/** Past this many, a formatter's remembered days are forgotten and remembered again as they come. */
const MAX_DAYS = 4_096;
const daysBy = new WeakMap<Intl.DateTimeFormat, Map<string, string>>();

/**
 * A calendar date as one formatter writes it, remembered: the text depends on nothing else, and the days a
 * list shows repeat from page to page (Intl's `format` was ~4 % of a list page's server render, ADR 055).
 */
function formatDay(text: string, format: Intl.DateTimeFormat): string {
  let days = daysBy.get(format);
  if (!days) daysBy.set(format, (days = new Map()));
  let written = days.get(text);
  if (written === undefined) {
    const date = new Date(`${text}T00:00:00Z`);
    written = Number.isNaN(date.getTime()) ? text : format.format(date);
    if (days.size >= MAX_DAYS) days.clear();
    days.set(text, written);
  }
  return written;
}

/** A moment (an ISO timestamp) as a date and a time of day. */
export function formatDateTime(value: unknown, lang: string): string {
  return formatDate(value, lang, DATE_TIME);
}

/** A time of day (`HH:MM` or `HH:MM:SS`) as hours and minutes: both languages write 24-hour `14:05`. */
export function formatTime(value: unknown): string {
  return empty(value) ? '' : String(value).slice(0, 5);
}

/** A number in the language's digit grouping and decimal sign. */
export function formatNumber(value: number, lang: string, options: Intl.NumberFormatOptions = {}): string {
  return formatter(true, lang, options).format(value);
}

/** An amount with two decimals and its currency's sign: "£12.50", "12,50 kr". Empty for no amount. */
export function formatMoney(value: unknown, currency: 'sek' | 'gbp', lang: string): string {
  const n = empty(value) ? NaN : Number(value);
  if (Number.isNaN(n)) return '';
  const text = formatNumber(n, lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency === 'gbp' ? `£${text}` : `${text} kr`;
}
