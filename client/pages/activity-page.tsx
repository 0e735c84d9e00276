import { Flash, Heading, Select, TextInput } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { EntityDef } from '../../shared/entity/define.ts';
import { USER_REFERENCE } from '../../shared/entities/people.ts';
import { ENTITIES, entityByName } from '../../shared/entities/registry.ts';
import { AUDIT_PAGE_SIZE, AUDIT_PAGE_SIZES, auditFilters, type AuditFilters } from '../../shared/schemas/audit.ts';
import { FilterBar } from '../components/filter-bar.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { Pager } from '../components/pager.tsx';
import { CsvExportButton } from '../entity/csv-export.tsx';
import { HistoryEntries, RecordLink } from '../entity/record-history.tsx';
import { ReferencePicker } from '../entity/reference-choices.tsx';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';

const ACTIONS = ['create', 'update', 'delete', 'transition'] as const;
const FILTER_KEYS = ['user_id', 'entity', 'action', 'from', 'to'] as const;

/** The filters and page in the address (so a filtered view can be shared and Back restores it); a bad value is dropped. */
function paramsOf(search: URLSearchParams) {
  const raw = Object.fromEntries(FILTER_KEYS.flatMap((key) => (search.get(key) ? [[key, search.get(key)!]] : [])));
  const parsed = auditFilters.safeParse(raw);
  const filters: AuditFilters = parsed.success ? parsed.data : {};
  const page = Math.max(1, Math.min(1_000_000, Number(search.get('page')) || 1));
  const size = Number(search.get('page_size'));
  const pageSize = (AUDIT_PAGE_SIZES as readonly number[]).includes(size) ? size : AUDIT_PAGE_SIZE;
  return { filters, page, pageSize };
}

const defOf = (entity: string) => entityByName(entity);

/** /activity (Admin, ADR 036): every change, newest first, by person, entity, action and day range, with a CSV export. */
export default function ActivityPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const { filters, page, pageSize } = paramsOf(search);
  const history = trpc.audit.list.useQuery({ ...filters, page, page_size: pageSize }, { placeholderData: (previous) => previous, staleTime: 0 });

  const change = (changes: Record<string, string | undefined>) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined || value === '') next.delete(key);
        else next.set(key, value);
      }
      if (!('page' in changes)) next.delete('page');
      return next;
    });

  const entities = (ENTITIES as readonly EntityDef[])
    .map((def) => ({ name: def.name, label: t(`resources.${def.name}.name`, { defaultValue: def.name }) }))
    .sort((a, b) => a.label.localeCompare(b.label));
  const active = FILTER_KEYS.filter((key) => filters[key] !== undefined).length;

  return (
    <section>
      <div className="bo-bar-between" style={{ flexWrap: 'wrap', gap: 12 }}>
        <Heading as="h1">{t('routes.activity')}</Heading>
        <CsvExportButton name="audit" filters={filters} />
      </div>
      <p className="bo-muted" style={{ marginTop: 4 }}>
        {t('history.activityIntro')}
      </p>
      <FilterBar search={null} active={active}>
        <ReferencePicker
          reference={USER_REFERENCE}
          value={filters.user_id ?? null}
          onChange={(v) => change({ user_id: v === null ? undefined : String(v) })}
          label={t('history.person')}
          emptyLabel={t('history.anyPerson')}
          name="user_id"
          testId="activity-user"
        />
        <Select aria-label={t('history.entity')} value={filters.entity ?? ''} onChange={(e) => change({ entity: e.target.value })} data-testid="activity-entity">
          <Select.Option value="">{t('history.anyEntity')}</Select.Option>
          {entities.map((e) => (
            <Select.Option key={e.name} value={e.name}>
              {e.label}
            </Select.Option>
          ))}
        </Select>
        <Select aria-label={t('history.action')} value={filters.action ?? ''} onChange={(e) => change({ action: e.target.value })} data-testid="activity-action">
          <Select.Option value="">{t('history.anyAction')}</Select.Option>
          {ACTIONS.map((action) => (
            <Select.Option key={action} value={action}>
              {t(`history.actions.${action}`)}
            </Select.Option>
          ))}
        </Select>
        <span className="bo-range" role="group" aria-label={t('history.when')}>
          <TextInput type="date" aria-label={t('history.from')} value={filters.from ?? ''} onChange={(e) => change({ from: e.target.value })} data-testid="activity-from" />
          <span aria-hidden="true">–</span>
          <TextInput type="date" aria-label={t('history.to')} value={filters.to ?? ''} onChange={(e) => change({ to: e.target.value })} data-testid="activity-to" />
        </span>
      </FilterBar>
      {history.error ? (
        <Flash variant="danger" role="alert">
          {errorText(t, history.error)}
        </Flash>
      ) : !history.data ? (
        <PageSpinner />
      ) : history.data.results.length === 0 ? (
        <p className="bo-muted" data-testid="history-empty">
          {t(active ? 'list.noMatches' : 'history.empty')}
        </p>
      ) : (
        <>
          <HistoryEntries entries={history.data.results} defOf={defOf} recordLink={(entry) => <RecordLink entry={entry} def={defOf(entry.entity)} />} />
          <Pager paginator={history.data.paginator} onPage={(p) => change({ page: String(p) })} onPageSize={(size) => change({ page_size: String(size) })} />
        </>
      )}
    </section>
  );
}
