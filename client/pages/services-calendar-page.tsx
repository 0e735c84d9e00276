import { newRecordTitle } from '../entity/new-record-title.ts';
import { Button, Flash, Heading, Spinner } from '@primer/react';
import { ListUnorderedIcon, PlusIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { CalendarToolbar, Chip, DayAgenda, MonthView, STATUS_STYLE, SlotGrid, dayViewHref, todayIso, useCalendarState, type IsoDate } from '../components/calendar.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { useAccess } from '../entity/access.ts';
import { StatusLabel, statusText } from '../entity/status-label.tsx';
import { trpc } from '../trpc.ts';
import { ReferencePicker } from '../entity/reference-choices.tsx';
import { BUDDY_REFERENCE } from '../../shared/entities/people.ts';
import { inVisitOrder } from './today-query.ts';

const MONTH_CELL_LIMIT = 4;

/** A service in its status colour, opening the service; buddies see the bicycle, admins the buddy too. */
function ServiceChip({ service, showBuddy, detailed, withSlot }: { service: EntityRecord; showBuddy: boolean; detailed?: boolean; withSlot?: boolean }) {
  const { t } = useTranslation();
  const style = STATUS_STYLE[SERVICE_STATUS_FLOW.colors[Number(service.status)] ?? 'secondary'];
  const status = statusText(t, servicesEntity, 'status', service.status);
  const parts = [withSlot ? String(service.service_slot_id_label ?? '') : '', showBuddy ? String(service.buddy_id_label ?? '') : String(service.bicycle_id_label ?? '')];
  if (detailed) parts.push(showBuddy ? String(service.bicycle_id_label ?? '') : '', String(service.address ?? ''));
  const text = parts.filter(Boolean).join(' · ');
  return (
    <Chip
      $background={style.background}
      $border={style.border}
      $color={style.color}
      $wrap={!withSlot}
      title={`${status}: ${text}`}
      data-testid="calendar-service"
      data-status={String(service.status)}
    >
      <Link to={`/services/${service.id}`}>
        <span className="visually-hidden">{status}: </span>
        {detailed ? <strong>{status} · </strong> : null}
        {text}
      </Link>
    </Chip>
  );
}

/** One service of the phone's day agenda: status, what (and who, for an admin) and where, opening the service. */
function AgendaService({ service, showBuddy }: { service: EntityRecord; showBuddy: boolean }) {
  return (
    <>
      <span>
        <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={service.status} />
      </span>
      <Link to={`/services/${service.id}`} data-testid="agenda-service" data-status={String(service.status)}>
        {String(service.bicycle_id_label ?? `#${service.id}`)}
      </Link>
      {showBuddy && <span>{String(service.buddy_id_label ?? '')}</span>}
      {service.address ? <span style={{ color: 'var(--fgColor-muted)', fontSize: 13 }}>{String(service.address)}</span> : null}
    </>
  );
}

/** The title, the way back to the list and, for those who may book, a new service on the shown date (for the chosen buddy). */
function PageHeader({ date, buddy, canCreate }: { date: IsoDate; buddy: string; canCreate: boolean }) {
  const { t } = useTranslation();
  return (
    <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 8, flexWrap: 'wrap' }}>
      <Heading as="h1">{t('routes.servicesCalendar')}</Heading>
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
        <Button as={Link} to="/services" leadingVisual={ListUnorderedIcon}>
          {t('services.list')}
        </Button>
        {canCreate && (
          <Button as={Link} to={`/services/new?service_date=${date}${buddy ? `&buddy_id=${buddy}` : ''}`} variant="primary" leadingVisual={PlusIcon}>
            {newRecordTitle(t, 'services')}
          </Button>
        )}
      </div>
    </div>
  );
}

