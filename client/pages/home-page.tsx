import { Heading, Text } from '@primer/react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW } from '../../shared/entities/services.ts';
import { ROLE } from '../../shared/roles.ts';
import type { Dashboard, Series, Statistics } from '../../shared/schemas/dashboard.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { ColumnChart } from '../components/column-chart.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { fullName, useSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { PHONE_MEDIA } from '../components/breakpoints.ts';
import { formatDate, formatNumber } from '../../shared/format.ts';

const Cards = styled.dl`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(170px, 1fr));
  gap: 12px;
  margin: 8px 0 24px;
  /* Two counters side by side on a phone. */
  ${PHONE_MEDIA} {
    grid-template-columns: repeat(2, minmax(0, 1fr));
    dd {
      font-size: 22px;
    }
  }
  div {
    border: 1px solid var(--borderColor-default, #d1d9e0);
    border-radius: 8px;
    padding: 12px 14px;
    background: var(--bgColor-default, #fff);
  }
  dt {
    font-size: 13px;
    color: var(--fgColor-muted, #59636e);
  }
  dd {
    margin: 4px 0 0;
    font-size: 26px;
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }
  dd a {
    color: var(--fgColor-accent, #0969da);
    text-decoration: none;
  }
  dd a:hover {
    text-decoration: underline;
  }
  dd a:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 2px;
    border-radius: 4px;
  }
`;

const Panels = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(300px, 1fr));
  gap: 20px;
  margin-bottom: 24px;
  section {
    border: 1px solid var(--borderColor-default, #d1d9e0);
    border-radius: 8px;
    padding: 12px 14px;
  }
  h3 {
    font-size: 14px;
    margin: 0 0 8px;
    display: flex;
    justify-content: space-between;
    gap: 8px;
  }
`;

/** A buddy's way into their day (issue 13): the first thing on their home page, big enough for a thumb. */
const TodayLink = styled(Link)`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 4px 16px;
  min-height: 56px;
  margin: 12px 0 20px;
  padding: 12px 16px;
  border-radius: 10px;
  background: var(--bgColor-accent-emphasis, #0969da);
  color: var(--fgColor-onEmphasis, #fff);
  font-size: 16px;
  text-decoration: none;
  &:hover {
    text-decoration: none;
    filter: brightness(1.08);
  }
  &:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 2px;
  }
`;

/** Counters grouped as staff read them; each key is one §1 figure (definitions: ADR 016). */
const ADMIN_GROUPS = [
  { title: 'home.groups.users', keys: ['total_users', 'active_users', 'new_users', 'invited_users', 'direct_active', 'total_buddies'] },
  { title: 'home.groups.services', keys: ['services_performed', 'scheduled_services', 'one_off_total'] },
  { title: 'home.groups.subscriptions', keys: ['subscribers', 'active_single_bike', 'active_multiple_bike', 'active_b2b2c', 'b2b_groups', 'promo_codes_used'] },
] as const;

const STATUS_COLOUR: Record<string, string> = {
  attention: 'var(--fgColor-attention, #9a6700)',
  accent: 'var(--fgColor-accent, #0969da)',
  severe: 'var(--fgColor-severe, #bc4c00)',
  success: 'var(--fgColor-success, #1a7f37)',
  danger: 'var(--fgColor-danger, #d1242f)',
};

function number(value: number, lang: string): string {
  return formatNumber(value, lang);
}

/** "22 Nov" / "22 nov.": short enough for an axis. */
function shortDay(day: string, lang: string): string {
  return formatDate(day, lang, { day: 'numeric', month: 'short' });
}

/**
 * The list each counter counts, filtered as it counts (issue 33): the figure is a link to it. `day` is the
 * day the dashboard counted as today (its series' last day). Counters no list can show as counted
 * (active users, subscribers, …) stay plain figures.
 */
export function counterList(key: string, day: string): string | null {
  const lists: Record<string, string> = {
    services_performed: `/services?f_status=${SERVICE_STATUS.Finished}`,
    scheduled_services: `/services?f_status=${SERVICE_STATUS.Booked}&f_service_date_from=${day}&ordering=service_date`,
    one_off_total: `/services?f_status=${SERVICE_STATUS.Finished}&f_origin_type=one_off`,
    // Today's stops are the day page's (the same count, issue 33).
    services_today: `/today?date=${day}`,
    total_users: '/users',
    invited_users: '/users?invitation_status=pending',
  };
  return lists[key] ?? null;
}

function CounterCards({ t, lang, keys, counters, day }: { t: TFunction; lang: string; keys: readonly string[]; counters: Record<string, number>; day: string }) {
  return (
    <Cards>
      {keys.map((key) => {
        const figure = number(counters[key] ?? 0, lang);
        const to = counterList(key, day);
        return (
          <div key={key} data-testid={`counter-${key}`}>
            <dt id={`counter-label-${key}`}>{t(`home.counters.${key}`)}</dt>
            <dd>
              {to ? (
                <Link to={to} aria-label={t('home.counterLink', { figure, name: t(`home.counters.${key}`) })}>
                  {figure}
                </Link>
              ) : (
                figure
              )}
            </dd>
          </div>
        );
      })}
    </Cards>
  );
}

function Trends({ t, lang, series }: { t: TFunction; lang: string; series: Series }) {
  return (
    <Panels>
      {Object.entries(series.values).map(([name, values]) => {
        const title = t(`home.series.${name}`);
        const total = values.reduce((a, b) => a + b, 0);
        return (
          <section key={name} data-testid={`series-${name}`}>
            <h3>
              <span>{title}</span>
              <span data-testid={`series-${name}-total`}>{number(total, lang)}</span>
            </h3>
            <ColumnChart title={`${title}, ${t('home.last30')}`} columns={series.days.map((day, i) => ({ label: shortDay(day, lang), value: values[i] ?? 0 }))} tickEvery={7} />
          </section>
        );
      })}
    </Panels>
  );
}

function StatisticsSection() {
  const { t, i18n } = useTranslation();
  const stats = trpc.dashboard.statistics.useQuery();
  if (stats.error) return <ErrorState error={stats.error} onRetry={() => void stats.refetch()} />;
  if (!stats.data) return <PageSpinner />;
  const data: Statistics = stats.data;
  const lang = i18n.language;
  return (
    <Panels data-testid="statistics">
      <section>
        <h3>{t('home.stats.byStatus')}</h3>
        <BarChart
          title={t('home.stats.byStatus')}
          testId="stats-by-status"
          bars={data.servicesByStatus.map((s) => ({
            label: t(`resources.services.options.status.${s.status}`),
            value: s.count,
            color: STATUS_COLOUR[SERVICE_STATUS_FLOW.colors[s.status] ?? 'accent'] ?? STATUS_COLOUR.accent!,
          }))}
        />
      </section>
      <section>
        <h3>{t('home.stats.byWeek')}</h3>
        <ColumnChart
          title={t('home.stats.byWeek')}
          testId="stats-by-week"
          columns={data.servicesByWeek.map((w) => ({ label: shortDay(w.week, lang), value: w.count }))}
          tickEvery={3}
        />
      </section>
      <section>
        <h3>{t('home.stats.members')}</h3>
        <ColumnChart
          title={t('home.stats.members')}
          testId="stats-members"
          color="var(--fgColor-success, #1a7f37)"
          columns={data.usersByMonth.map((m) => ({
            label: formatDate(`${m.month}-15`, lang, { month: 'short' }),
            value: m.total,
          }))}
          tickEvery={2}
        />
      </section>
    </Panels>
  );
}

/** / (Admin, Buddy): the §1 counters and last-30-day trends; an Admin also sees the statistics. */
export default function HomePage() {
  const { t, i18n } = useTranslation();
  const { user, roles } = useSession();
  const dashboard = trpc.dashboard.get.useQuery();
  const lang = i18n.language;
  const data: Dashboard | undefined = dashboard.data;
  return (
    <section>
      <Heading as="h1" style={{ marginBottom: 4 }} data-testid="home-welcome">
        {t('home.welcome', { name: fullName(user) })}
      </Heading>
      <Text as="p" style={{ color: 'var(--fgColor-muted)', marginTop: 0 }}>
        {t(data?.scope === 'own' ? 'home.introOwn' : 'home.introAll')}
      </Text>
      {dashboard.error ? (
        <ErrorState error={dashboard.error} onRetry={() => void dashboard.refetch()} />
      ) : !data ? (
        <PageSpinner />
      ) : data.scope === 'all' ? (
        <>
          {ADMIN_GROUPS.map((group) => (
            <div key={group.title}>
              <Heading as="h2" style={{ fontSize: 16 }}>
                {t(group.title)}
              </Heading>
              <CounterCards t={t} lang={lang} keys={group.keys} counters={data.counters} day={data.series.days.at(-1) ?? ''} />
            </div>
          ))}
          <Heading as="h2" style={{ fontSize: 16 }}>
            {t('home.last30')}
          </Heading>
          <Trends t={t} lang={lang} series={data.series} />
        </>
      ) : (
        <>
          <TodayLink to="/today" data-testid="home-today">
            <strong>{t('today.homeLink', { count: data.counters.services_today ?? 0 })}</strong>
            <span>{t('today.homeLinkAction')} →</span>
          </TodayLink>
          <CounterCards t={t} lang={lang} keys={['services_today', 'scheduled_services', 'services_performed']} counters={data.counters} day={data.series.days.at(-1) ?? ''} />
          <Heading as="h2" style={{ fontSize: 16 }}>
            {t('home.last30')}
          </Heading>
          <Trends t={t} lang={lang} series={data.series} />
        </>
      )}
      {roles.includes(ROLE.Admin) && (
        <>
          <Heading as="h2" style={{ fontSize: 16 }}>
            {t('home.stats.title')}
          </Heading>
          <StatisticsSection />
        </>
      )}
    </section>
  );
}
