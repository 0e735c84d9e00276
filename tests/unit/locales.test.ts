import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import enCommon from '../../locales/en/common.json';
import svCommon from '../../locales/sv/common.json';
import enResources from '../../locales/en/resources.json';
import svResources from '../../locales/sv/resources.json';

function keys(value: unknown, prefix = ''): string[] {
  if (!value || typeof value !== 'object') return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const root = join(import.meta.dirname, '..', '..');

describe('translations', () => {
  it('English and Swedish have the same keys', () => {
    expect(keys(svCommon).sort()).toEqual(keys(enCommon).sort());
    expect(keys(svResources).sort()).toEqual(keys(enResources).sort());
  });

  it('every validation message and error code the code can produce is translated in both languages', () => {
    const used = new Set<string>();
    for (const file of ['shared', 'upstream', 'server', 'client'].flatMap((d) => sources(join(root, d)))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/'validation\.([A-Za-z]+)(?::[-\d.]+)?'/g)) used.add(`validation.${match[1]}`);
    }
    expect(used.size).toBeGreaterThan(20);
    for (const [name, locale] of [
      ['en', enCommon],
      ['sv', svCommon],
    ] as const) {
      const known = new Set(keys(locale));
      for (const key of used) expect(known.has(key), `${name}: ${key}`).toBe(true);
    }
    for (const code of [
      'invalid_transition',
      'buddy_not_scheduled',
      'buddy_not_working',
      'slot_full',
      'day_full',
      'has_bookings',
      'service_not_booked',
      'invalid_address',
      'geocoder_unavailable',
      'geocoder_not_configured',
    ]) {
      expect(keys(enCommon)).toContain(`errors.${code}`);
      expect(keys(svCommon)).toContain(`errors.${code}`);
    }
  });

  it('English spells "canceled" one way, as the API does (US: canceled, canceling)', () => {
    const texts = [enCommon, enResources].flatMap((file) => JSON.stringify(file).match(/"(?:[^"\\]|\\.)*"/g) ?? []);
    expect(texts.filter((text) => /cancell(ed|ing)/i.test(text))).toEqual([]);
  });
});
