import { Button, Flash, Heading, Select, Spinner, TextInput } from '../components/controls.tsx';
import { lazy, Suspense, useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { labelOf as labelOfDef, type EntityDef, type EntityRecord, type FieldDef, type ListParams } from '../../shared/entity/define.ts';
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

/**
 * A row's link to its record: the router follows it as React Router's Link would, without Link's hooks
 * on each of a list's rows (a visible part of the list's server render, ADR 024).
 */
function RowLink({ to, navigate, children }: { to: string; navigate: (to: string) => void; children: ReactNode }) {
  return (
    <a
      href={to}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

const PlusIcon = spriteIcon('plus');
const SearchIcon = spriteIcon('search');

// The create/edit dialog (Primer Dialog and the whole form machinery) loads when it is first opened.
const RecordDialog = lazy(() => withAllTranslations(import('./record-dialog.tsx')));

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
function RangeFilter({ def, name, from, to, onChange }: { def: EntityDef; name: string; from: string | undefined; to: string | undefined; onChange: (changes: Record<string, string | undefined>) => void }) {
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
  return <>{column === 'id' ? record.id : new Date(record.created_at).toLocaleString(i18n.language === 'sv' ? 'sv-SE' : 'en-GB', { dateStyle: 'short', timeStyle: 'short' })}</>;
}


function FilterSelect({ def, name, field, value, onChange }: { def: EntityDef; name: string; field: FieldDef; value: string | undefined; onChange: (v: string | undefined) => void }) {
  const { t } = useTranslation();
  const label = t(`resources.${def.name}.fields.${name}`);
  const all = t('list.filterAll', { name: label });
  // A reference filters by the referenced entity's choices (users by role, for buddies).
  if (field.kind === 'reference') {
    return <ReferencePicker reference={field.reference!} value={value ? Number(value) : null} onChange={(v) => onChange(v === null ? undefined : String(v))} label={label} emptyLabel={all} name={name} testId={`filter-${name}`} />;
  }
  const choices =
    field.kind === 'boolean'
      ? [{ value: 'true', label: t('common.yes') }, { value: 'false', label: t('common.no') }]
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
  /** Extra buttons on each row (activate, cancel). */
  rowActions?: (record: EntityRecord) => ReactNode;
  /** Shown between the title bar and the list (the outcome of row actions). */
  children?: ReactNode;
  /** h2 when the list is one part of a page (the scheduler's tabs, an event's slots). */
  headingLevel?: 'h1' | 'h2';
  /** The heading, when the route names the screen differently ("Bike Expert"). */
  title?: string;
}

const NO_FILTERS: Record<string, string | number> = {};

/**
 * The generic list screen: search, filters, sorting, paging, all in the URL; create/edit/delete as the
 * user's access allows (ADR 009); reads only for a read-only entity (ADR 013). Owner-scoped users get no
 * owner filter: they see only their own.
 */
export function ResourceListPage({ def, fixedFilters = NO_FILTERS, headerActions, rowActions, children, headingLevel = 'h1', title: heading }: ListProps) {
  const { t, i18n } = useTranslation();
  const access = useAccess(def);
  const toast = useToast();
  const confirm = useConfirm();
  const navigate = useNavigate();
  const { params: urlParams, update } = useListState(def);
  const params = useMemo<ListParams>(
    () => (fixedFilters === NO_FILTERS ? urlParams : { ...urlParams, filters: { ...urlParams.filters, ...Object.fromEntries(Object.entries(fixedFilters).map(([k, v]) => [k, String(v)])) } }),
    [urlParams, fixedFilters],
  );
  const api = entityApi(def);
  const utils = useEntityUtils(def);
  const list = api.list.useQuery(params);
  const remove = api.delete.useMutation();
  const [searchText, setSearchText] = useState(params.search ?? '');
  const [editing, setEditing] = useState<EntityRecord | 'new' | null>(null);
  const title = t(`resources.${def.name}.name`);
  const one = t(`resources.${def.name}.one`);
  // "New …" agrees with the noun where a language needs it (sv: "Nytt evenemang"): `resources.<name>.new`.
  const newTitle = t(`resources.${def.name}.new`, { defaultValue: t('list.new', { name: one }) });
  const labelOf = (record: EntityRecord) => labelOfDef(def, record, i18n.language);

  useEffect(() => setSearchText(params.search ?? ''), [params.search]);
  useEffect(() => {
    if ((searchText || undefined) === params.search) return;
    const timer = setTimeout(() => update({ search: searchText.trim() || undefined }), 300);
    return () => clearTimeout(timer);
  }, [searchText]); // eslint-disable-line react-hooks/exhaustive-deps

  const open = (record: EntityRecord | 'new') => {
    if (def.detailRoute) navigate(def.detailRoute.replace(':id', record === 'new' ? 'new' : String(record.id)));
    else setEditing(record);
  };

  const onDelete = async (record: EntityRecord) => {
    if (!(await confirm({ message: t('form.deleteConfirm', { name: labelOf(record) }), danger: true }))) return;
    try {
      await remove.mutateAsync({ id: record.id });
      await utils.list.invalidate();
      toast.success(t(def.messages?.deleted ?? 'form.deleted', { name: labelOf(record) }));
    } catch (error) {
      toast.error(errorText(t, error));
    }
  };

  const sortBy = (key: string) => {
    const current = params.ordering;
    update({ ordering: current === key ? `-${key}` : key });
  };

  const data = list.data;
  // An owner-scoped user owns every row: their own name in a column says nothing.
  const cols = columns(def, fixedFilters).filter(([key]) => !(access.ownerScoped && key === access.ownerField));
  const colLabels = cols.map(([key]) => t(`resources.${def.name}.fields.${key}`));
  const metaLabels = { id: t('list.meta.id'), created_at: t('list.meta.created_at') };
  const rowLabels = { edit: labelTemplate(t, 'list.edit'), delete: labelTemplate(t, 'list.delete') };
  const filterFields = Object.entries(def.fields).filter(([key, f]) => f.filter && !f.filterHidden && !(key in fixedFilters) && !(access.ownerScoped && key === access.ownerField));
  const meta = def.metaColumns ?? [];
  const cellLabels = [...(meta.includes('id') ? [metaLabels.id] : []), ...colLabels, ...(meta.includes('created_at') ? [metaLabels.created_at] : [])];
  const tableId = `list-${useId().replace(/[^\w-]/g, '')}`;
  const firstCol = meta.includes('id') ? 2 : 1;
  const nowrapColumns = cols.flatMap(([, field], index) => (field.kind === 'date' && index > 0 ? [firstCol + index] : []));
  const canCreate = !def.readOnly && access.canCreate;
  const canUpdate = !def.readOnly && access.canUpdate;
  const canDelete = !def.readOnly && access.canDelete;
  const hasActions = canUpdate || canDelete || Boolean(rowActions);
  const sortHeader = (key: string, label: string, sortable: boolean) => {
    const sorted = params.ordering === key ? 'ascending' : params.ordering === `-${key}` ? 'descending' : undefined;
    return (
      <th key={key} aria-sort={sorted ?? 'none'} scope="col" data-sortable={sortable || undefined}>
        {sortable ? (
          <button type="button" className="bo-sort" onClick={() => sortBy(key)} data-testid={`sort-${key}`}>
            {label}
            {sorted === 'ascending' ? <SpriteIcon name="triangle-up" /> : sorted === 'descending' ? <SpriteIcon name="triangle-down" /> : null}
          </button>
        ) : (
          label
        )}
      </th>
    );
  };

  return (
    <section data-testid={`list-${def.name}`}>
      <div className="bo-bar-between">
        <Heading as={headingLevel} style={headingLevel === 'h2' ? { fontSize: 20 } : undefined}>
          {heading ?? title}
        </Heading>
        <div className="bo-bar">
          {headerActions}
          {def.exportable && <CsvExportButton def={def} params={params} />}
          {canCreate && (
            <Button variant="primary" leadingVisual={PlusIcon} onClick={() => open('new')} data-testid="list-new">
              {newTitle}
            </Button>
          )}
        </div>
      </div>
      {children}
      <FilterBar
        active={Object.values(urlParams.filters).filter((v) => v !== undefined && v !== '').length}
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
        {filterFields.length > 0 && filterFields.map(([key, field]) =>
          field.filter === 'range' ? (
            <RangeFilter key={key} def={def} name={key} from={params.filters[`${key}_from`] as string | undefined} to={params.filters[`${key}_to`] as string | undefined} onChange={(changes) => update(changes)} />
          ) : (
            <FilterSelect key={key} def={def} name={key} field={field} value={params.filters[key] as string | undefined} onChange={(v) => update({ [`f_${key}`]: v })} />
          ),
        )}
      </FilterBar>

      {list.error ? (
        <Flash variant="danger" role="alert" data-testid="list-error">
          {errorText(t, list.error)}{' '}
          <Button size="small" onClick={() => void list.refetch()}>
            {t('errors.retry')}
          </Button>
        </Flash>
      ) : !data ? (
        <div role="status" style={{ display: 'flex', gap: 8, alignItems: 'center', padding: 16 }} data-testid="list-loading">
          <Spinner size="small" srText={null} /> {t('app.loading')}
        </div>
      ) : data.results.length === 0 ? (
        <p data-testid="list-empty" style={{ padding: 24, textAlign: 'center', color: 'var(--fgColor-muted)' }}>
          {params.search || Object.keys(urlParams.filters).length ? t('list.noMatches') : t('list.empty', { name: title })}
        </p>
      ) : (
        <div className="bo-scroll">
          {/* The phone's card labels, once per table rather than a `data-label` on every cell (ADR 021). */}
          <style>{cellLabelStyle(tableId, cellLabels, nowrapColumns)}</style>
          <table id={tableId} className="data-table bo-table" data-labelled="" data-testid="list-table">
            <thead>
              <tr>
                {meta.includes('id') && sortHeader('id', metaLabels.id, true)}
                {cols.map(([key, field], index) => sortHeader(key, colLabels[index]!, Boolean(field.sortable)))}
                {meta.includes('created_at') && sortHeader('created_at', metaLabels.created_at, true)}
                {hasActions && (
                  <th scope="col" className="row-actions">
                    <span className="visually-hidden">{t('list.actions')}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {data.results.map((record) => {
                const editLabel = rowLabels.edit(labelOf(record));
                const deleteLabel = rowLabels.delete(labelOf(record));
                return (
                  <tr key={record.id} data-testid={`row-${record.id}`}>
                    {meta.includes('id') && (
                      <td>
                        <MetaValue column="id" record={record} />
                      </td>
                    )}
                    {cols.map(([key, field], index) => (
                      <td key={key}>
                        {index === 0 && def.detailRoute ? (
                          <RowLink to={def.detailRoute.replace(':id', String(record.id))} navigate={navigate}>
                            {fieldValueContent(t, i18n.language, def, key, field, record)}
                          </RowLink>
                        ) : field.kind === 'date' && record[key] != null && record[key] !== '' ? (
                          // Kept on one line by the table's style (nowrapColumns), not a span per cell.
                          String(record[key])
                        ) : (
                          fieldValueContent(t, i18n.language, def, key, field, record)
                        )}
                      </td>
                    ))}
                    {meta.includes('created_at') && (
                      <td>
                        <MetaValue column="created_at" record={record} />
                      </td>
                    )}
                    {hasActions && (
                    <td className="row-actions">
                      <div>
                        {rowActions?.(record)}
                        {canUpdate && (
                          <button type="button" title={editLabel} onClick={() => open(record)}>
                            <SpriteIcon name="pencil" className={null} />
                          </button>
                        )}
                        {canDelete && (
                          <button type="button" data-variant="danger" title={deleteLabel} onClick={() => void onDelete(record)}>
                            <SpriteIcon name="trash" className={null} />
                          </button>
                        )}
                      </div>
                    </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      {data && <Pager paginator={data.paginator} onPage={(page) => update({ page }, false)} onPageSize={(size) => update({ page_size: size })} />}

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
