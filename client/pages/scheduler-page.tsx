import { Button, Heading } from '@primer/react';
import { CalendarIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { buddyWorkSlotsEntity } from '../../shared/entities/buddy-work-slots.ts';
import { notWorkingSlotsEntity } from '../../shared/entities/not-working-slots.ts';
import { ResourceListPage } from '../entity/resource-list-page.tsx';

export const SCHEDULER_TABS = { work: buddyWorkSlotsEntity, away: notWorkingSlotsEntity } as const;
export type SchedulerTab = keyof typeof SCHEDULER_TABS;
export const schedulerTabOf = (search: URLSearchParams): SchedulerTab => (search.get('tab') === 'away' ? 'away' : 'work');

/**
 * /bike-buddy-scheduler: work slots and not-working slots, one list per tab (each the generic list, so
 * a Buddy manages only their own), and the way to the calendar.
 */
export default function SchedulerPage() {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const tab = schedulerTabOf(search);
  return (
    <section>
      <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 8, flexWrap: 'wrap' }}>
        <Heading as="h1">{t('routes.scheduler')}</Heading>
        <Button as={Link} to="/bike-buddy-scheduler/calendar" leadingVisual={CalendarIcon} data-testid="open-scheduler-calendar">
          {t('routes.schedulerCalendar')}
        </Button>
      </div>
      <nav aria-label={t('routes.scheduler')} style={{ display: 'flex', gap: 4, borderBottom: '1px solid var(--borderColor-muted, #d8dee4)', paddingBottom: 8, marginTop: 8 }}>
        {(Object.keys(SCHEDULER_TABS) as SchedulerTab[]).map((key) => (
          <Button
            key={key}
            as={Link}
            to={key === 'work' ? '?' : '?tab=away'}
            aria-current={tab === key ? 'page' : undefined}
            variant={tab === key ? 'default' : 'invisible'}
            data-testid={`tab-${key}`}
          >
            {t(`resources.${SCHEDULER_TABS[key].name}.name`)}
          </Button>
        ))}
      </nav>
      <div style={{ marginTop: 16 }}>
        <ResourceListPage key={tab} def={SCHEDULER_TABS[tab]} headingLevel="h2" />
      </div>
    </section>
  );
}
