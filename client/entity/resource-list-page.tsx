import { Button, Flash, Heading, Spinner } from '../components/controls.tsx';
import { lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { newRecordTitle } from './new-record-title.ts';
import { labelOf as labelOfDef, rowActionKeys, type EntityDef, type EntityRecord, type FieldDef, type ListParams } from '../../shared/entity/define.ts';
import { errorText } from '../errors.ts';
import { withAllTranslations } from '../i18n.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { useListState } from './list-state.ts';
import { spriteIcon } from '../components/sprite-icon.tsx';
import './resource-list.css';
import { CsvExportButton } from './csv-export.tsx';
import { Pager } from '../components/pager.tsx';
import { useAccess } from './access.ts';
// The card layout of a phone (ADR 021): static CSS, like the list's own.
import '../components/data-table.css';

import { ListFilters } from './list-filters.tsx';
import { ListTable } from './list-table.tsx';
const PlusIcon = spriteIcon('plus');

// The create/edit dialog (Primer Dialog and the whole form machinery) loads when it is first opened.
const RecordDialog = lazy(() => withAllTranslations(import('./record-dialog.tsx')));
// A row's declared actions (ADR 069): loaded only by lists that draw some.
const RecordActions = lazy(() => import('./record-actions.tsx').then((m) => ({ default: m.RecordActions })));

/** The buttons of the declared actions a row offers (`rowActionKeys`), as a row's compact buttons. */
function declaredRowActions(def: EntityDef): ((record: EntityRecord) => ReactNode) | undefined {
  const only = rowActionKeys(def);
  if (only.length === 0) return undefined;
  return (record) => (
    <Suspense fallback={null}>
      <RecordActions def={def} record={record} only={only} variant="compact" />
    </Suspense>
  );
}

function columns(def: EntityDef, fixed: Record<string, unknown>): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([key, f]) => f.list && !f.hidden && !(key in fixed));
}

interface ListProps {
  def: EntityDef;
  /**
   * Filters the surrounding page fixes (a user's subscriptions, an event's slots): always applied,
   * neither shown as a filter nor as a column, and given to records created here.
   */
  fixedFilters?: Record<string, string | number>;
  /** Extra buttons beside "New" (a link to a calendar). */
  headerActions?: ReactNode;
  /** A row's buttons beside edit and delete; default: the declared actions a row offers (`rowActionKeys`, ADR 069). */
  rowActions?: (record: EntityRecord) => ReactNode;
  /** Shown between the title bar and the list (the outcome of row actions). */
  children?: ReactNode;
  /** h2 when the list is one part of a page (the scheduler's tabs, an event's slots). */
  headingLevel?: 'h1' | 'h2';
  /** The heading, when the route names the screen differently ("Bike Expert"). */
  title?: string;
}

const NO_FILTERS: Record<string, string | number> = {};

/** Deleting a row: asks first, then refreshes the list and says how it went. */
function useDeleteRecord(def: EntityDef, labelOf: (record: EntityRecord) => string) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = useEntityUtils(def);
  const remove = entityApi(def).delete.useMutation();
  return async (record: EntityRecord) => {
    if (!(await confirm({ message: t('form.deleteConfirm', { name: labelOf(record) }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: record.id });
      await utils.list.invalidate();
      toast.success((t) => t(def.messages?.deleted ?? 'form.deleted', { name: labelOf(record) }));
    } catch (error) {
      toast.error((t) => errorText(t, error));
    }
  };
}

/** The title bar: the heading, the page's own buttons, the CSV export and "New …". */
function ListHeader({
  def,
  params,
  heading,
  headingLevel,
  headerActions,
  newTitle,
  onNew,
}: {
  def: EntityDef;
  params: ListParams;
  heading: string;
  headingLevel: 'h1' | 'h2';
  headerActions?: ReactNode;
  newTitle: string | null;
  onNew: () => void;
}) {
  return (
    <div className="bo-bar-between">
      <Heading as={headingLevel} style={headingLevel === 'h2' ? { fontSize: 20 } : undefined}>
        {heading}
      </Heading>
      <div className="bo-bar">
        {headerActions}
        {def.exportable && <CsvExportButton name={def.name} search={params.search} filters={params.filters} />}
        {newTitle !== null && (
          <Button variant="primary" leadingVisual={PlusIcon} onClick={onNew} data-testid="list-new">
            {newTitle}
          </Button>
        )}
      </div>
    </div>
  );
}

/** The list's parameters: the URL's (search, filters, sorting, page) with the fixed filters (a record's sub-collection) over them. */
function useListParams(def: EntityDef, fixedFilters: Record<string, string | number>) {
  const { params: urlParams, update } = useListState(def);
  const params = useMemo<ListParams>(
    () =>
      fixedFilters === NO_FILTERS
        ? urlParams
        : { ...urlParams, filters: { ...urlParams.filters, ...Object.fromEntries(Object.entries(fixedFilters).map(([k, v]) => [k, String(v)])) } },
    [urlParams, fixedFilters],
  );
  return { urlParams, params, update };
}

/** The list could not be loaded: why, and a retry. */
function ListError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Flash variant="danger" role="alert" data-testid="list-error">
      {errorText(t, error)}{' '}
      <Button size="small" onClick={onRetry}>
        {t('errors.retry')}
      </Button>
    </Flash>
  );
}

