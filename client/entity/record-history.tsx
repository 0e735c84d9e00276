import { Flash, Heading, Select } from '../components/controls.tsx';
import type { TFunction } from 'i18next';
import { Fragment, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import type { EntityDef, EntityRecord, FieldDef } from '../../shared/entity/define.ts';
import { HISTORY_EXPORT_ENTITY, HISTORY_FILTER_FIELDS, historyExportPart, historyFieldLabel, historyPart, type HistoryPart } from '../../shared/entity/history-fields.ts';
import type { AccountEventFilter, AuditRow } from '../../shared/schemas/audit.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { Pager } from '../components/pager.tsx';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';
import { formatDateTime } from '../../shared/format.ts';
import { fieldValueContent } from './field-value.tsx';
import { ACCOUNT_ENTITY, ACCOUNT_EVENTS } from '../../shared/live.ts';

const Timeline = styled.ol`
  list-style: none;
  margin: 16px 0;
  padding: 0;
  display: grid;
  gap: 12px;
  > li {
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-left: 4px solid var(--borderColor-accent-emphasis, #0969da);
    border-radius: 6px;
    padding: 12px 16px;
    min-width: 0;
  }
  > li[data-action='create'] {
    border-left-color: var(--borderColor-success-emphasis, #1a7f37);
  }
  > li[data-action='delete'] {
    border-left-color: var(--borderColor-danger-emphasis, #cf222e);
  }
  .head {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 12px;
    align-items: baseline;
    margin: 0 0 8px;
  }
  .muted {
    color: var(--fgColor-muted, #59636e);
  }
  ul {
    margin: 0;
    padding: 0;
    list-style: none;
    display: grid;
    gap: 4px;
  }
  ul li {
    overflow-wrap: anywhere;
  }
  .field {
    font-weight: 600;
  }
  ul.items {
    margin: 4px 0 0 16px;
  }
  .item {
    font-weight: 600;
  }
  .thumb {
    width: 64px;
    height: 64px;
    object-fit: cover;
    border-radius: 6px;
    vertical-align: middle;
  }
  .before {
    text-decoration: line-through;
    color: var(--fgColor-muted, #59636e);
  }
`;

/** The actions the API records itself (ADR 035, 038): the engine's writes, exports and account events. */
export const RECORDED_ACTIONS = ['create', 'update', 'delete', 'transition', 'export', ...ACCOUNT_EVENTS] as const;
const RECORDED = new Set<string>(RECORDED_ACTIONS);
const SUB_OPS = new Set(['add', 'set', 'setMany', 'remove']);
/** The engine's writes of a record's fields: a change is "before → after" even from or to nothing. */
const CHANGED = new Set(['update', 'transition']);

/**
 * What an entry's action reads as: one the API records itself, a sub-resource's operation (`roles.add`:
 * "Roles: added"; a photo of a checklist row, `details.images.add`: "Checklist – Photos: added"), or the label
 * the entity declares for its action. `context` words it further where the definition says so (a sign-in's
 * method, ADR 065).
 */
export function actionText(t: TFunction, entity: string, action: string, context?: string): string {
  if (RECORDED.has(action)) return context === undefined ? t(`resources._history.actions.${action}`) : t(`resources._history.actions.${action}`, { context });
  const path = action.split('.');
  const op = path[path.length - 1]!;
  if (path.length > 1 && SUB_OPS.has(op)) {
    const names = path.slice(0, -1).map((sub) => t(`resources.${entity}.subResources.${sub}`, { defaultValue: sub }));
    return t(`resources._history.actions.${op}`, { name: names.join(' – ') });
  }
  return t(`resources.${entity}.actions.${action}.label`, { defaultValue: action });
}

/** The field whose value words an entry's action (ADR 065), if its definition names one and the entry has it. */
function contextOf(entry: AuditRow, def: EntityDef | undefined): { key: string; value: string } | undefined {
  const key = def?.history?.context?.[entry.action];
  const value = key ? entry.changes[key]?.[1] : undefined;
  return key && (typeof value === 'string' || typeof value === 'number') ? { key, value: String(value) } : undefined;
}

const isErasedValue = (value: unknown) => typeof value === 'object' && value !== null && (value as { $erased?: unknown }).$erased === true;

/** A value as its field declares it, as the record page shows it (field-value.tsx); never as JSON (ADR 065). */
function valueOf(t: TFunction, lang: string, def: EntityDef | undefined, key: string, field: FieldDef | undefined, value: unknown, label?: string | null): ReactNode {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  // A person's value whose key was destroyed when they were erased (ADR 076).
  if (isErasedValue(value)) return <span className="muted">{t('resources._history.erased')}</span>;
  if (Array.isArray(value))
    return value.map((one, i) => (
      <Fragment key={i}>
        {i > 0 && ', '}
        {valueOf(t, lang, def, key, field, one)}
      </Fragment>
    ));
  if (typeof value === 'object')
    return <Properties values={value as Record<string, unknown>} render={(name, inner) => valueOf(t, lang, undefined, name, undefined, inner)} label={(name) => name} />;
  if (field?.kind === 'image') return <img className="thumb" src={String(value)} alt={t('resources._history.photo')} width={64} height={64} loading="lazy" />;
  if (!def || !field) return String(value);
  // Query strings and older entries keep a boolean as text.
  const typed = field.kind === 'boolean' && typeof value === 'string' ? value === 'true' : value;
  // A reference is stored as the id it pointed at; the API answers the record's label as it is now, if it still exists.
  const record = {
    id: 0,
    version: 0,
    created_at: '',
    updated_at: '',
    [key]: typed,
    ...(field.kind === 'reference' ? { [`${key}_label`]: label ?? `#${String(value)}` } : {}),
  } as EntityRecord;
  return fieldValueContent(t, lang, def, key, field, record);
}

/** "Label: value · Label: value" of the properties that hold something. */
function Properties({ values, render, label }: { values: Record<string, unknown>; render: (name: string, value: unknown) => ReactNode; label: (name: string) => string }) {
  const shown = Object.entries(values).filter(([, value]) => value !== null && value !== undefined && value !== '');
  return (
    <>
      {shown.map(([name, value], i) => (
        <span key={name} data-property={name}>
          {i > 0 && <span aria-hidden="true"> · </span>}
          <span className="label">{label(name)}</span>: {render(name, value)}
        </span>
      ))}
    </>
  );
}

/** A sub-resource's items added, set or removed: one line each, named by its key (a checklist row's item), its answers after. */
function Items({ entry, def, name, part }: { entry: AuditRow; def: EntityDef; name: string; part: Extract<HistoryPart, { kind: 'items' }> }) {
  const { t, i18n } = useTranslation();
  const [before, after] = entry.changes[name]!;
  const list = (value: unknown) => (value === null || value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value]);
  const ref = (field: string, value: unknown) => entry.refs?.[`${name}.${field}`]?.[String(value)] ?? null;
  const value = (field: string, inner: unknown) => valueOf(t, i18n.language, def, field, part.fields[field], inner, ref(field, inner));
  const item = (one: unknown) => {
    if (typeof one !== 'object' || one === null) return value(part.key, one);
    const { key, id: _id, ...rest } = one as Record<string, unknown>;
    const named = key ?? rest[part.key];
    delete rest[part.key];
    return (
      <>
        {named !== undefined && named !== null && <span className="item">{value(part.key, named)}</span>}
        {named !== undefined && named !== null && Object.keys(rest).length > 0 && ': '}
        <Properties values={rest} render={value} label={(field) => t(historyFieldLabel(def, field), { defaultValue: field })} />
      </>
    );
  };
  return (
    <ul className="items">
      {list(before).map((one, i) => (
        <li key={`b${i}`} className="before" data-item="removed">
          {item(one)}
        </li>
      ))}
      {list(after).map((one, i) => (
        <li key={`a${i}`} data-item="written">
          {item(one)}
        </li>
      ))}
    </ul>
  );
}

