import { Flash, Heading } from '../components/controls.tsx';
import type { TFunction } from 'i18next';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import type { EntityDef, EntityRecord } from '../../shared/entity/define.ts';
import type { AuditRow } from '../../shared/schemas/audit.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { Pager } from '../components/pager.tsx';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';
import { formatDateTime } from '../components/format.ts';
import { fieldValueContent } from './field-value.tsx';
import { ACCOUNT_EVENTS } from '../../shared/live.ts';

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
  .before {
    text-decoration: line-through;
    color: var(--fgColor-muted, #59636e);
  }
`;

/** The actions the API records itself (ADR 035, 038): the engine's writes, exports and account events. */
export const RECORDED_ACTIONS = ['create', 'update', 'delete', 'transition', 'export', ...ACCOUNT_EVENTS] as const;
const RECORDED = new Set<string>(RECORDED_ACTIONS);

/**
 * What an entry's action reads as: one the API records itself, a sub-resource's operation (`roles.add`:
 * "Roles: added"), or the label the entity declares for its action.
 */
export function actionText(t: TFunction, entity: string, action: string): string {
  if (RECORDED.has(action)) return t(`resources._history.actions.${action}`);
  const [sub, op] = action.split('.');
  if (sub && (op === 'add' || op === 'set' || op === 'setMany' || op === 'remove'))
    return t(`resources._history.actions.${op}`, { name: t(`resources.${entity}.subResources.${sub}`, { defaultValue: sub }) });
  return t(`resources.${entity}.actions.${action}.label`, { defaultValue: action });
}

/** One value of a change, shown as the record page shows it (field-value.tsx); a field no longer declared as text. */
function valueOf(t: TFunction, lang: string, def: EntityDef | undefined, key: string, value: unknown, label?: string | null): ReactNode {
  const field = def?.fields[key];
  if (!def || !field) return value === null || value === undefined ? <span className="muted">—</span> : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // A reference is stored as the id it pointed at; the API answers the record's label as it is now, if it still exists.
  const record = {
    id: 0,
    version: 0,
    created_at: '',
    updated_at: '',
    [key]: value,
    ...(field.kind === 'reference' && value !== null ? { [`${key}_label`]: label ?? `#${String(value)}` } : {}),
  } as EntityRecord;
  return fieldValueContent(t, lang, def, key, field, record);
}

/** The fields a change changed: "Field: before → after" (a create shows what was set, a delete what was removed). */
function Changes({ entry, def }: { entry: AuditRow; def: EntityDef | undefined }) {
  const { t, i18n } = useTranslation();
  const keys = Object.keys(entry.changes);
  if (keys.length === 0) return null;
  return (
    <ul>
      {keys.map((key) => {
        const [before, after] = entry.changes[key]!;
        const [beforeLabel, afterLabel] = entry.labels?.[key] ?? [null, null];
        const label = def?.fields[key] ? t(`resources.${def.name}.fields.${key}`, { defaultValue: key }) : key;
        return (
          <li key={key} data-field={key}>
            <span className="field">{label}:</span>{' '}
            {entry.action === 'create' ? (
              valueOf(t, i18n.language, def, key, after, afterLabel)
            ) : entry.action === 'delete' ? (
              <span className="before">{valueOf(t, i18n.language, def, key, before, beforeLabel)}</span>
            ) : (
              <>
                <span className="before">{valueOf(t, i18n.language, def, key, before, beforeLabel)}</span> <span aria-hidden="true">→</span>
                <span className="visually-hidden">{t('resources._history.changedTo')}</span> {valueOf(t, i18n.language, def, key, after, afterLabel)}
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
            <strong data-testid="history-author">{entry.user_name ?? t('resources._history.unknownAuthor')}</strong>
            <span data-testid="history-action">{actionText(t, entry.entity, entry.action)}</span>
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

/** A record's History tab (ADR 036): its changes, newest first, a page at a time. */
export function RecordHistory({ def, id }: { def: EntityDef; id: number }) {
  const { t } = useTranslation();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(25);
  const history = trpc.audit.list.useQuery({ entity: def.name, record_id: id, page, page_size: pageSize }, { placeholderData: (previous) => previous, staleTime: 0 });
  return (
    <section data-testid="record-history" aria-labelledby="record-history-title">
      <Heading as="h2" id="record-history-title" className="visually-hidden">
        {t('resources._history.title')}
      </Heading>
      {history.error ? (
        <Flash variant="danger" role="alert" style={{ marginTop: 16 }}>
          {errorText(t, history.error)}
        </Flash>
      ) : !history.data ? (
        <PageSpinner />
      ) : history.data.results.length === 0 ? (
        <p className="bo-muted" data-testid="history-empty">
          {t('resources._history.empty')}
        </p>
      ) : (
        <>
          <HistoryEntries entries={history.data.results} defOf={(entity) => (entity === def.name ? def : undefined)} />
          <Pager
            paginator={history.data.paginator}
            onPage={setPage}
            onPageSize={(size) => {
              setPageSize(size);
              setPage(1);
            }}
          />
        </>
      )}
    </section>
  );
}

/** The record an Activity entry is about: a link to its page when it has one. */
export function RecordLink({ entry, def }: { entry: AuditRow; def: EntityDef | undefined }) {
  const { t } = useTranslation();
  const name = def ? t(`resources.${def.name}.one`, { defaultValue: entry.entity }) : entry.entity;
  // `one` is the word as used mid-sentence ("service"); here it starts the line.
  // Named as the engine's references name it (issue 33): "User Anna Berg"; "#12" only once it is gone.
  const text = `${name.charAt(0).toUpperCase()}${name.slice(1)} ${entry.record_label ?? `#${entry.record_id ?? '?'}`}`;
  if (def?.detailRoute && entry.record_id !== null && entry.action !== 'delete')
    return (
      <Link to={def.detailRoute.replace(':id', String(entry.record_id))} data-testid="history-record">
        {text}
      </Link>
    );
  return <span data-testid="history-record">{text}</span>;
}

export default RecordHistory;
