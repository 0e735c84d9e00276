import { Button, Heading, Select, TextInput } from '../components/controls.tsx';
import { spriteIcon } from '../components/sprite-icon.tsx';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { EntityDef } from '../../shared/entity/define.ts';
import { USER_REFERENCE } from '../../shared/entities/people.ts';
import { isIsoDate } from '../../shared/entity/define.ts';
import type { AccountEventFilter, AuditFilters } from '../../shared/schemas/audit.ts';
import { Pager } from '../components/pager.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { CsvExportButton } from '../entity/csv-export.tsx';
import { AccountEventsFilter, HistoryEntries, HistoryResults, RECORDED_ACTIONS, RecordLink } from '../entity/record-history.tsx';
import { ReferenceCombobox } from '../entity/reference-combobox.tsx';
import { loadEntityDef } from '../routes.tsx';
import { trpc } from '../trpc.ts';

const XIcon = spriteIcon('x');
const FILTER_KEYS = ['user_id', 'entity', 'record_id', 'action', 'from', 'to', 'account_events'] as const;

// The pager's sizes (components/pager.tsx) and the history's default (shared/schemas/audit.ts, whose zod
// schemas the page does not load: the procedure checks its input anyway).
const PAGE_SIZES = [10, 25, 50, 100];
const PAGE_SIZE = 25;

/** The filters and page in the address (so a filtered view can be shared and Back restores it); a bad value is dropped. */
function paramsOf(search: URLSearchParams) {
  const text = (key: string, valid: (v: string) => boolean) => {
    const value = search.get(key);
    return value && value.length <= 64 && valid(value) ? value : undefined;
  };
  const id = (key: string) => {
    const value = Number(text(key, (v) => /^[1-9]\d{0,14}$/.test(v)));
    return Number.isSafeInteger(value) ? value : undefined;
  };
  const filters: AuditFilters = Object.fromEntries(
    Object.entries({
      user_id: id('user_id'),
      entity: text('entity', (v) => /^[a-z][a-z0-9-]*$/.test(v)),
      record_id: id('record_id'),
      action: text('action', (v) => /^[a-zA-Z][a-zA-Z0-9_-]*$/.test(v)),
      from: text('from', isIsoDate),
      to: text('to', isIsoDate),
      // Hidden unless asked for (ADR 065): sign-ins would flood the page.
      account_events: text('account_events', (v) => v === 'shown' || v === 'only') as AccountEventFilter | undefined,
    }).filter(([, v]) => v !== undefined),
  );
  const page = Math.max(1, Math.min(1_000_000, Number(search.get('page')) || 1));
  const size = Number(search.get('page_size'));
  return { filters, page, pageSize: PAGE_SIZES.includes(size) ? size : PAGE_SIZE };
}

/**
 * The definitions of the entities a page of entries names (labels, value rendering), each loaded as the
 * record screens load it: the page does not carry every entity's definition. `ready` once every name has its
 * definition (or is known to have none): until then an entry would read as raw names ("Users #3", field keys).
 */
function useDefinitions(names: readonly string[]): { defs: Record<string, EntityDef>; ready: boolean } {
  const [known, setKnown] = useState<Record<string, EntityDef | null>>({});
  const missing = [...new Set(names)]
    .filter((name) => !(name in known))
    .sort()
    .join(',');
  useEffect(() => {
    if (!missing) return;
    let live = true;
    const wanted = missing.split(',');
    void Promise.all(wanted.map((name) => (loadEntityDef(name) ?? Promise.resolve(undefined)).catch(() => undefined))).then((loaded) => {
      if (live) setKnown((current) => ({ ...current, ...Object.fromEntries(wanted.map((name, i) => [name, loaded[i] ?? null])) }));
    });
    return () => {
      live = false;
    };
  }, [missing]);
  const defs = Object.fromEntries(Object.entries(known).flatMap(([name, def]) => (def ? [[name, def]] : []))) as Record<string, EntityDef>;
  return { defs, ready: missing === '' };
}

