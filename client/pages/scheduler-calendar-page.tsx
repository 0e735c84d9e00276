import { Button, Heading, Spinner } from '@primer/react';
import { ListUnorderedIcon } from '@primer/octicons-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { buddyWorkSlotsEntity } from '../../shared/entities/buddy-work-slots.ts';
import { CAPACITY_STATUSES, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { CalendarToolbar, Chip, DayAgenda, MonthView, STATUS_STYLE, SlotGrid, todayIso, useCalendarState, type IsoDate } from '../components/calendar.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { useAccess } from '../entity/access.ts';
import { statusText } from '../entity/status-label.tsx';
import { trpc } from '../trpc.ts';
import { ReferencePicker } from '../entity/reference-choices.tsx';
import { BUDDY_REFERENCE } from '../../shared/entities/people.ts';

// Work slots read as the background of a cell; services keep their status colours.
const WORKING = { background: 'var(--bgColor-muted, #f6f8fa)', border: 'var(--borderColor-success-emphasis, #1a7f37)', color: 'var(--fgColor-default, #1f2328)' };
const OFF = STATUS_STYLE.secondary;
const AWAY = STATUS_STYLE.danger;

const keyOf = (date: unknown, slot: unknown) => `${String(date)}|${String(slot)}`;

function group(records: EntityRecord[] | undefined, slotField = 'service_slot_id') {
  const map = new Map<string, EntityRecord[]>();
  for (const r of records ?? []) map.set(keyOf(r.service_date, r[slotField]), [...(map.get(keyOf(r.service_date, r[slotField])) ?? []), r]);
  return map;
}

type Grouped = Map<string, EntityRecord[]>;

const booked = (list: EntityRecord[]) => list.filter((s) => CAPACITY_STATUSES.includes(Number(s.status))).length;

/** The shown buddy (their own for a Buddy; else the URL's, or the first) and their work slots, absences and services in the shown period. */
function useBuddySchedule(state: ReturnType<typeof useCalendarState>) {
  const access = useAccess(buddyWorkSlotsEntity);
  // Without a buddy in the URL the calendar shows the first one.
  const inUrl = state.search.get('buddy');
  const buddies = trpc.users.options.useQuery({ role: 'Buddy' }, { enabled: !access.ownerScoped && !inUrl });
  const chosen = access.ownerScoped ? access.userId : Number(inUrl ?? buddies.data?.[0]?.id ?? 0) || null;
  const from = state.days[0]!;
  const to = state.days[state.days.length - 1]!;
  const enabled = chosen !== null;
  const work = trpc.buddyWorkSlots.calendar.useQuery({ from, to, filters: { buddy_id: String(chosen) } }, { enabled });
  const away = trpc.notWorkingSlots.calendar.useQuery({ from, to, filters: { user_id: String(chosen) } }, { enabled });
  const services = trpc.services.calendar.useQuery({ from, to, filters: { buddy_id: String(chosen) } }, { enabled });
  return {
    ownerScoped: access.ownerScoped,
    chosen,
    workAt: group(work.data?.results),
    awayAt: group(away.data?.results),
    servicesAt: group(services.data?.results),
    error: work.error ?? away.error ?? services.error,
    fetching: work.isFetching || services.isFetching,
  };
}

function ServiceChip({ service: s }: { service: EntityRecord }) {
  const { t } = useTranslation();
  const style = STATUS_STYLE[SERVICE_STATUS_FLOW.colors[Number(s.status)] ?? 'secondary'];
  const status = statusText(t, servicesEntity, 'status', s.status);
  return (
    <Chip
      $background={style.background}
      $border={style.border}
      $color={style.color}
      $wrap
      title={`${status}: ${String(s.bicycle_id_label ?? '')}`}
      data-testid="calendar-service"
      data-status={String(s.status)}
    >
      <Link to={`/services/${s.id}`}>
        <span className="visually-hidden">{status}: </span>
        {String(s.bicycle_id_label ?? s.id)}
      </Link>
    </Chip>
  );
}

/** One slot of one day in the week and day views and the phone's agenda: the shift, absences, services and, when free, a link to book it. */
function SlotCell({ shifts, absences, services, bookHref }: { shifts: EntityRecord[]; absences: EntityRecord[]; services: EntityRecord[]; bookHref: string | null }) {
  const { t } = useTranslation();
  const free = shifts.some((w) => w.is_working_day) && absences.length === 0;
  return (
    <>
      {shifts.map((w) => {
        const style = w.is_working_day ? WORKING : OFF;
        const text = w.is_working_day ? t('scheduler.working', { booked: booked(services), max: Number(w.max_services_per_day) }) : t('scheduler.dayOff');
        return (
          <Chip
            key={`w${w.id}`}
            $background={style.background}
            $border={style.border}
            $color={style.color}
            $wrap
            title={[text, w.notes].filter(Boolean).join(' · ')}
            data-testid="calendar-work-slot"
          >
            {text}
          </Chip>
        );
      })}
      {absences.map((a) => (
        <Chip key={`a${a.id}`} $background={AWAY.background} $border={AWAY.border} $color={AWAY.color} $wrap title={String(a.notes ?? '')} data-testid="calendar-not-working">
          {t('scheduler.notWorking')}
          {a.notes ? `: ${String(a.notes)}` : ''}
        </Chip>
      ))}
      {services.map((s) => (
        <ServiceChip key={`s${s.id}`} service={s} />
      ))}
      {bookHref && free && (
        <Link to={bookHref} style={{ fontSize: 12 }} data-testid="calendar-book">
          + {t('scheduler.book')}
        </Link>
      )}
    </>
  );
}

/** A day of the month view: a chip a slot with a shift or an absence, saying how many are booked. */
function MonthDaySlots({
  day,
  slots,
  workAt,
  awayAt,
  servicesAt,
}: {
  day: IsoDate;
  slots: readonly { id: number; label: string }[];
  workAt: Grouped;
  awayAt: Grouped;
  servicesAt: Grouped;
}) {
  const { t } = useTranslation();
  return slots.map((slot) => {
    const shifts = workAt.get(keyOf(day, slot.id)) ?? [];
    const absent = (awayAt.get(keyOf(day, slot.id)) ?? []).length > 0;
    if (shifts.length === 0 && !absent) return null;
    const working = shifts.some((w) => w.is_working_day) && !absent;
    const style = absent ? AWAY : working ? WORKING : OFF;
    const count = booked(servicesAt.get(keyOf(day, slot.id)) ?? []);
    return (
      <Chip key={slot.id} $background={style.background} $border={style.border} $color={style.color} title={slot.label}>
        {slot.label.split(' ')[0]} · {absent ? t('scheduler.notWorking') : working ? t('scheduler.bookedCount', { count }) : t('scheduler.dayOff')}
      </Chip>
    );
  });
}

/**
 * §2 /bike-buddy-scheduler/calendar: one buddy's work slots and not-working slots by day and slot, with
 * the services booked in them. A Buddy sees their own; an Admin chooses the buddy and can book a free slot.
 */
export default function SchedulerCalendarPage() {
  const { t } = useTranslation();
  const state = useCalendarState();
  const mayBook = useAccess(servicesEntity).canCreate;
  const { ownerScoped, chosen, workAt, awayAt, servicesAt, error, fetching } = useBuddySchedule(state);
  const slots = trpc.serviceSlots.options.useQuery({});
  const today = todayIso();

  const cell = (day: IsoDate, slotId: number) => (
    <SlotCell
      shifts={workAt.get(keyOf(day, slotId)) ?? []}
      absences={awayAt.get(keyOf(day, slotId)) ?? []}
      services={servicesAt.get(keyOf(day, slotId)) ?? []}
      bookHref={mayBook && chosen !== null ? `/services/new?service_date=${day}&service_slot_id=${slotId}&buddy_id=${chosen}` : null}
    />
  );

  return (
    <section>
      <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 8, flexWrap: 'wrap' }}>
        <Heading as="h1">{t('routes.schedulerCalendar')}</Heading>
        <Button as={Link} to="/bike-buddy-scheduler" leadingVisual={ListUnorderedIcon}>
          {t('routes.scheduler')}
        </Button>
      </div>
      <CalendarToolbar state={state}>
        {!ownerScoped && (
          <ReferencePicker
            reference={BUDDY_REFERENCE}
            value={chosen}
            onChange={(v) => state.set({ buddy: v === null ? undefined : String(v) })}
            label={t('resources.buddy-work-slots.fields.buddy_id')}
            testId="calendar-buddy"
          />
        )}
        {fetching && <Spinner size="small" srText={t('app.loading')} />}
      </CalendarToolbar>
      {error && <ErrorState error={error} />}
      <DayAgenda
        empty={t('agenda.nothingScheduled')}
        items={(slots.data ?? [])
          .filter((slot) => [workAt, awayAt, servicesAt].some((at) => (at.get(keyOf(state.date, slot.id)) ?? []).length > 0))
          .map((slot) => ({ key: slot.id, time: slot.label, content: cell(state.date, slot.id) }))}
      />
      {state.view === 'month' ? (
        <MonthView state={state} today={today} content={(day) => <MonthDaySlots day={day} slots={slots.data ?? []} workAt={workAt} awayAt={awayAt} servicesAt={servicesAt} />} />
      ) : (
        <SlotGrid state={state} today={today} slots={slots.data ?? []} slotHeading={t('resources.buddy-work-slots.fields.service_slot_id')} cell={cell} />
      )}
    </section>
  );
}
