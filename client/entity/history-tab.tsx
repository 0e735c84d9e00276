import { UnderlineNav } from '@primer/react';
import { lazy, Suspense, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { mayReadHistory, type EntityDef, type EntityRecord } from '../../shared/entity/define.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { useAccess } from './access.ts';

// A record's change history (ADR 036): its own chunk, loaded when the tab is opened.
const RecordHistory = lazy(() => import('./record-history.tsx'));

/** The two tabs, links so each has its address (`?tab=history`) and Back goes back. */
function RecordTabs({ history }: { history: boolean }) {
  const { t } = useTranslation();
  return (
    <UnderlineNav aria-label={t('history.tabs')}>
      <UnderlineNav.Item as={Link} to="?" aria-current={history ? undefined : 'page'} data-testid="tab-record">
        {t('history.recordTab')}
      </UnderlineNav.Item>
      <UnderlineNav.Item as={Link} to="?tab=history" aria-current={history ? 'page' : undefined} data-testid="tab-history">
        {t('history.tab')}
      </UnderlineNav.Item>
    </UnderlineNav>
  );
}

/**
 * A record page's body with a History tab beside it, for whoever may read the record's history (an Admin;
 * on an entity with an owner field, the record's owner): the generic record page and the entities' own
 * pages alike. Anyone else gets the body alone.
 */
export function WithHistoryTab({ def, record, children }: { def: EntityDef; record: EntityRecord | null; children: ReactNode }) {
  const access = useAccess(def);
  const [search] = useSearchParams();
  if (!record || !mayReadHistory(def, access.roles, record, access.userId)) return <>{children}</>;
  const history = search.get('tab') === 'history';
  return (
    <>
      <div style={{ marginBottom: 16 }}>
        <RecordTabs history={history} />
      </div>
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
