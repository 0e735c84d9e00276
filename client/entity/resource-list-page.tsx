import { Button, Flash, Heading, Select, Spinner, TextInput } from '../components/controls.tsx';
import { lazy, Suspense, useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { labelOf as labelOfDef, rowActionKeys, type EntityDef, type EntityRecord, type FieldDef, type ListParams } from '../../shared/entity/define.ts';
import { errorText } from '../errors.ts';
import { withAllTranslations } from '../i18n.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { entityApi, useEntityUtils } from './entity-api.ts';
import { fieldValueContent } from './field-value.tsx';
import { useListState } from './list-state.ts';
import { SpriteIcon, spriteIcon } from '../components/sprite-icon.tsx';
import './resource-list.css';
import { CsvExportButton } from './csv-export.tsx';
import { Pager } from '../components/pager.tsx';
import { useAccess } from './access.ts';
import { ReferencePicker } from './reference-choices.tsx';
// The card layout of a phone (ADR 021): static CSS, like the list's own.
import '../components/data-table.css';
import { cellLabelStyle } from '../components/data-table.ts';
import { FilterBar } from '../components/filter-bar.tsx';
import { formatDate, formatDateTime } from '../components/format.ts';
import { AppLink } from '../components/app-link.tsx';

const PlusIcon = spriteIcon('plus');
const SearchIcon = spriteIcon('search');

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

/**
 * A translated label with one `{{name}}`, translated once per render and filled per row: i18next's
 * interpolation per row (two labels × 25 rows) was a visible part of the list's server render.
 */
function labelTemplate(t: TFunction, key: string): (name: string) => string {
  const marker = '\u0000';
  const [before, after] = t(key, { name: marker }).split(marker);
  return after === undefined ? (name) => t(key, { name }) : (name) => before + name + after;
}

function columns(def: EntityDef, fixed: Record<string, unknown>): [string, FieldDef][] {
  return Object.entries(def.fields).filter(([key, f]) => f.list && !f.hidden && !(key in fixed));
}

/** A date input that shows what was typed at once, while the URL (the list state) follows. */
function DateFilterInput({ value, onChange, label, testId }: { value: string | undefined; onChange: (value: string | undefined) => void; label: string; testId: string }) {
  const [text, setText] = useState(value ?? '');
  useEffect(() => setText(value ?? ''), [value]);
  return (
    <TextInput
      type="date"
      aria-label={label}
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        onChange(e.target.value || undefined);
      }}
      data-testid={testId}
    />
  );
}

/** A from/to pair of date inputs for a `filter: 'range'` field. */
function RangeFilter({
  def,
  name,
  from,
  to,
  onChange,
}: {
  def: EntityDef;
  name: string;
  from: string | undefined;
  to: string | undefined;
  onChange: (changes: Record<string, string | undefined>) => void;
}) {
  const { t } = useTranslation();
  const label = t(`resources.${def.name}.fields.${name}`);
  return (
    <span className="bo-range" role="group" aria-label={label}>
      <span aria-hidden="true" style={{ fontSize: 14, color: 'var(--fgColor-muted)' }}>
        {label}
      </span>
      <DateFilterInput label={t('list.rangeFrom', { name: label })} value={from} onChange={(v) => onChange({ [`f_${name}_from`]: v })} testId={`filter-${name}-from`} />
      <span aria-hidden="true">–</span>
      <DateFilterInput label={t('list.rangeTo', { name: label })} value={to} onChange={(v) => onChange({ [`f_${name}_to`]: v })} testId={`filter-${name}-to`} />
    </span>
  );
}

function MetaValue({ column, record }: { column: 'id' | 'created_at'; record: EntityRecord }) {
  const { i18n } = useTranslation();
  return <>{column === 'id' ? record.id : formatDateTime(record.created_at, i18n.language)}</>;
}

function FilterSelect({
  def,
  name,
  field,
  value,
  onChange,
}: {
  def: EntityDef;
  name: string;
  field: FieldDef;
  value: string | undefined;
  onChange: (v: string | undefined) => void;
}) {
  const { t } = useTranslation();
  const label = t(`resources.${def.name}.fields.${name}`);
  const all = t('list.filterAll', { name: label });
  // A reference filters by the referenced entity's choices (users by role, for buddies).
  if (field.kind === 'reference') {
    return (
      <ReferencePicker
        reference={field.reference!}
        value={value ? Number(value) : null}
        onChange={(v) => onChange(v === null ? undefined : String(v))}
        label={label}
        emptyLabel={all}
        name={name}
        testId={`filter-${name}`}
      />
    );
  }
  const choices =
    field.kind === 'boolean'
      ? [
          { value: 'true', label: t('common.yes') },
          { value: 'false', label: t('common.no') },
        ]
      : (field.options ?? []).map((o) => ({ value: String(o), label: t(`resources.${def.name}.options.${name}.${String(o)}`, { defaultValue: String(o) }) }));
  return (
    <Select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)} data-testid={`filter-${name}`}>
      <Select.Option value="">{all}</Select.Option>
      {choices.map((c) => (
        <Select.Option key={c.value} value={c.value}>
          {c.label}
        </Select.Option>
      ))}
    </Select>
  );
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