/** The activity's filters: person, entity, action, account events, days, and the record filter when one is set. */
function ActivityFilters({ filters, change }: { filters: AuditFilters; change: (changes: Record<string, string | undefined>) => void }) {
  const { t } = useTranslation();
  // Every entity has its labels under resources.<name> (the page has every text: ADR 024); `_history` is these screens' own.
  const labels = t('resources', { returnObjects: true }) as Record<string, { name?: string }>;
  const entities = Object.entries(typeof labels === 'object' ? labels : {})
    .filter(([name]) => !name.startsWith('_'))
    .map(([name, text]) => ({ name, label: text.name ?? name }))
    .sort((a, b) => a.label.localeCompare(b.label));
  return (
    <div className="bo-bar" role="search" style={{ margin: '16px 0' }}>
      <ReferenceCombobox
        reference={USER_REFERENCE}
        value={filters.user_id ?? null}
        onChange={(v) => change({ user_id: v === null ? undefined : String(v) })}
        label={t('resources._history.person')}
        emptyLabel={t('resources._history.anyPerson')}
        testId="activity-user"
      />
      <Select aria-label={t('resources._history.entity')} value={filters.entity ?? ''} onChange={(e) => change({ entity: e.target.value })} data-testid="activity-entity">
        <Select.Option value="">{t('resources._history.anyEntity')}</Select.Option>
        {entities.map((e) => (
          <Select.Option key={e.name} value={e.name}>
            {e.label}
          </Select.Option>
        ))}
      </Select>
      <Select aria-label={t('resources._history.action')} value={filters.action ?? ''} onChange={(e) => change({ action: e.target.value })} data-testid="activity-action">
        <Select.Option value="">{t('resources._history.anyAction')}</Select.Option>
        {RECORDED_ACTIONS.map((action) => (
          <Select.Option key={action} value={action}>
            {t(`resources._history.actions.${action}`)}
          </Select.Option>
        ))}
      </Select>
      <AccountEventsFilter value={filters.account_events ?? 'hidden'} onChange={(value) => change({ account_events: value === 'hidden' ? undefined : value })} />
      <span className="bo-range" role="group" aria-label={t('resources._history.when')}>
        <span aria-hidden="true" className="bo-muted">
          {t('resources._history.when')}
        </span>
        <TextInput
          type="date"
          aria-label={t('resources._history.from')}
          value={filters.from ?? ''}
          onChange={(e) => change({ from: e.target.value })}
          data-testid="activity-from"
        />
        <span aria-hidden="true">–</span>
        <TextInput type="date" aria-label={t('resources._history.to')} value={filters.to ?? ''} onChange={(e) => change({ to: e.target.value })} data-testid="activity-to" />
      </span>
      {filters.record_id !== undefined && (
        <Button onClick={() => change({ record_id: undefined })} leadingVisual={XIcon} data-testid="activity-record">
          {t('resources._history.recordFilter', { id: filters.record_id })}
        </Button>
      )}
    </div>
  );
}

/** /activity (Admin, ADR 036): every change, newest first, by person, entity, action and day range, with a CSV export. */
export default function ActivityPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const { filters: chosen, page, pageSize } = paramsOf(search);
  const filters: AuditFilters = { ...chosen, account_events: chosen.account_events ?? 'hidden' };
  const history = trpc.audit.list.useQuery({ ...filters, page, page_size: pageSize }, { placeholderData: (previous) => previous, staleTime: 0 });

  const { defs, ready } = useDefinitions(history.data?.results.map((entry) => entry.entity) ?? []);
  const defOf = (entity: string) => defs[entity];
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

  const active = FILTER_KEYS.filter((key) => chosen[key] !== undefined).length;

  return (
    <section>
      <div className="bo-bar-between" style={{ flexWrap: 'wrap', gap: 12 }}>
        <Heading as="h1">{t('routes.activity')}</Heading>
        <CsvExportButton name="audit" filters={filters} />
      </div>
      <p className="bo-muted" style={{ marginTop: 4 }}>
        {t('resources._history.activityIntro')}
      </p>
      <ActivityFilters filters={filters} change={change} />
      <HistoryResults history={history} empty={t(active ? 'list.noMatches' : 'resources._history.empty')}>
        {(data) => (
          <>
            {ready ? <HistoryEntries entries={data.results} defOf={defOf} recordLink={(entry) => <RecordLink entry={entry} def={defOf(entry.entity)} />} /> : <PageSpinner />}
            <Pager paginator={data.paginator} onPage={(p) => change({ page: String(p) })} onPageSize={(size) => change({ page_size: String(size) })} />
          </>
        )}
      </HistoryResults>
    </section>
  );
}
