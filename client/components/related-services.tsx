import { seededText } from '../entity/seeded-names.ts';
import { Heading } from '@primer/react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import { StatusLabel } from '../entity/status-label.tsx';
import { trpc } from '../trpc.ts';
import { formatDate } from '../../shared/format.ts';

type ServiceFilter = { owner_id: string } | { bicycle_id: string } | { buddy_id: string };

/** The services of a user or a bicycle, newest first, each linking to its record. */
export function RelatedServices({ filters, title, other, testId }: { filters: ServiceFilter; title: string; other: 'bicycle_id' | 'buddy_id' | 'owner_id'; testId: string }) {
  const { t, i18n } = useTranslation();
  const services = trpc.services.list.useQuery({ page: 1, page_size: 25, ordering: '-service_date', filters });
  const data = services.data;
  return (
    <section style={{ marginTop: 32 }} data-testid={testId}>
      <Heading as="h2" style={{ fontSize: 16, marginBottom: 8 }}>
        {title}
      </Heading>
      {!data ? null : data.results.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('services.none')}</p>
      ) : (
        <>
          <ul style={{ paddingLeft: 20, display: 'grid', gap: 6 }}>
            {data.results.map((s) => (
              <li key={s.id}>
                <Link to={`/services/${s.id}`}>
                  {formatDate(s.service_date, i18n.language)} · {seededText(t, 'service-slots', String(s.service_slot_id_label ?? ''))}
                </Link>{' '}
                <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={s.status} />{' '}
                <span style={{ color: 'var(--fgColor-muted)' }}>{String(s[`${other}_label`] ?? '')}</span>
              </li>
            ))}
          </ul>
          {data.paginator.count > data.results.length && (
            <p style={{ fontSize: 12, color: 'var(--fgColor-muted)' }}>{t('services.showingOf', { shown: data.results.length, count: data.paginator.count })}</p>
          )}
        </>
      )}
    </section>
  );
}
