import { useId, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { labelOf as labelOfDef, type EntityDef, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { fieldValueContent } from './field-value.tsx';
import { SpriteIcon } from '../components/sprite-icon.tsx';
import './resource-list.css';
// The card layout of a phone (ADR 021): static CSS, like the list's own.
import '../components/data-table.css';
import { cellLabelStyle } from '../components/data-table.ts';
import { formatDate, formatDateTime } from '../../shared/format.ts';
import { AppLink } from '../components/app-link.tsx';

/**
 * A translated label with one `{{name}}`, translated once per render and filled per row: i18next's
 * interpolation per row (two labels × 25 rows) was a visible part of the list's server render.
 */
function labelTemplate(t: TFunction, key: string): (name: string) => string {
  const marker = '\u0000';
  const [before, after] = t(key, { name: marker }).split(marker);
  return after === undefined ? (name) => t(key, { name }) : (name) => before + name + after;
}

function MetaValue({ column, record }: { column: 'id' | 'created_at'; record: EntityRecord }) {
  const { i18n } = useTranslation();
  return <>{column === 'id' ? record.id : formatDateTime(record.created_at, i18n.language)}</>;
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

export interface TableProps {
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
export function ListTable({ def, records, cols, ordering, onSort, rowActions, onEdit, onDelete }: TableProps) {
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
