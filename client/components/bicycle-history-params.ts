import { PAGE_SIZES } from '../../shared/entity/define.ts';

/**
 * The bicycle history's page in the URL (`?history_page=2&history_size=25`), so reloads and links keep
 * it; apart from the component so the router can prefetch it without loading the page's code.
 */
export function historyParams(search: URLSearchParams): { page: number; page_size: 10 | 25 | 50 | 100 } {
  const page = Math.max(1, Math.min(1_000_000, Number.parseInt(search.get('history_page') ?? '1', 10) || 1));
  const size = Number(search.get('history_size'));
  return { page, page_size: ((PAGE_SIZES as readonly number[]).includes(size) ? size : 10) as 10 | 25 | 50 | 100 };
}