/** The list's first load, said to screen readers too. */
function ListLoading() {
  const { t } = useTranslation();
  return (
    <div role="status" style={{ display: 'flex', gap: 8, alignItems: 'center', padding: 16 }} data-testid="list-loading">
      <Spinner size="small" srText={null} /> {t('app.loading')}
    </div>
  );
}

/**
 * The generic list screen: search, filters, sorting, paging, all in the URL; create/edit/delete as the
 * user's access allows (ADR 009); reads only for a read-only entity (ADR 013). Owner-scoped users get no
 * owner filter: they see only their own.
 */
export function ResourceListPage({ def, fixedFilters = NO_FILTERS, headerActions, rowActions, children, headingLevel = 'h1', title: heading }: ListProps) {
  const { t, i18n } = useTranslation();
  const access = useAccess(def);
  const navigate = useNavigate();
  const { urlParams, params, update } = useListParams(def, fixedFilters);
  const list = entityApi(def).list.useQuery(params);
  const [editing, setEditing] = useState<EntityRecord | 'new' | null>(null);
  const title = t(`resources.${def.name}.name`);
  // "New …" agrees with the noun where a language needs it (sv: "Nytt evenemang").
  const newTitle = newRecordTitle(t, def.name);
  const labelOf = (record: EntityRecord) => labelOfDef(def, record, i18n.language);
  const onDelete = useDeleteRecord(def, labelOf);

  const open = (record: EntityRecord | 'new') => {
    if (def.detailRoute) navigate(def.detailRoute.replace(':id', record === 'new' ? 'new' : String(record.id)));
    else setEditing(record);
  };

  const data = list.data;
  // An owner-scoped user owns every row: their own name in a column says nothing.
  const cols = columns(def, fixedFilters).filter(([key]) => !(access.ownerScoped && key === access.ownerField));
  const filterFields = Object.entries(def.fields).filter(([key, f]) => f.filter && !f.filterHidden && !(key in fixedFilters) && !(access.ownerScoped && key === access.ownerField));

  return (
    <section data-testid={`list-${def.name}`}>
      <ListHeader
        def={def}
        params={params}
        heading={heading ?? title}
        headingLevel={headingLevel}
        headerActions={headerActions}
        newTitle={!def.readOnly && access.canCreate ? newTitle : null}
        onNew={() => open('new')}
      />
      {children}
      <ListFilters def={def} fields={filterFields} params={params} active={Object.values(urlParams.filters).filter((v) => v !== undefined && v !== '').length} update={update} />

      {list.error ? (
        <ListError error={list.error} onRetry={() => void list.refetch()} />
      ) : !data ? (
        <ListLoading />
      ) : data.results.length === 0 ? (
        <p data-testid="list-empty" style={{ padding: 24, textAlign: 'center', color: 'var(--fgColor-muted)' }}>
          {params.search || Object.keys(urlParams.filters).length ? t('list.noMatches') : t('list.empty', { name: title })}
        </p>
      ) : (
        <ListTable
          def={def}
          records={data.results}
          cols={cols}
          ordering={params.ordering}
          onSort={(key) => update({ ordering: params.ordering === key ? `-${key}` : key })}
          rowActions={rowActions ?? declaredRowActions(def)}
          onEdit={!def.readOnly && access.canUpdate ? open : null}
          onDelete={!def.readOnly && access.canDelete ? onDelete : null}
        />
      )}

      {data && <Pager paginator={data.paginator} onPage={(page, after) => update({ page, after }, false)} onPageSize={(size) => update({ page_size: size })} />}

      {editing && (
        <Suspense fallback={null}>
          <RecordDialog
            def={def}
            title={editing === 'new' ? newTitle : t('list.editTitle', { name: labelOf(editing) })}
            record={editing === 'new' ? null : editing}
            fixedValues={fixedFilters}
            onClose={() => setEditing(null)}
          />
        </Suspense>
      )}
    </section>
  );
}
