import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import { mayReadHistory } from '../../shared/entity/history-access.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { UnderlineTabs as Tabs } from '../components/underline-tabs.ts';
import { useAccess } from './access.ts';

// A record's change history (ADR 036): its own chunk, loaded when the tab is opened.
const RecordHistory = lazy(() => import('./record-history.tsx'));

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
