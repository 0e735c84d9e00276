import { Heading, Spinner } from '@primer/react';
import { StarFillIcon } from '@primer/octicons-react';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { BicycleHistoryRow } from '../../shared/schemas/services.ts';
import { StatusLabel } from '../entity/status-label.tsx';
import { errorText } from '../errors.ts';
import { trpc } from '../trpc.ts';
import { DataTable } from './data-table.ts';
import { formatDate } from '../../shared/format.ts';
import { seededText } from '../entity/seeded-names.ts';
import { Pager } from './pager.tsx';
import { historyParams } from './bicycle-history-params.ts';

/** The app's table of records (ADR 021): rows on wide screens, on a phone a card of labelled lines per service. */
const Table = styled(DataTable)`
  td {
    vertical-align: top;
  }
  .muted {
    color: var(--fgColor-muted, #59636e);
  }
  .repair {
    color: var(--fgColor-danger, #d1242f);
  }
  .photos {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 4px;
    margin-top: 4px;
  }
  .photos img {
    display: block;
    object-fit: cover;
    border-radius: 4px;
  }
`;

/** A finished service's rating; only finished services are rated, so the others show a dash. */
function Rating({ value, finished }: { value: number | null; finished: boolean }) {
  const { t } = useTranslation();
  if (value === null) return <span className="muted">{finished ? t('bicycleHistory.notRated') : '—'}</span>;
  return (
    <span aria-label={t('bicycleHistory.rating', { value })} title={t('bicycleHistory.rating', { value })} style={{ whiteSpace: 'nowrap' }}>
      <StarFillIcon size={14} fill="var(--fgColor-attention, #9a6700)" /> {value}/5
    </span>
  );
}

/** A service's photos in its history row: a few thumbnails, each opening the photo, and how many there are. */
function Photos({ date, urls }: { date: string; urls: string[] }) {
  const { t } = useTranslation();
  return (
    <span className="photos" data-testid="history-photos">
      {urls.slice(0, 4).map((url, i) => (
        <a key={url} href={url} target="_blank" rel="noopener noreferrer">
          <img src={url} alt={t('bicycleHistory.photoOf', { n: i + 1, date })} width={44} height={44} loading="lazy" />
        </a>
      ))}
      {urls.length > 4 && <span className="muted">{t('bicycleHistory.photos', { count: urls.length })}</span>}
    </span>
  );
}

type HistoryColumns = Record<'date' | 'type' | 'status' | 'buddy' | 'findings' | 'rating', string>;

/** One service of the history: its date and slot, type, status, buddy, findings (checklist, repairs, notes) and rating. */
function HistoryRow({ service: s, columns, linked }: { service: BicycleHistoryRow; columns: HistoryColumns; linked: boolean }) {
  const { t, i18n } = useTranslation();
  return (
    <tr data-testid={`history-${s.id}`}>
      <td data-label={columns.date}>
        <span>
          {linked ? (
            <Link to={`/services/${s.id}`} style={{ whiteSpace: 'nowrap' }}>
              <time dateTime={s.service_date}>{formatDate(s.service_date, i18n.language)}</time>
            </Link>
          ) : (
            <span style={{ whiteSpace: 'nowrap' }}>
              <time dateTime={s.service_date}>{formatDate(s.service_date, i18n.language)}</time>
            </span>
          )}
          {s.slot_label && <span className="muted"> · {seededText(t, 'service-slots', s.slot_label)}</span>}
        </span>
      </td>
      <td data-label={columns.type}>{s.service_type_label ?? <span className="muted">—</span>}</td>
      <td data-label={columns.status}>
        <span>
          <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={s.status} />
        </span>
      </td>
      <td data-label={columns.buddy}>{s.buddy_label ?? <span className="muted">—</span>}</td>
      <td data-label={columns.findings}>
        <span>
          {s.checked > 0 ? t('bicycleHistory.checked', { count: s.checked }) : <span className="muted">{t('bicycleHistory.noChecklist')}</span>}
          {s.needs_repair > 0 && <span className="repair"> · {t('bicycleHistory.needsRepair', { count: s.needs_repair })}</span>}
          {s.photos.length > 0 && <Photos date={s.service_date} urls={s.photos} />}
          {s.notes && (
            <span className="muted" style={{ display: 'block' }}>
              “{s.notes.length > 120 ? `${s.notes.slice(0, 119)}…` : s.notes}”
            </span>
          )}
        </span>
      </td>
      <td data-label={columns.rating}>
        <Rating value={s.rating} finished={s.status === SERVICE_STATUS.Finished} />
      </td>
    </tr>
  );
}

/** The history's page: in the URL on the bicycle's page, kept by the component where it is embedded (a stop's card). */
function useHistoryPage(embedded: boolean) {
  const [search, setSearch] = useSearchParams();
  const [local, setLocal] = useState({ page: 1, page_size: 10 as 10 | 25 | 50 | 100 });
  const { page, page_size } = embedded ? local : historyParams(search);
  const go = (changes: { history_page?: number; history_size?: number }) => {
    if (embedded) {
      setLocal((current) => (changes.history_size ? { page: 1, page_size: changes.history_size as 10 } : { ...current, page: changes.history_page ?? current.page }));
      return;
    }
    setSearch(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) next.set(key, String(value));
        if (changes.history_size) next.delete('history_page');
        return next;
      },
      { preventScrollReset: true },
    );
  };
  return { page, page_size, go };
}

/**
 * Per-bicycle service history: date, type, status, buddy, findings and rating, paged. On /bicycles/:id (an
 * Admin's) the dates link to the services; `embedded` on a stop's card of /today (a buddy reads it through their
 * service, ADR 044) it is read-only: no links to other buddies' services, its page kept out of the URL.
 */
export function BicycleHistory({ bicycleId, embedded = false }: { bicycleId: number; embedded?: boolean }) {
  const { t } = useTranslation();
  const titleId = useId();
  const { page, page_size, go } = useHistoryPage(embedded);
  const history = trpc.bicycles.history.list.useQuery({ id: bicycleId, page, page_size }, { placeholderData: (previous) => previous });
  const data = history.data;
  const columns: HistoryColumns = {
    date: t('bicycleHistory.date'),
    type: t('resources.services.fields.service_type_id'),
    status: t('resources.services.fields.status'),
    buddy: t('resources.services.fields.buddy_id'),
    findings: t('bicycleHistory.findings'),
    rating: t('resources.services.fields.rating'),
  };

  return (
    <section style={{ marginTop: embedded ? 0 : 32 }} data-testid="bicycle-history" aria-labelledby={titleId}>
      <div style={{ display: 'flex', alignItems: 'center', gap: 8, marginBottom: 8 }}>
        <Heading as={embedded ? 'h3' : 'h2'} id={titleId} style={{ fontSize: embedded ? 15 : 16 }}>
          {t('bicycleHistory.title')}
        </Heading>
        {history.isFetching && <Spinner size="small" srText={t('app.loading')} />}
      </div>
      {history.error && !data ? (
        <p role="alert">{errorText(t, history.error)}</p>
      ) : !data ? null : data.results.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('bicycleHistory.none')}</p>
      ) : (
        <>
          <Table>
            <thead>
              <tr>
                {Object.values(columns).map((label) => (
                  <th key={label} scope="col">
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.results.map((s) => (
                <HistoryRow key={s.id} service={s} columns={columns} linked={!embedded} />
              ))}
            </tbody>
          </Table>
          <Pager paginator={data.paginator} onPage={(next) => go({ history_page: next })} onPageSize={(size) => go({ history_size: size })} />
        </>
      )}
    </section>
  );
}
