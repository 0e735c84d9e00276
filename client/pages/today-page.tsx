import { lazy, Suspense, useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams, type SetURLSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { BUDDY_REFERENCE } from '../../shared/entities/people.ts';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { isWithinRange } from '../../shared/geo.ts';
import { addDays, formatDate, todayIso } from '../components/calendar-dates.ts';
import { ErrorState } from '../components/error-state.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { SpriteIcon } from '../components/sprite-icon.tsx';
import { StopsMap, type Stop } from '../components/stops-map.tsx';
import { useAccess } from '../entity/access.ts';
import type { ActionButton } from '../entity/action-buttons.ts';
import { RecordActions, type ActionOutcome, type ActionSender } from '../entity/record-actions.tsx';
import { StatusLabel } from '../entity/status-label.tsx';
import { usePublicConfig } from '../public-config.tsx';
import { afterLoad } from '../shell/idle.ts';
import { useSession } from '../session.ts';
import { trpc } from '../trpc.ts';
import { inVisitOrder, isCanceled, stopTime, todayDate, todayQuery } from './today-query.ts';
import type { OfflineQueue, QueuedStep } from './today-offline.tsx';
import { BicycleHistoryToggle, RouteOrderToggle } from './today-tools.tsx';

type OfflineModule = typeof import('./today-offline.tsx');

const Top = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 8px 16px;
  margin-bottom: 12px;
  h1 {
    margin: 0;
  }
`;

const DayNav = styled.nav`
  display: flex;
  align-items: center;
  gap: 8px;
  a {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-width: 44px;
    min-height: 44px;
    padding: 0 10px;
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 8px;
    color: var(--fgColor-default, #1f2328);
    background: var(--bgColor-muted, #f6f8fa);
    text-decoration: none;
    font-size: 14px;
  }
`;

/** One column on a phone; the stops beside a sticky map from 1024 px. */
const Layout = styled.div`
  display: grid;
  gap: 16px;
  align-items: start;
  @media (min-width: 1024px) {
    grid-template-columns: minmax(0, 1fr) minmax(320px, 42%);
    > aside {
      position: sticky;
      top: 72px;
    }
  }
`;

const Stops = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: 12px;
`;

const Card = styled.li`
  display: grid;
  gap: 8px;
  padding: 12px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-left-width: 4px;
  border-radius: 10px;
  background: var(--bgColor-default, #fff);
  min-width: 0;
  font-size: 15px;
  &[data-status='1'] {
    border-left-color: var(--borderColor-attention-emphasis, #9a6700);
  }
  &[data-status='2'] {
    border-left-color: var(--borderColor-accent-emphasis, #0969da);
  }
  &[data-status='${SERVICE_STATUS.Finished}'] {
    border-left-color: var(--borderColor-success-emphasis, #1a7f37);
  }
  &[data-canceled='true'] {
    color: var(--fgColor-muted, #59636e);
    border-left-color: var(--borderColor-default, #d0d7de);
  }
  p {
    margin: 0;
  }
  a {
    color: var(--fgColor-accent, #0969da);
    /* Links in running text are told apart by more than their colour (axe link-in-text-block). */
    text-decoration: underline;
  }
  &[data-step='queued'] {
    border-style: dashed;
  }
  .stop-note {
    display: grid;
    gap: 6px;
    padding: 8px 10px;
    border-radius: 6px;
    background: var(--bgColor-attention-muted, #fff8c5);
    border: 1px solid var(--borderColor-attention-emphasis, #9a6700);
    ul {
      margin: 0;
      padding-left: 20px;
    }
    button {
      min-height: 44px;
    }
  }
  .stop-note-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
  }
`;

/** Says the phone is offline (and what happens to the buddy's steps), or that kept steps are being sent. */
const Banner = styled.p`
  margin: 0 0 12px;
  padding: 10px 12px;
  border-radius: 8px;
  background: var(--bgColor-neutral-emphasis, #59636e);
  color: var(--fgColor-onEmphasis, #fff);
  font-size: 15px;
  &:empty {
    padding: 0;
    margin: 0;
  }
`;

const subscribeOnline = (change: () => void) => {
  window.addEventListener('online', change);
  window.addEventListener('offline', change);
  return () => {
    window.removeEventListener('online', change);
    window.removeEventListener('offline', change);
  };
};
/** Whether the browser says it is online; the server renders online. */
const useOnline = () =>
  useSyncExternalStore(
    subscribeOnline,
    () => navigator.onLine,
    () => true,
  );

const CardHead = styled.div`
  display: flex;
  align-items: center;
  flex-wrap: wrap;
  gap: 8px;
  time {
    font-weight: 600;
    font-variant-numeric: tabular-nums;
  }
`;

const StopNumber = styled.span`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 28px;
  height: 28px;
  border-radius: 50%;
  background: #0969da;
  color: #fff;
  font-weight: 600;
  font-size: 14px;
  flex-shrink: 0;
  &[data-done='true'] {
    background: #1a7f37;
  }
  &[data-outside='true'] {
    background: #cf222e;
  }
`;

const Muted = styled.span`
  color: var(--fgColor-muted, #59636e);
  font-size: 13px;
`;

const Flag = styled.span`
  display: inline-block;
  margin-left: 6px;
  padding: 0 8px;
  border-radius: 999px;
  font-size: 12px;
  line-height: 20px;
  color: var(--fgColor-danger, #d1242f);
  border: 1px solid var(--borderColor-danger-emphasis, #cf222e);
`;

/** Big buttons at the bottom of a card, where a thumb reaches them (at least 48 px high; the label may wrap). */
const Actions = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(120px, 1fr));
  gap: 8px;
  margin-top: 4px;
  &:empty {
    display: none;
  }
  button {
    min-height: 48px;
    height: auto;
    min-width: 0;
    white-space: normal;
    padding: 0 12px;
    border-radius: 8px;
    font-size: 16px;
    font-weight: 600;
  }
  button:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 2px;
  }
`;

const Alert = styled.p`
  padding: 8px 10px;
  border-radius: 6px;
  border: 1px solid var(--borderColor-danger-emphasis, #cf222e);
  background: var(--bgColor-danger-muted, #ffebe9);
  color: var(--fgColor-danger, #d1242f);
`;

// Only an Admin chooses a buddy: the choice list (Primer Select and a filter box) is not a buddy's download.
const ReferencePicker = lazy(() => import('../entity/reference-choices.tsx').then((m) => ({ default: m.ReferencePicker })));

/** Directions to a stop in the phone's maps app (Google Maps' universal link opens the app where installed). */
const directionsUrl = (lat: number, lng: number) => `https://www.google.com/maps/dir/?api=1&destination=${lat},${lng}`;
const telHref = (phone: string) => `tel:${phone.replace(/[^\d+]/g, '')}`;

function timeText(service: EntityRecord): string {
  if (service.service_time) return String(service.service_time).slice(0, 5);
  const start = String(service.slot_start_time ?? '').slice(0, 5);
  const end = String(service.slot_end_time ?? '').slice(0, 5);
  return start && end ? `${start}–${end}` : start;
}

interface StopCardProps {
  service: EntityRecord;
  number?: number;
  outside: boolean;
  showBuddy: boolean;
  error: string | undefined;
  onResult: (outcome: ActionOutcome) => void;
  /** The offline queue's sender, once loaded (ADR 042). */
  send: ActionSender | undefined;
  /** This stop's kept step, and the note that shows it. */
  step: QueuedStep | undefined;
  note: React.ReactNode;
}

/** The status steps' test ids on a card. */
const stepTestId = (button: ActionButton) => `stop-step-${button.to}`;

function StopCard({ service, number, outside, showBuddy, error, onResult, send, step, note }: StopCardProps) {
  const { t } = useTranslation();
  const lat = Number(service.latitude);
  const lng = Number(service.longitude);
  const address = String(service.address ?? '') || `${lat.toFixed(5)}, ${lng.toFixed(5)}`;
  const owner = String(service.owner_id_label ?? '');
  const phone = service.owner_phone ? String(service.owner_phone) : null;
  const status = Number(service.status);
  return (
    <Card
      id={number ? `stop-${number}` : undefined}
      data-testid="today-stop"
      data-service={service.id}
      data-status={status}
      data-canceled={isCanceled(service)}
      data-step={step?.state}
      aria-labelledby={`stop-title-${service.id}`}
    >
      <CardHead>
        {number !== undefined && (
          <StopNumber data-done={status === SERVICE_STATUS.Finished} data-outside={outside} aria-hidden="true">
            {number}
          </StopNumber>
        )}
        <time id={`stop-title-${service.id}`} data-testid="stop-time">
          {number !== undefined && <span className="visually-hidden">{t('today.stopNumber', { number })} </span>}
          {timeText(service) || t('today.noTime')}
        </time>
        <Muted>{String(service.service_slot_id_label ?? '')}</Muted>
        <span style={{ marginLeft: 'auto' }}>
          <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={status} />
        </span>
      </CardHead>
      <p>
        <a href={directionsUrl(lat, lng)} target="_blank" rel="noopener noreferrer" data-testid="stop-address" aria-label={t('today.directions', { address })}>
          {address} <span aria-hidden="true">↗</span>
        </a>
        {outside && <Flag data-testid="stop-outside">{t('today.outsideRange')}</Flag>}
      </p>
      <p data-testid="stop-bicycle">
        <Muted>{t('resources.services.fields.bicycle_id')}: </Muted>
        {String(service.bicycle_id_label ?? '—')}
      </p>
      <BicycleHistoryToggle bicycleId={Number(service.bicycle_id)} />
      {owner && (
        <p data-testid="stop-owner">
          <Muted>{t('resources.services.fields.owner_id')}: </Muted>
          {owner}
          {phone && (
            <>
              {' · '}
              <a href={telHref(phone)} aria-label={t('today.call', { phone })}>
                {phone}
              </a>
            </>
          )}
        </p>
      )}
      {showBuddy && (
        <p>
          <Muted>{t('resources.services.fields.buddy_id')}: </Muted>
          {String(service.buddy_id_label ?? '')}
        </p>
      )}
      {service.notes ? <p style={{ whiteSpace: 'pre-wrap' }}>{String(service.notes)}</p> : null}
      <p>
        <Link to={`/services/${service.id}`} data-testid="stop-details">
          {t('today.details')}
        </Link>
      </p>
      {error && (
        <Alert role="alert" data-testid="stop-error">
          {error}
        </Alert>
      )}
      {note}
      {/* A kept step is the stop's next one: no other until it is sent or discarded. */}
      {!step && (
        <Actions>
          <RecordActions def={servicesEntity} record={service} only={['transition']} variant="compact" size="medium" testId={stepTestId} onResult={onResult} send={send} />
        </Actions>
      )}
    </Card>
  );
}

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

/**
 * The Today page's offline queue (ADR 042). Not needed for the first paint, it is loaded once the page has
 * loaded and the browser is idle (ADR 048), or at the first step a buddy takes before then: every step goes
 * through it, so a step taken in a dead spot right after a reload is kept like any other.
 */
function useOfflineQueue(userId: string | null, onSent: () => void) {
  // The module and queue are kept aside: the page shows them only through `steps`, so loading them does not
  // render the day again when nothing waits (the usual case).
  const offline = useRef<{ module: OfflineModule; queue: OfflineQueue } | null>(null);
  const [steps, setSteps] = useState<readonly QueuedStep[]>([]);
  const [reachable, setReachable] = useState(true);
  const sent = useRef(onSent);
  sent.current = onSent;
  const open = useRef<(() => Promise<OfflineQueue>) | null>(null);
  useEffect(() => {
    if (!userId) return;
    let opening: Promise<OfflineQueue> | undefined;
    let queue: OfflineQueue | undefined;
    let unsubscribe = () => {};
    let gone = false;
    open.current = () =>
      (opening ??= import('./today-offline.tsx').then((module) => {
        if (gone) throw new Error('The Today page was left before its offline queue loaded.');
        const opened = (queue = module.openOfflineQueue(userId, () => sent.current()));
        offline.current = { module, queue: opened };
        const show = () => {
          const now = opened.steps();
          setSteps((before) => (before.length === 0 && now.length === 0 ? before : now));
          setReachable(opened.reachable());
        };
        unsubscribe = opened.subscribe(show);
        show();
        return opened;
      })).catch((error: unknown) => {
        // Not loaded (no network, not kept yet): the next step tries again.
        opening = undefined;
        throw error;
      });
    const cancel = afterLoad(() => void open.current?.().catch(() => undefined));
    return () => {
      gone = true;
      open.current = null;
      offline.current = null;
      cancel();
      unsubscribe();
      queue?.close();
    };
  }, [userId]);
  const send = useCallback<ActionSender>(async (path, input, record) => {
    const queue = await open.current?.();
    if (!queue) throw new Error('The Today page was left before its offline queue loaded.');
    return queue.submit(path, input, record);
  }, []);
  return { offline: steps.length > 0 ? offline.current : null, steps, reachable, send: userId ? send : undefined };
}

/**
 * /today (issue 13): a buddy's services of the day in the order they visit them, each with its address
 * (directions in the phone's maps app), bicycle, owner and the status steps open to them as big buttons;
 * a map of the numbered stops in the operation range below (beside, on a wide screen). An Admin sees
 * every buddy's day, or one buddy's. Other days through `?date=`.
 */
export default function TodayPage() {
  const { t } = useTranslation();
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
    title: `${i + 1}. ${stopTime(s)} ${String(s.address ?? '')}`.trim(),
    outside: outside(s),
    done: Number(s.status) === SERVICE_STATUS.Finished,
  }));
  const finished = active.filter((s) => Number(s.status) === SERVICE_STATUS.Finished).length;

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
  const online = browserOnline && reachable;

  return (
    <section>
      <DayHeader date={date} dayHref={dayHref} />
      {!access.ownerScoped && <BuddyFilter buddy={buddy} setSearch={setSearch} />}
      <Banner role="status" data-testid="offline-banner" data-online={online}>
        {!online
          ? t('today.offline.banner', { time: services.dataUpdatedAt ? new Date(services.dataUpdatedAt).toTimeString().slice(0, 5) : '—' })
          : waiting > 0
            ? t('today.offline.sending', { count: waiting })
            : ''}
      </Banner>
      {services.error && !services.data ? (
        <ErrorState error={services.error} onRetry={() => void services.refetch()} />
      ) : !services.data ? (
        <PageSpinner />
      ) : (
        <Layout>
          <div>
            <p style={{ margin: '0 0 12px' }} data-testid="today-summary">
              {active.length === 0 ? t('today.none') : t('today.summary', { count: active.length, finished })} {active.length > 0 && <a href="#today-map">{t('today.toMap')}</a>}
            </p>
            {services.data.truncated && <Alert role="alert">{t('calendar.truncated')}</Alert>}
            {(access.ownerScoped || buddy !== null) && active.length >= 3 && <RouteOrderToggle stops={active} />}
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
      )}
    </section>
  );
}
