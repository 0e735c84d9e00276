import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../shared/project-root.server.ts';
import type { Lang } from './lang.ts';

/**
 * The seeded catalogue names as the screens show them (ADR 078): the database keeps a seeded value as seeded
 * ("Morning"), and a Swedish page shows it from the back office's locales (`resources.<entity>.seeded.<value>`:
 * "Förmiddag"). A list's search reads the same keys, so a text of the name on the page finds the value stored
 * (issue 33). Read from `locales/<lang>/resources.json` once per language; without the file (an API deployed
 * without the locales) no seeded name is known and a search matches the stored values only.
 */
type Seeded = Record<string, Record<string, string>>;
const byLang = new Map<Lang, Seeded>();

function seededOf(lang: Lang): Seeded {
  const known = byLang.get(lang);
  if (known) return known;
  let seeded: Seeded = {};
  try {
    const resources = JSON.parse(readFileSync(join(projectRoot(import.meta.url), 'locales', lang, 'resources.json'), 'utf8')) as Record<string, { seeded?: unknown }>;
    seeded = Object.fromEntries(
      Object.entries(resources).flatMap(([entity, texts]) =>
        texts && typeof texts.seeded === 'object' && texts.seeded !== null ? [[entity, texts.seeded as Record<string, string>]] : [],
      ),
    );
  } catch {
    // No locales beside the API: stored values only.
  }
  byLang.set(lang, seeded);
  return seeded;
}

/**
 * The seeded values of `entity` (lowered, as a search compares them) whose name on a page in `lang` contains the
 * search but whose stored value does not: the values a search of the stored text alone would miss.
 */
export function seededValuesNamed(entity: string, lang: Lang, search: string): string[] {
  const names = seededOf(lang)[entity];
  if (!names) return [];
  const text = search.toLowerCase();
  return Object.entries(names)
    .filter(([value, name]) => typeof name === 'string' && name.toLowerCase().includes(text) && !value.toLowerCase().includes(text))
    .map(([value]) => value.toLowerCase());
}