/** What an export was asked for: its search, filters and order, each as the list's filter reads it; "everything" without. */
function Query({ entry, def, name, part }: { entry: AuditRow; def: EntityDef | undefined; name: string; part: Extract<HistoryPart, { kind: 'query' }> }) {
  const { t, i18n } = useTranslation();
  const asked = entry.changes[name]![1];
  const values = asked && typeof asked === 'object' ? (asked as Record<string, unknown>) : {};
  if (Object.keys(values).length === 0) return <>{t('resources._history.queryAll')}</>;
  const history = !def;
  const fieldOf = (key: string): [string, FieldDef | undefined, string?] => {
    const range = /^(.*)_(from|to)$/.exec(key);
    if (range && !part.fields[key] && part.fields[range[1]!]) return [range[1]!, part.fields[range[1]!], range[2]];
    return [key, part.fields[key]];
  };
  const label = (key: string) => {
    if (history) return t(`resources._history.filters.${key}`, { defaultValue: key });
    if (key === 'search' || key === 'ordering') return t(`resources._history.filters.${key}`);
    const [field, , end] = fieldOf(key);
    const text = t(historyFieldLabel(def, field), { defaultValue: field });
    return end ? t(`resources._history.filters.${end}Of`, { field: text }) : text;
  };
  const render = (key: string, value: unknown): ReactNode => {
    if (history && key === 'entity') return t(`resources.${String(value)}.name`, { defaultValue: String(value) });
    if (history && key === 'action') return actionText(t, values.entity ? String(values.entity) : '', String(value));
    if (history && key === 'account_events') return t(`resources._history.accountEvents.${String(value)}`, { defaultValue: String(value) });
    if (!history && key === 'ordering' && def) {
      const field = String(value).replace(/^-/, '');
      return `${t(historyFieldLabel(def, field), { defaultValue: field })}${String(value).startsWith('-') ? ` (${t('resources._history.descending')})` : ''}`;
    }
    const [field, declared] = fieldOf(key);
    return valueOf(t, i18n.language, def ?? HISTORY_DEF, field, declared, value, entry.refs?.[`${name}.${field}`]?.[String(value)] ?? null);
  };
  return <Properties values={values} render={render} label={label} />;
}