/** The colours of the services' statuses, above the wide views. */
function StatusLegend() {
  const { t } = useTranslation();
  return (
    <ul
      className="wide-only"
      aria-label={t('calendar.legend')}
      style={{ display: 'flex', flexWrap: 'wrap', gap: 12, listStyle: 'none', padding: 0, margin: '0 0 12px', fontSize: 12 }}
    >
      {Object.entries(SERVICE_STATUS_FLOW.colors).map(([status, color]) => (
        <li key={status} style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}>
          <span
            aria-hidden="true"
            style={{ width: 12, height: 12, borderRadius: 3, background: STATUS_STYLE[color].background, border: `2px solid ${STATUS_STYLE[color].border}` }}
          />
          {statusText(t, servicesEntity, 'status', status)}
        </li>
      ))}
    </ul>
  );
}

/** §2 /services/calendar: services by date and slot in month, week and day views, coloured by status. */
export default function ServicesCalendarPage() {
  const { t } = useTranslation();
  const state = useCalendarState();
  const access = useAccess(servicesEntity);
  const buddy = state.search.get('buddy') ?? '';
  const from = state.days[0]!;
  const to = state.days[state.days.length - 1]!;
  const services = trpc.services.calendar.useQuery({ from, to, filters: buddy && !access.ownerScoped ? { buddy_id: buddy } : {} });
  const slots = trpc.serviceSlots.options.useQuery({});
  const today = todayIso();
  const showBuddy = !access.ownerScoped;
  const byDay = new Map<IsoDate, EntityRecord[]>();
  for (const s of services.data?.results ?? []) byDay.set(String(s.service_date), [...(byDay.get(String(s.service_date)) ?? []), s]);
  const slotOrder = new Map((slots.data ?? []).map((s, i) => [s.id, i]));
  const sorted = (list: EntityRecord[]) =>
    [...list].sort((a, b) => (slotOrder.get(Number(a.service_slot_id)) ?? 99) - (slotOrder.get(Number(b.service_slot_id)) ?? 99) || a.id - b.id);

  return (
    <section>
      <PageHeader date={state.date} buddy={buddy} canCreate={access.canCreate} />
      <CalendarToolbar state={state}>
        {!access.ownerScoped && (
          <ReferencePicker
            reference={BUDDY_REFERENCE}
            value={buddy ? Number(buddy) : null}
            onChange={(v) => state.set({ buddy: v === null ? undefined : String(v) })}
            label={t('resources.services.fields.buddy_id')}
            emptyLabel={t('list.filterAll', { name: t('resources.services.fields.buddy_id') })}
            testId="calendar-buddy"
          />
        )}
        {services.isFetching && <Spinner size="small" srText={t('app.loading')} />}
      </CalendarToolbar>
      <StatusLegend />
      {services.error && <ErrorState error={services.error} onRetry={() => void services.refetch()} />}
      {services.data?.truncated && <Flash variant="warning">{t('calendar.truncated')}</Flash>}
      <DayAgenda
        empty={t('agenda.noServices')}
        items={inVisitOrder(byDay.get(state.date) ?? []).map((s) => ({
          key: s.id,
          time: [String(s.service_slot_id_label ?? ''), s.service_time ? String(s.service_time).slice(0, 5) : ''].filter(Boolean).join(' · '),
          content: <AgendaService service={s} showBuddy={showBuddy} />,
        }))}
      />
      {state.view === 'month' ? (
        <MonthView
          state={state}
          today={today}
          content={(day) => {
            const list = sorted(byDay.get(day) ?? []);
            return (
              <>
                {list.slice(0, MONTH_CELL_LIMIT).map((s) => (
                  <ServiceChip key={s.id} service={s} showBuddy={showBuddy} withSlot />
                ))}
                {list.length > MONTH_CELL_LIMIT && (
                  <Link to={dayViewHref(state, day)} style={{ fontSize: 12 }}>
                    {t('calendar.more', { count: list.length - MONTH_CELL_LIMIT })}
                  </Link>
                )}
              </>
            );
          }}
        />
      ) : (
        <SlotGrid
          state={state}
          today={today}
          slots={slots.data ?? []}
          slotHeading={t('resources.services.fields.service_slot_id')}
          cell={(day, slotId) =>
            sorted(byDay.get(day) ?? [])
              .filter((s) => Number(s.service_slot_id) === slotId)
              .map((s) => <ServiceChip key={s.id} service={s} showBuddy={showBuddy} detailed={state.view === 'day'} />)
          }
        />
      )}
    </section>
  );
}
