import type { TFunction } from 'i18next';

/**
 * A catalogue value in the UI language when it is one the app seeded (ADR 078): a work slot "Morning",
 * a bicycle type "City bike", a role "Customer" are stored as seeded, in English, and read in Swedish from
 * `resources.<entity>.seeded.<value>`. A value anyone typed (or renamed) has no such key and shows as typed.
 * `text` may be a label that starts with the value and goes on without a letter ("Morning 08:00–12:00"):
 * the value part is translated ("Swedish (sv)" too; "Morning shift 08:00–12:00", typed, is not).
 */
export function seededText(t: TFunction, entity: string, text: string): string {
  const seeded = t(`resources.${entity}.seeded`, { returnObjects: true, defaultValue: null }) as Record<string, string> | null;
  if (!seeded || typeof seeded !== 'object') return text;
  const own = seeded[text];
  if (own !== undefined) return own;
  for (const [value, translated] of Object.entries(seeded))
    if (text.startsWith(`${value} `) && !/\p{L}/u.test(text.slice(value.length).replace(/\([^)]*\)/g, ''))) return translated + text.slice(value.length);
  return text;
}