/** The history's filters as a definition, for drawing their values (an export of the history names them). */
const HISTORY_DEF = { name: '_history', fields: HISTORY_FILTER_FIELDS } as EntityDef;

/**
 * The keys a change changed, each as its definition says it reads (ADR 065): "Field: before → after" (a create
 * shows what was set, a delete what was removed), a sub-resource's items line by line, an export's query.
 */
function Changes({ entry, def }: { entry: AuditRow; def: EntityDef | undefined }) {
  const { t, i18n } = useTranslation();
  const context = contextOf(entry, def);
  const keys = Object.keys(entry.changes).filter((key) => key !== context?.key);
  if (keys.length === 0) return null;
  return (
    <ul>
      {keys.map((key) => {
        const part = entry.entity === HISTORY_EXPORT_ENTITY ? (entry.action === 'export' && key === 'query' ? historyExportPart() : null) : historyPart(def, entry.action, key);
        const label = part ? t(part.label, { defaultValue: key }) : key;
        if (part?.kind === 'items' && def)
          return (
            <li key={key} data-field={key}>
              <span className="field">{label}:</span>
              <Items entry={entry} def={def} name={key} part={part} />
            </li>
          );
        if (part?.kind === 'query')
          return (
            <li key={key} data-field={key}>
              <span className="field">{label}:</span> <Query entry={entry} def={def} name={key} part={part} />
            </li>
          );
        const field = part?.kind === 'field' ? part.field : undefined;
        const [before, after] = entry.changes[key]!;
        const [beforeLabel, afterLabel] = entry.labels?.[key] ?? [null, null];
        const value = (v: unknown, l: string | null) => valueOf(t, i18n.language, def, key, field, v, l);
        return (
          <li key={key} data-field={key}>
            <span className="field">{label}:</span>{' '}
            {entry.action === 'create' || (before === null && !CHANGED.has(entry.action)) ? (
              value(after, afterLabel)
            ) : entry.action === 'delete' || (after === null && !CHANGED.has(entry.action)) ? (
              <span className="before">{value(before, beforeLabel)}</span>
            ) : (
              <>
                <span className="before">{value(before, beforeLabel)}</span> <span aria-hidden="true">→</span>
                <span className="visually-hidden">{t('resources._history.changedTo')}</span> {value(after, afterLabel)}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A page of the change history as a timeline, newest first: when, who, what, and each field's change.
 * `defOf` finds each entry's definition (labels, value rendering); `recordLink` names the record (the
 * Activity page's entries are of many records).
 */
export function HistoryEntries({
  entries,
  defOf,
  recordLink,
}: {
  entries: readonly AuditRow[];
  defOf: (entity: string) => EntityDef | undefined;
  recordLink?: (entry: AuditRow) => ReactNode;
}) {
  const { t, i18n } = useTranslation();
  return (
    <Timeline data-testid="history-entries">
      {entries.map((entry) => (
        <li key={entry.id} data-action={entry.action} data-testid={`history-entry-${entry.id}`}>
          <p className="head">
            <strong data-testid="history-author">{entry.user_name ?? t(entry.user_id === null ? 'resources._history.noAuthor' : 'resources._history.unknownAuthor')}</strong>
            <span data-testid="history-action">{actionText(t, entry.entity, entry.action, contextOf(entry, defOf(entry.entity))?.value)}</span>
            {recordLink?.(entry)}
            <time dateTime={entry.at} className="muted">
              {formatDateTime(entry.at, i18n.language)}
            </time>
          </p>
          <Changes entry={entry} def={defOf(entry.entity)} />
        </li>
      ))}
    </Timeline>
  );
}

/** A history query's state: its error, a spinner while it loads, `empty` when it holds no entries, else `children`. */
export function HistoryResults<D extends { results: readonly unknown[] }>({
  history,
  empty,
  errorStyle,
  children,
}: {
  history: { error: unknown; data: D | undefined };
  empty: string;
  errorStyle?: React.CSSProperties;
  children: (data: D) => React.ReactNode;
}) {
  const { t } = useTranslation();
  if (history.error)
    return (
      <Flash variant="danger" role="alert" style={errorStyle}>
        {errorText(t, history.error)}
      </Flash>
    );
  if (!history.data) return <PageSpinner />;
  if (history.data.results.length === 0)
    return (
      <p className="bo-muted" data-testid="history-empty">
        {empty}
      </p>
    );
  return <>{children(history.data)}</>;
}

/** A record's History tab (ADR 036): its changes, newest first, a page at a time. */
export function RecordHistory({ def, id }: { def: EntityDef; id: number }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(25);
  // Sign-ins would flood an account's history: its account events are hidden until asked for (ADR 065).
  const accountEvents = def.name === ACCOUNT_ENTITY;
  const [events, setEvents] = useState<AccountEventFilter>('hidden');
  const history = trpc.audit.list.useQuery(
    { entity: def.name, record_id: id, page, page_size: pageSize, ...(accountEvents ? { account_events: events } : {}) },
    { placeholderData: (previous) => previous, staleTime: 0 },
  );
  return (
    <section data-testid="record-history" aria-labelledby="record-history-title">
      <Heading as="h2" id="record-history-title" className="visually-hidden">
        {t('resources._history.title')}
      </Heading>
      {accountEvents && (
        <div className="bo-bar" style={{ marginTop: 16 }}>
          <AccountEventsFilter
            value={events}
            onChange={(value) => {
              setEvents(value);
              setPage(1);
            }}
          />
        </div>
      )}
      <HistoryResults history={history} empty={t('resources._history.empty')} errorStyle={{ marginTop: 16 }}>
        {(data) => (
          <>
            <HistoryEntries entries={data.results} defOf={(entity) => (entity === def.name ? def : undefined)} />
            <Pager
              paginator={data.paginator}
              onPage={setPage}
              onPageSize={(size) => {
                setPageSize(size);
                setPage(1);
              }}
            />
          </>
        )}
      </HistoryResults>
    </section>
  );
}

/** The account events' filter (ADR 065): hidden (the default), shown among the changes, or only them. */
export function AccountEventsFilter({ value, onChange }: { value: AccountEventFilter; onChange: (value: AccountEventFilter) => void }) {
  const { t } = useTranslation();
  return (
    <Select
      aria-label={t('resources._history.accountEventsLabel')}
      value={value}
      onChange={(e) => onChange(e.target.value as AccountEventFilter)}
      data-testid="history-account-events"
    >
      {(['hidden', 'shown', 'only'] as const).map((option) => (
        <Select.Option key={option} value={option}>
          {t(`resources._history.accountEvents.${option}`)}
        </Select.Option>
      ))}
    </Select>
  );
}

/** The record an Activity entry is about: a link to its page when it has one. */
export function RecordLink({ entry, def }: { entry: AuditRow; def: EntityDef | undefined }) {
  const { t } = useTranslation();
  const name = def ? t(`resources.${def.name}.one`, { defaultValue: entry.entity }) : entry.entity;
  // `one` is the word as used mid-sentence ("service"); here it starts the line.
  // An export is of the whole list (its query says which part): the list's name, not a record's number.
  if (entry.record_id === null)
    return (
      <span data-testid="history-record">{entry.entity === HISTORY_EXPORT_ENTITY ? t('resources._history.title') : def ? t(`resources.${def.name}.name`) : entry.entity}</span>
    );
  // Named as the engine's references name it (issue 33): "User Anna Berg"; "#12" only once it is gone.
  const text = `${name.charAt(0).toUpperCase()}${name.slice(1)} ${entry.record_label ?? `#${entry.record_id}`}`;
  if (def?.detailRoute && entry.action !== 'delete')
    return (
      <Link to={def.detailRoute.replace(':id', String(entry.record_id))} data-testid="history-record">
        {text}
      </Link>
    );
  return <span data-testid="history-record">{text}</span>;
}

export default RecordHistory;