/** The search box's text, shown at once; the URL's `search` follows 300 ms after the last keystroke. */
function useSearchText(search: string | undefined, update: (changes: Record<string, string | undefined>) => void) {
  const [searchText, setSearchText] = useState(search ?? '');
  useEffect(() => setSearchText(search ?? ''), [search]);
  useEffect(() => {
    if ((searchText || undefined) === search) return;
    const timer = setTimeout(() => update({ search: searchText.trim() || undefined }), 300);
    return () => clearTimeout(timer);
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps
  return [searchText, setSearchText] as const;
}

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
      toast.success(t(def.messages?.deleted ?? 'form.deleted', { name: labelOf(record) }));
    } catch (error) {
      toast.error(errorText(t, error));
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

/** A column heading; a sortable one is a button that sorts by it, then the other way. */
function SortHeader({
  column,
  label,
  sortable,
  ordering,
  onSort,
}: {
  column: string;
  label: string;
  sortable: boolean;
  ordering: string | undefined;
  onSort: (key: string) => void;
}) {
  const sorted = ordering === column ? 'ascending' : ordering === `-${column}` ? 'descending' : undefined;
  return (
    <th aria-sort={sorted ?? 'none'} scope="col" data-sortable={sortable || undefined}>
      {sortable ? (
        <button type="button" className="bo-sort" onClick={() => onSort(column)} data-testid={`sort-${column}`}>
          {label}
          {sorted === 'ascending' ? <SpriteIcon name="triangle-up" /> : sorted === 'descending' ? <SpriteIcon name="triangle-down" /> : null}
        </button>
      ) : (
        label
      )}
    </th>
  );
}

interface RowProps {
  def: EntityDef;
  record: EntityRecord;
  cols: [string, FieldDef][];
  meta: readonly string[];
  t: TFunction;
  language: string;
  navigate: (to: string) => void;
  /** The actions cell, when the list has one. */
  actions: ReactNode;
}

/** One record's row; no hooks of its own (a list renders many, ADR 024). */
function ListRow({ def, record, cols, meta, t, language, navigate, actions }: RowProps) {
  return (
    <tr data-testid={`row-${record.id}`}>
      {meta.includes('id') && (
        <td>
          <MetaValue column="id" record={record} />
        </td>
      )}
      {cols.map(([key, field], index) => (
        <td key={key}>
          {index === 0 && def.detailRoute ? (
            <AppLink to={def.detailRoute.replace(':id', String(record.id))} navigate={navigate}>
              {fieldValueContent(t, language, def, key, field, record)}
            </AppLink>
          ) : field.kind === 'date' && !field.due && record[key] != null && record[key] !== '' ? (
            // Kept on one line by the table's style (nowrapColumns), not a span per cell; a due date may carry its flag.
            formatDate(record[key], language)
          ) : (
            fieldValueContent(t, language, def, key, field, record)
          )}
        </td>
      ))}
      {meta.includes('created_at') && (
        <td>
          <MetaValue column="created_at" record={record} />
        </td>
      )}
      {actions}
    </tr>
  );
}

/** A row's actions: the page's own, then edit and delete as the user's access allows. */
function RowActions({
  extra,
  editLabel,
  deleteLabel,
  onEdit,
  onDelete,
}: {
  extra: ReactNode;
  editLabel: string;
  deleteLabel: string;
  onEdit: (() => void) | null;
  onDelete: (() => void) | null;
}) {
  return (
    <td className="row-actions">
      <div>
        {extra}
        {onEdit && (
          <button type="button" title={editLabel} onClick={onEdit}>
            <SpriteIcon name="pencil" className={null} />
          </button>
        )}
        {onDelete && (
          <button type="button" data-variant="danger" title={deleteLabel} onClick={onDelete}>
            <SpriteIcon name="trash" className={null} />
          </button>
        )}
      </div>
    </td>
  );
}

interface TableProps {
  def: EntityDef;
  records: EntityRecord[];
  cols: [string, FieldDef][];
  ordering: string | undefined;
  onSort: (key: string) => void;
  rowActions?: (record: EntityRecord) => ReactNode;
  /** Edit and delete, when the user may. */
  onEdit: ((record: EntityRecord) => void) | null;
  onDelete: ((record: EntityRecord) => void) | null;
}

/** The records as a table (cards on a phone, their labels from one style element, ADR 021). */
function ListTable({ def, records, cols, ordering, onSort, rowActions, onEdit, onDelete }: TableProps) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const colLabels = cols.map(([key]) => t(`resources.${def.name}.fields.${key}`));
  const metaLabels = { id: t('list.meta.id'), created_at: t('list.meta.created_at') };
  const rowLabels = { edit: labelTemplate(t, 'list.edit'), delete: labelTemplate(t, 'list.delete') };
  const meta = def.metaColumns ?? [];
  const cellLabels = [...(meta.includes('id') ? [metaLabels.id] : []), ...colLabels, ...(meta.includes('created_at') ? [metaLabels.created_at] : [])];
  const tableId = `list-${useId().replace(/[^\w-]/g, '')}`;
  const firstCol = meta.includes('id') ? 2 : 1;
  const nowrapColumns = cols.flatMap(([, field], index) => (field.kind === 'date' && index > 0 ? [firstCol + index] : []));
  const hasActions = Boolean(onEdit || onDelete || rowActions);
  const actionsOf = (record: EntityRecord) => {
    const label = labelOfDef(def, record, i18n.language);
    return (
      <RowActions
        extra={rowActions?.(record)}
        editLabel={rowLabels.edit(label)}
        deleteLabel={rowLabels.delete(label)}
        onEdit={onEdit && (() => onEdit(record))}
        onDelete={onDelete && (() => void onDelete(record))}
      />
    );
  };
  return (
    <div className="bo-scroll">
      {/* The phone's card labels, once per table rather than a `data-label` on every cell (ADR 021). */}
      <style>{cellLabelStyle(tableId, cellLabels, nowrapColumns)}</style>
      <table id={tableId} className="data-table bo-table" data-labelled="" data-testid="list-table">
        <thead>
          <tr>
            {meta.includes('id') && <SortHeader key="id" column="id" label={metaLabels.id} sortable ordering={ordering} onSort={onSort} />}
            {cols.map(([key, field], index) => (
              <SortHeader key={key} column={key} label={colLabels[index]!} sortable={Boolean(field.sortable)} ordering={ordering} onSort={onSort} />
            ))}
            {meta.includes('created_at') && <SortHeader key="created_at" column="created_at" label={metaLabels.created_at} sortable ordering={ordering} onSort={onSort} />}
            {hasActions && (
              <th scope="col" className="row-actions">
                <span className="visually-hidden">{t('list.actions')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <ListRow
              key={record.id}
              def={def}
              record={record}
              cols={cols}
              meta={meta}
              t={t}
              language={i18n.language}
              navigate={navigate}
              actions={hasActions ? actionsOf(record) : null}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The search box and a filter for each filterable field, all in the URL. */
function ListFilters({
  def,
  fields,
  params,
  active,
  update,
}: {
  def: EntityDef;
  fields: [string, FieldDef][];
  params: ListParams;
  active: number;
  update: ReturnType<typeof useListState>['update'];
}) {
  const { t } = useTranslation();
  const [searchText, setSearchText] = useSearchText(params.search, update);
  return (
    <FilterBar
      active={active}
      search={
        <TextInput
          leadingVisual={SearchIcon}
          aria-label={t('list.search')}
          placeholder={t('list.search')}
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          data-testid="list-search"
        />
      }
    >
      {fields.length > 0 &&
        fields.map(([key, field]) =>
          field.filter === 'range' ? (
            <RangeFilter
              key={key}
              def={def}
              name={key}
              from={params.filters[`${key}_from`] as string | undefined}
              to={params.filters[`${key}_to`] as string | undefined}
              onChange={(changes) => update(changes)}
            />
          ) : (
            <FilterSelect key={key} def={def} name={key} field={field} value={params.filters[key] as string | undefined} onChange={(v) => update({ [`f_${key}`]: v })} />
          ),
        )}
    </FilterBar>
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
  const one = t(`resources.${def.name}.one`);
  // "New …" agrees with the noun where a language needs it (sv: "Nytt evenemang"): `resources.<name>.new`.
  const newTitle = t(`resources.${def.name}.new`, { defaultValue: t('list.new', { name: one }) });
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
