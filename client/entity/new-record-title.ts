import type { TFunction } from 'i18next';

/**
 * "New …" for an entity, agreeing with its noun where the language needs it (issue 33): Swedish says "Ny
 * cykel" but "Nytt servicejobb". The noun's grammatical gender is the locale's `resources.<name>.gender`
 * ("neuter" in Swedish for ett-words, empty where the language has none) and picks `list.new`'s i18next
 * context (`list.new_neuter`). One place for every create button, title and dialog of the engine.
 */
export function newRecordTitle(t: TFunction, entity: string): string {
  return t('list.new', { name: t(`resources.${entity}.one`), context: t(`resources.${entity}.gender`, { defaultValue: '' }) });
}
