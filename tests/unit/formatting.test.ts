import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatMoney, formatNumber, formatTime } from '../../shared/format.ts';
import { formatDate as calendarHeading } from '../../client/components/calendar-dates.ts';
import enCommon from '../../locales/en/common.json';
import svCommon from '../../locales/sv/common.json';
import enResources from '../../locales/en/resources.json';
import svResources from '../../locales/sv/resources.json';

const root = join(import.meta.dirname, '..', '..');
const FORMATTER = 'shared/format.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Strings in the locale files: [key, text]. */
function texts(value: unknown, prefix = ''): [string, string][] {
  if (typeof value === 'string') return [[prefix, value]];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => texts(v, prefix ? `${prefix}.${k}` : k));
}

// ADR 045: one formatter per language. `Intl` or a `toLocale…String` anywhere else in the client is a
// second way of writing a date, a time or a number, which is how three date formats came about (issue 19).
describe('one formatter for dates, times, numbers and money (ADR 045)', () => {
  it('no client or shared code formats a date, time or number outside shared/format.ts', () => {
    const pattern =
      /\.toLocale(?:Date|Time)?String\s*\(|\bnew\s+Intl\.(?:DateTimeFormat|NumberFormat|RelativeTimeFormat|PluralRules|ListFormat)\b|\bIntl\.(?:DateTimeFormat|NumberFormat)\s*\(/;
    const offenders: string[] = [];
    for (const file of [...sources(join(root, 'client')), ...sources(join(root, 'shared'))]) {
      const path = relative(root, file).split('\\').join('/');
      if (path === FORMATTER) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (pattern.test(line)) offenders.push(`${path}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders, offenders.join('\n')).toEqual([]);
  });

  it('the scan would catch one (the pattern is not blind)', () => {
    const pattern = /\.toLocale(?:Date|Time)?String\s*\(|\bnew\s+Intl\.(?:DateTimeFormat|NumberFormat|RelativeTimeFormat|PluralRules|ListFormat)\b/;
    for (const bad of ["d.toLocaleDateString('en-US')", 'n.toLocaleString()', 'new Intl.DateTimeFormat(lang)', 'new Intl.NumberFormat(lang, {})', 'x.toLocaleTimeString()'])
      expect(pattern.test(bad), bad).toBe(true);
    expect(pattern.test("name.toLocaleLowerCase('sv')")).toBe(false);
  });

  it('writes a date one way per language, whatever it was given', () => {
    for (const value of ['2026-11-25', '2026-11-25T10:00:00Z']) {
      expect(formatDate(value, 'en')).toBe('25 Nov 2026');
      expect(formatDate(value, 'sv')).toBe('25 nov. 2026');
    }
    // A calendar date is the same day in any time zone (read in UTC).
    expect(formatDate('2026-01-01', 'en')).toBe('1 Jan 2026');
    expect(formatDate('2026-12-31', 'sv')).toBe('31 dec. 2026');
    expect(formatDate(null, 'en')).toBe('');
    expect(formatDate('not a date', 'en')).toBe('not a date');
    expect(calendarHeading('2026-11-25', 'en', { weekday: 'long', day: 'numeric', month: 'long' })).toBe('Wednesday 25 November');
    expect(calendarHeading('2026-11-25', 'sv', { weekday: 'long', day: 'numeric', month: 'long' })).toBe('onsdag 25 november');
  });

  it('writes a remembered day as it writes it the first time, per language and options, past the bound of what it keeps', () => {
    const direct = (lang: 'en-GB' | 'sv-SE', options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(lang, { timeZone: 'UTC', ...options });
    const heading: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long' };
    const checks = [
      { lang: 'en', expected: direct('en-GB', { day: 'numeric', month: 'short', year: 'numeric' }), write: (day: string) => formatDate(day, 'en') },
      { lang: 'sv', expected: direct('sv-SE', { day: 'numeric', month: 'short', year: 'numeric' }), write: (day: string) => formatDate(day, 'sv') },
      { lang: 'sv', expected: direct('sv-SE', heading), write: (day: string) => formatDate(day, 'sv', heading) },
    ];
    // Over 5 000 days (more than a formatter keeps), twice: written fresh, then remembered or written again.
    const start = Date.UTC(2015, 0, 1);
    const days = Array.from({ length: 5_200 }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
    for (let pass = 0; pass < 2; pass++) for (const { expected, write } of checks) for (const day of days) expect(write(day)).toBe(expected.format(new Date(`${day}T00:00:00Z`)));
  });

  it('writes a moment as date and 24-hour time, a time of day as HH:MM', () => {
    const at = new Date(2026, 10, 25, 14, 5);
    expect(formatDateTime(at.toISOString(), 'en')).toBe('25 Nov 2026, 14:05');
    expect(formatDateTime(at.toISOString(), 'sv')).toBe('25 nov. 2026 14:05');
    expect(formatTime('09:30:00')).toBe('09:30');
    expect(formatTime('09:30')).toBe('09:30');
  });

  it('writes numbers and amounts with the language’s separators', () => {
    expect(formatNumber(1234.5, 'en')).toBe('1,234.5');
    expect(formatNumber(1234.5, 'sv')).toBe('1\u00a0234,5');
    expect(formatMoney(1234.5, 'gbp', 'en')).toBe('£1,234.50');
    expect(formatMoney('1234.5', 'sek', 'sv')).toBe('1\u00a0234,50 kr');
    expect(formatMoney(49, 'sek', 'en')).toBe('49.00 kr');
    expect(formatMoney(null, 'sek', 'en')).toBe('');
  });
});

describe('plural forms come from i18next (issue 19: "1 results")', () => {
  it('every text that interpolates {{count}} has its plural forms, in both languages', () => {
    const missing: string[] = [];
    for (const [lang, files] of [
      ['en', [enCommon, enResources]],
      ['sv', [svCommon, svResources]],
    ] as const) {
      const all = files.flatMap((file) => texts(file));
      const keys = new Set(all.map(([key]) => key));
      for (const [key, text] of all) {
        if (!text.includes('{{count}}')) continue;
        const base = key.replace(/_(zero|one|two|few|many|other)$/, '');
        if (base === key || !keys.has(`${base}_one`) || !keys.has(`${base}_other`)) missing.push(`${lang}: ${key}`);
      }
    }
    expect(missing, missing.join('\n')).toEqual([]);
  });
});
