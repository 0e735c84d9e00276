import { Button, Select } from './controls.tsx';
import { useTranslation } from 'react-i18next';
import type { Paginator } from '../../shared/entity/define.ts';

const SIZES = [10, 25, 50, 100] as const;

/** Result count, page size choice (10/25/50/100) and previous/next, for every paged list. */
export function Pager({ paginator, onPage, onPageSize }: { paginator: Paginator; onPage: (page: number) => void; onPageSize: (size: number) => void }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('list.pagination')} className="bo-bar-between bo-pager">
      <span data-testid="list-count">{t('list.summary', { page: paginator.page, pages: Math.max(1, paginator.total_pages), count: paginator.count })}</span>
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
        <Button size="small" disabled={paginator.page <= 1} onClick={() => onPage(paginator.page - 1)}>
          {t('list.previous')}
        </Button>
        <Button size="small" disabled={paginator.page >= paginator.total_pages} onClick={() => onPage(paginator.page + 1)} data-testid="page-next">
          {t('list.next')}
        </Button>
      </div>
    </nav>
  );
}
