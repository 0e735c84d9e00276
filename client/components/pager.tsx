import { useEffect, useState, type FormEvent } from 'react';
import { Button, Select, TextInput } from './controls.tsx';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Paginator } from '../../shared/entity/define.ts';
import { formatNumber } from '../../shared/format.ts';

const SIZES = [10, 25, 50, 100] as const;

/**
 * Result count, page size choice (10/25/50/100), first / previous / a typed page / next / last, for every
 * paged list. Next hands on where the next page starts when the list gives it (keyset paging, ADR 051); a
 * page reached any other way is read by its number. The last page is offered only when the count is exact
 * (an estimated count, ADR 040, does not know it); a typed page beyond the last goes to the last.
 */
export function Pager({ paginator, onPage, onPageSize }: { paginator: Paginator; onPage: (page: number, after?: string) => void; onPageSize: (size: number) => void }) {
  const { t, i18n } = useTranslation();
  const hasNext = paginator.has_next ?? paginator.page < paginator.total_pages;
  const lastPage = paginator.estimated ? null : Math.max(1, paginator.total_pages);
  const [typed, setTyped] = useState(String(paginator.page));
  useEffect(() => setTyped(String(paginator.page)), [paginator.page]);
  const goTo = (event: FormEvent) => {
    event.preventDefault();
    const wanted = Number.parseInt(typed, 10);
    if (!Number.isFinite(wanted) || wanted < 1) return setTyped(String(paginator.page));
    const page = lastPage === null ? Math.min(wanted, 1_000_000) : Math.min(wanted, lastPage);
    setTyped(String(page));
    if (page !== paginator.page) onPage(page);
  };
  return (
    <nav aria-label={t('list.pagination')} className="bo-bar-between bo-pager">
      <span data-testid="list-count">{pageSummary(t, i18n.language, paginator)}</span>
      <div className="bo-bar">
        <label className="bo-bar">
          {t('list.pageSize')}
          <Select value={String(paginator.page_size)} onChange={(e) => onPageSize(Number(e.target.value))} data-testid="page-size">
            {SIZES.map((size) => (
              <Select.Option key={size} value={String(size)}>
                {size}
              </Select.Option>
            ))}
          </Select>
        </label>
        <Button size="small" disabled={paginator.page <= 1} onClick={() => onPage(1)} data-testid="page-first">
          {t('list.first')}
        </Button>
        <Button size="small" disabled={paginator.page <= 1} onClick={() => onPage(paginator.page - 1)}>
          {t('list.previous')}
        </Button>
        <form className="bo-bar" onSubmit={goTo} data-testid="page-jump">
          <label className="bo-bar">
            {t('list.pageNumber')}
            <TextInput
              size="small"
              type="number"
              inputMode="numeric"
              min={1}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              style={{ width: 80 }}
              data-testid="page-number"
            />
          </label>
          <Button size="small" type="submit">
            {t('list.goToPage')}
          </Button>
        </form>
        <Button size="small" disabled={!hasNext} onClick={() => onPage(paginator.page + 1, paginator.next_after)} data-testid="page-next">
          {t('list.next')}
        </Button>
        {lastPage !== null && (
          <Button size="small" disabled={paginator.page >= lastPage} onClick={() => onPage(lastPage)} data-testid="page-last">
            {t('list.last')}
          </Button>
        )}
      </div>
    </nav>
  );
}

/**
 * "Page 2 of 5 · 48 results", or for a count the API estimated (ADR 040) "Page 2 of about 9,200 · about
 * 230,000 results": an estimate is rounded to two significant digits and always says "about".
 */
export function pageSummary(t: TFunction, lang: string, paginator: Paginator): string {
  const total = formatNumber(paginator.count, lang, { maximumSignificantDigits: paginator.estimated ? 2 : 21 });
  const pages = Math.max(1, paginator.total_pages);
  if (paginator.estimated) return t('list.summaryAbout', { page: paginator.page, pages: formatNumber(pages, lang, { maximumSignificantDigits: 2 }), total });
  return t('list.summary', { page: paginator.page, pages, count: paginator.count, total });
}
