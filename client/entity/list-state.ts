import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, filterKeys, sortableKeys, type EntityDef, type ListParams } from '../../shared/entity/define.ts';

/**
 * The whole list state lives in the URL (`?page=2&page_size=50&search=x&ordering=-name&f_is_active=true`),
 * so reload, back and shared links keep it. Unknown or invalid values fall back to defaults. A page reached by
 * Next also carries where it starts (`after`, ADR 051), which only that step sets.
 */
export function parseListParams(def: EntityDef, search: URLSearchParams): ListParams {
  const page = Math.max(1, Math.min(1_000_000, Number.parseInt(search.get('page') ?? '1', 10) || 1));
  const size = Number.parseInt(search.get('page_size') ?? '', 10);
  const ordering = search.get('ordering') ?? def.defaultSort;
  const valid = sortableKeys(def).flatMap((k) => [k, `-${k}`]);
  const filters: ListParams['filters'] = {};
  for (const key of filterKeys(def)) {
    const value = search.get(`f_${key}`);
    if (value !== null && value !== '') filters[key] = value.slice(0, 100);
  }
  const text = search.get('search')?.trim().slice(0, 200);
  const after = search.get('after');
  return {
    page,
    page_size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
    ...(text ? { search: text } : {}),
    // Where the page starts when it was reached by Next (ADR 051); any other change of the list drops it.
    ...(after && page > 1 && /^[\w-]{1,200}$/.test(after) ? { after } : {}),
    ordering: valid.includes(ordering) ? ordering : undefined,
    filters,
  };
}

export function useListState(def: EntityDef) {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => parseListParams(def, search), [def, search]);

  const update = useCallback(
    (changes: Record<string, string | number | undefined | null>, resetPage = true) => {
      setSearch((current) => {
        // React Router hands the params of the last render; two quick changes (a date range's from and
        // to) would lose the first. The address bar already holds every navigation made so far.
        const next = new URLSearchParams(typeof window === 'undefined' ? current : window.location.search);
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined || value === null || value === '') next.delete(key);
          else next.set(key, String(value));
        }
        if (resetPage && !('page' in changes)) next.delete('page');
        if (!('after' in changes)) next.delete('after');
        return next;
      });
    },
    [setSearch],
  );

  return { params, update };
}
