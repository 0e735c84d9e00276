import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import { mayReadHistory } from '../../shared/entity/history-access.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { useAccess } from './access.ts';

// A record's change history (ADR 036): its own chunk, loaded when the tab is opened.
const RecordHistory = lazy(() => import('./record-history.tsx'));

// Tabs drawn as Primer's underline navigation, without its component (kept out of every record page's chunk list).
const Tabs = styled.nav`
  display: flex;
  gap: 8px;
  margin-bottom: 16px;
  border-bottom: 1px solid var(--borderColor-muted, #d1d9e0b3);
  a {
    padding: 8px 12px;
    color: var(--fgColor-default, #1f2328);
    text-decoration: none;
    border-bottom: 2px solid transparent;
    margin-bottom: -1px;
    border-radius: 6px 6px 0 0;
  }
  a:hover {
    background: var(--bgColor-neutral-muted, #818b981f);
  }
  a:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
  }
  a[aria-current='page'] {
    font-weight: 600;
    border-bottom-color: var(--underlineNav-borderColor-active, #fd8c73);
  }
`;

/** The record page's two tabs, links so each has its address (`?tab=history`) and Back goes back. */
function RecordTabs({ history }: { history: boolean }) {
  const { t } = useTranslation();
  const tab = (to: string, current: boolean, text: string, testId: string) => (
    <Link to={to} aria-current={current ? 'page' : undefined} data-testid={testId}>
      {text}
    </Link>
  );
  return (
    <Tabs aria-label={t('resources._history.tabs')} className="no-print">
      {tab('?', !history, t('resources._history.recordTab'), 'tab-record')}
      {tab('?tab=history', history, t('resources._history.tab'), 'tab-history')}
    </Tabs>
  );
}

/**
 * A record page's body with a History tab beside it, for whoever may read the record's history (an Admin;
 * on an entity with an owner field, the record's owner): the generic record page and the entities' own
 * pages (a service's, a user's). Anyone else gets the body alone.
 */
export function WithHistoryTab({ def, record, children }: { def: EntityDef; record: EntityRecord | null; children: ReactNode }) {
  const access = useAccess(def);
  const [search] = useSearchParams();
  if (!record || !mayReadHistory(def, access.roles, record, access.userId)) return <>{children}</>;
  const history = search.get('tab') === 'history';
  return (
    <>
      <RecordTabs history={history} />
      {history ? (
        <Suspense fallback={<PageSpinner />}>
          <RecordHistory def={def} id={record.id} />
        </Suspense>
      ) : (
        children
      )}
    </>
  );
}
