import { useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { PHONE_MEDIA } from './breakpoints.ts';
import { SpriteIcon } from './sprite-icon.tsx';

const Bar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  margin: 16px 0;
  select {
    max-width: 280px;
  }
  > [data-filters] {
    display: contents;
  }
  /* A phone keeps the search in view and folds the filters away behind one button (ADR 021). */
  ${PHONE_MEDIA} {
    > * {
      flex: 1 1 100%;
      max-width: 100%;
    }
    > [data-filters] {
      display: none;
    }
    > [data-filters][data-open='true'] {
      display: grid;
      gap: 8px;
    }
    [data-filters] > *,
    select {
      width: 100%;
      max-width: 100%;
    }
    /* A choice list with its own filter box (reference pickers) fills the line too. */
    [data-filters] > span > * {
      flex: 1 1 auto;
      min-width: 0;
    }
  }
`;

const FilterToggle = styled.button`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 8px;
  min-height: 40px;
  padding: 0 12px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-radius: 6px;
  background: var(--bgColor-muted, #f6f8fa);
  color: var(--fgColor-default, #1f2328);
  font: inherit;
  font-size: 14px;
  cursor: pointer;
`;

/**
 * The search and filters above a list: one wrapping row on a wide screen; on a phone the search, then a
 * "Filters (n)" button that unfolds the filters, one full-width control per line. Server-rendered folded,
 * so nothing moves when the page hydrates.
 */
export function FilterBar({ search, active, children }: { search: ReactNode; active: number; children?: ReactNode }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <Bar role="search">
      {search}
      {children && (
        <>
          <FilterToggle type="button" className="phone-only" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} data-testid="filters-toggle">
            <SpriteIcon name="filter" />
            {active ? t('phone.filtersActive', { n: active }) : t('phone.filters')}
          </FilterToggle>
          <div id={id} data-filters="" data-open={open}>
            {children}
          </div>
        </>
      )}
    </Bar>
  );
}
