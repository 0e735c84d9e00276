import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams, type SetURLSearchParams } from 'react-router-dom';
import { BUDDY_REFERENCE } from '../../shared/entities/people.ts';
import { SERVICE_STATUS, servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { isWithinRange } from '../../shared/geo.ts';
import { addDays, formatDate, todayIso } from '../components/calendar-dates.ts';
import { ErrorState } from '../components/error-state.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { SpriteIcon } from '../components/sprite-icon.tsx';
import { StopsMap, type Stop } from '../components/stops-map.tsx';
import { useAccess } from '../entity/access.ts';
import type { ActionOutcome } from '../entity/record-actions.tsx';
import { usePublicConfig } from '../public-config.tsx';
import { useSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { useOfflineQueue, useOnline } from './today-offline-queue.ts';
import { inVisitOrder, isCanceled, stopWhen, todayDate, todayQuery } from './today-query.ts';
import { StopCard } from './today-stop-card.tsx';
import { Alert, Banner, DayNav, Layout, Muted, Stops, Top } from './today-styles.ts';
import { RouteOrderToggle } from './today-tools.tsx';

const ReferencePicker = lazy(() => import('../entity/reference-choices.tsx').then((m) => ({ default: m.ReferencePicker })));

/** The day's title (today, or the date), and the previous and next days. */
function DayHeader({ date, dayHref }: { date: string; dayHref: (day: string) => string }) {
  const { t, i18n } = useTranslation();
  const today = todayIso();
  return (
    <Top>
      <div>
        <h1 data-testid="today-title">{date === today ? t('today.title') : formatDate(date, i18n.language, { weekday: 'long', day: 'numeric', month: 'long' })}</h1>
        {date === today && (
          <Muted as="p" style={{ margin: 0, fontSize: 15 }} data-testid="today-date">
            {formatDate(date, i18n.language, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })}
          </Muted>
        )}
      </div>
      <DayNav aria-label={t('today.days')}>
        <Link to={dayHref(addDays(date, -1))} aria-label={t('agenda.previousDay')} data-testid="today-previous">
          <SpriteIcon name="chevron-left" />
        </Link>
        {date !== today && (
          <Link to={dayHref(today)} data-testid="today-today">
            {t('calendar.today')}
          </Link>
        )}
        <Link to={dayHref(addDays(date, 1))} aria-label={t('agenda.nextDay')} data-testid="today-next">
          <SpriteIcon name="chevron-right" />
        </Link>
      </DayNav>
    </Top>
  );
}

/** An Admin's choice of buddy (`?buddy=`), every buddy when none. */
function BuddyFilter({ buddy, setSearch }: { buddy: number | null; setSearch: SetURLSearchParams }) {
  const { t } = useTranslation();
  return (
    <div style={{ marginBottom: 12, minHeight: 32 }}>
      <Suspense fallback={null}>
        <ReferencePicker
          reference={BUDDY_REFERENCE}
          value={buddy}
          onChange={(v) =>
            setSearch((current) => {
              const next = new URLSearchParams(current);
              if (v === null) next.delete('buddy');
              else next.set('buddy', String(v));
              return next;
            })
          }
          label={t('resources.services.fields.buddy_id')}
          emptyLabel={t('today.allBuddies')}
          stacked
          testId="today-buddy"
        />
      </Suspense>
    </div>
  );
}

/** The map of the numbered stops; a stop clicked scrolls to its card. */
function StopsAside({ stops }: { stops: Stop[] }) {
  const { t } = useTranslation();
  return (
    <aside aria-label={t('today.map')}>
      <StopsMap stops={stops} onStop={(n) => document.getElementById(`stop-${n}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' })} />
      {stops.some((s) => s.outside) && (
        <p style={{ fontSize: 13, marginTop: 8 }} data-testid="today-outside-note">
          {t('today.outsideNote')}
        </p>
      )}
    </aside>
  );
}

/** Offline, since when the day is shown; online, how many kept steps are being sent (empty when none). */
function OfflineBanner({ online, waiting, updatedAt }: { online: boolean; waiting: number; updatedAt: number }) {
  const { t } = useTranslation();
  return (
    <Banner role="status" data-testid="offline-banner" data-online={online}>
      {!online
        ? t('today.offline.banner', { time: updatedAt ? new Date(updatedAt).toTimeString().slice(0, 5) : '—' })
        : waiting > 0
          ? t('today.offline.sending', { count: waiting })
          : ''}
    </Banner>
  );
}

interface DayStopsProps {
  active: EntityRecord[];
  canceled: EntityRecord[];
  stops: Stop[];
  truncated: boolean | undefined;
  /** Whether the route-order toggle is offered (one buddy's day). */
  routeOrder: boolean;
  card: (service: EntityRecord, number?: number) => React.ReactNode;
}

/** The day's stops in visit order, the canceled ones below, and the map beside them. */
function DayStops({ active, canceled, stops, truncated, routeOrder, card }: DayStopsProps) {
  const { t } = useTranslation();
  const finished = active.filter((s) => Number(s.status) === SERVICE_STATUS.Finished).length;
  return (
    <Layout>
      <div>
        <p style={{ margin: '0 0 12px' }} data-testid="today-summary">
          {active.length === 0
            ? t('today.none')
            : t('today.summary', { stops: t('today.stopCount', { count: active.length }), finished: t('today.finishedCount', { count: finished }) })}{' '}
          {active.length > 0 && <a href="#today-map">{t('today.toMap')}</a>}
        </p>
        {truncated && <Alert role="alert">{t('calendar.truncated')}</Alert>}
        {routeOrder && active.length >= 3 && <RouteOrderToggle stops={active} />}
        {active.length > 0 && (
          <Stops aria-label={t('today.stops')} data-testid="today-stops">
            {active.map((s, i) => card(s, i + 1))}
          </Stops>
        )}
        {canceled.length > 0 && (
          <>
            <h2 style={{ fontSize: 16, margin: '24px 0 8px' }}>{t('today.canceled', { count: canceled.length })}</h2>
            <Stops data-testid="today-canceled">{canceled.map((s) => card(s))}</Stops>
          </>
        )}
      </div>
      {active.length > 0 && <StopsAside stops={stops} />}
    </Layout>
  );
}

/**
 * /today (issue 13): a buddy's services of the day in the order they visit them, each with its address
 * (directions in the phone's maps app), bicycle, owner and the status steps open to them as big buttons;
 * a map of the numbered stops in the operation range below (beside, on a wide screen). An Admin sees
 * every buddy's day, or one buddy's. Other days through `?date=`.
 */
export default function TodayPage() {
  const [search, setSearch] = useSearchParams();
  const access = useAccess(servicesEntity);
  const { map } = usePublicConfig();
  const [errors, setErrors] = useState<Record<number, string>>({});
  const date = todayDate(search);
  const query = todayQuery(search, access.ownerScoped);
  // Offline, the query still asks once: the service worker answers with the last good copy (ADR 042).
  const services = trpc.services.calendar.useQuery(query, { networkMode: 'offlineFirst' });
  const browserOnline = useOnline();
  const { user } = useSession();
  const utils = trpc.useUtils();
  const { offline, steps, reachable, send } = useOfflineQueue(user ? String(user.id) : null, () => void utils.services.calendar.invalidate());
  const buddy = 'buddy_id' in query.filters ? Number(query.filters.buddy_id) : null;
  const dayHref = (day: string) => `?${new URLSearchParams({ ...Object.fromEntries(search), date: day })}`;

  const ordered = inVisitOrder(services.data?.results ?? []);
  const active = ordered.filter((s) => !isCanceled(s));
  const canceled = ordered.filter(isCanceled);
  const outside = (s: EntityRecord) => !isWithinRange(map, { lat: Number(s.latitude), lng: Number(s.longitude) });
  const stops: Stop[] = active.map((s, i) => ({
    number: i + 1,
    lat: Number(s.latitude),
    lng: Number(s.longitude),
    title: `${i + 1}. ${stopWhen(s)} ${String(s.address ?? '')}`.trim(),
    outside: outside(s),
    done: Number(s.status) === SERVICE_STATUS.Finished,
  }));

  // A refused step (someone moved the service meanwhile) is said in its card too; RecordActions reloads the day.
  const onResult = (outcome: ActionOutcome) => {
    const id = outcome.record.id;
    if (outcome.state === 'failed') setErrors((e) => ({ ...e, [id]: outcome.message }));
    else if (outcome.state === 'pending') setErrors(({ [id]: _gone, ...rest }) => rest);
  };

  const card = (service: EntityRecord, number?: number) => {
    const step = steps.find((s) => s.service === service.id);
    const note =
      step && offline ? (
        <offline.module.StepNote step={step} service={service} onDiscard={() => offline.queue.discard(step.key)} onRetry={() => offline.queue.resend(step.key, service)} />
      ) : null;
    return (
      <StopCard
        key={service.id}
        service={service}
        number={number}
        outside={outside(service)}
        showBuddy={!access.ownerScoped && buddy === null}
        error={errors[service.id]}
        onResult={onResult}
        send={send}
        step={step}
        note={note}
      />
    );
  };
  const waiting = steps.filter((s) => s.state === 'queued').length;

  return (
    <section>
      <DayHeader date={date} dayHref={dayHref} />
      {!access.ownerScoped && <BuddyFilter buddy={buddy} setSearch={setSearch} />}
      <OfflineBanner online={browserOnline && reachable} waiting={waiting} updatedAt={services.dataUpdatedAt} />
      {services.error && !services.data ? (
        <ErrorState error={services.error} onRetry={() => void services.refetch()} />
      ) : !services.data ? (
        <PageSpinner />
      ) : (
        <DayStops active={active} canceled={canceled} stops={stops} truncated={services.data.truncated} routeOrder={access.ownerScoped || buddy !== null} card={card} />
      )}
    </section>
  );
}
