import { Button, IconButton } from '@primer/react';
import { ChevronLeftIcon, ChevronRightIcon } from '@primer/octicons-react';
import { PHONE_MEDIA } from './breakpoints.ts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { seededText } from '../entity/seeded-names.ts';
import { Link, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import type { StatusColor } from '../../shared/entity/define.ts';
import { CALENDAR_VIEWS, addDays, addMonths, daysOf, formatDate, isValidIsoDate, todayIso, type CalendarView, type IsoDate } from './calendar-dates.ts';

export * from './calendar-dates.ts';

/** Colours of a status in calendar chips, matching the Primer label variants of lists (status-label.tsx). */
export const STATUS_STYLE: Record<StatusColor, { background: string; border: string; color: string }> = {
  attention: { background: 'var(--bgColor-attention-muted, #fff8c5)', border: 'var(--borderColor-attention-emphasis, #9a6700)', color: 'var(--fgColor-attention, #7d4e00)' },
  accent: { background: 'var(--bgColor-accent-muted, #ddf4ff)', border: 'var(--borderColor-accent-emphasis, #0969da)', color: 'var(--fgColor-accent, #0550ae)' },
  severe: { background: 'var(--bgColor-severe-muted, #fff1e5)', border: 'var(--borderColor-severe-emphasis, #bc4c00)', color: 'var(--fgColor-severe, #a40e26)' },
  success: { background: 'var(--bgColor-success-muted, #dafbe1)', border: 'var(--borderColor-success-emphasis, #1a7f37)', color: 'var(--fgColor-success, #1a7f37)' },
  danger: { background: 'var(--bgColor-danger-muted, #ffebe9)', border: 'var(--borderColor-danger-emphasis, #cf222e)', color: 'var(--fgColor-danger, #d1242f)' },
  done: { background: 'var(--bgColor-done-muted, #fbefff)', border: 'var(--borderColor-done-emphasis, #8250df)', color: 'var(--fgColor-done, #8250df)' },
  secondary: { background: 'var(--bgColor-neutral-muted, #afb8c133)', border: 'var(--borderColor-neutral-emphasis, #59636e)', color: 'var(--fgColor-muted, #59636e)' },
};

/** The calendar's place in the URL (`?view=week&date=2026-11-23`), so reloads and links keep it. */
export function useCalendarState() {
  const [search, setSearch] = useSearchParams();
  const rawView = search.get('view');
  const view: CalendarView = CALENDAR_VIEWS.includes(rawView as CalendarView) ? (rawView as CalendarView) : 'week';
  const rawDate = search.get('date') ?? '';
  const date = isValidIsoDate(rawDate) ? rawDate : todayIso();
  const set = (changes: Record<string, string | undefined>) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      return next;
    });
  const step = (direction: 1 | -1) => set({ date: view === 'month' ? addMonths(date, direction) : addDays(date, direction * (view === 'week' ? 7 : 1)) });
  // The phone's day agenda steps a day at a time inside whatever period the view loads.
  const stepDay = (direction: 1 | -1) => set({ date: addDays(date, direction) });
  return { view, date, search, set, step, stepDay, days: daysOf(view, date) };
}

const Bar = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 8px;
  margin: 16px 0;
`;

/** Today / previous / next, the period shown, the view switch and any filters. */
export function CalendarToolbar({ state, children }: { state: ReturnType<typeof useCalendarState>; children?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const { view, date, days } = state;
  const label =
    view === 'month'
      ? formatDate(date, i18n.language, { month: 'long', year: 'numeric' })
      : view === 'week'
        ? `${formatDate(days[0]!, i18n.language, { day: 'numeric', month: 'short' })} – ${formatDate(days[6]!, i18n.language, { day: 'numeric', month: 'short', year: 'numeric' })}`
        : formatDate(date, i18n.language, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
  return (
    <Bar>
      <Button onClick={() => state.set({ date: todayIso() })} data-testid="calendar-today">
        {t('calendar.today')}
      </Button>
      <IconButton className="wide-only" icon={ChevronLeftIcon} aria-label={t('calendar.previous')} onClick={() => state.step(-1)} data-testid="calendar-previous" />
      <IconButton className="wide-only" icon={ChevronRightIcon} aria-label={t('calendar.next')} onClick={() => state.step(1)} data-testid="calendar-next" />
      <strong className="wide-only" style={{ fontSize: 16, minWidth: 180 }} aria-live="polite" data-testid="calendar-period">
        {label}
      </strong>
      {/* A phone shows one day (ADR 021): its own previous/next day and the day's name. */}
      <IconButton className="phone-only" icon={ChevronLeftIcon} aria-label={t('agenda.previousDay')} onClick={() => state.stepDay(-1)} data-testid="agenda-previous" />
      <strong className="phone-only" style={{ fontSize: 16, flex: '1 1 0', minWidth: 0, textAlign: 'center' }} aria-live="polite" data-testid="agenda-day">
        {formatDate(date, i18n.language, { weekday: 'long', day: 'numeric', month: 'long' })}
      </strong>
      <IconButton className="phone-only" icon={ChevronRightIcon} aria-label={t('agenda.nextDay')} onClick={() => state.stepDay(1)} data-testid="agenda-next" />
      <div className="wide-only" role="group" aria-label={t('calendar.view')} style={{ display: 'inline-flex', gap: 4 }}>
        {CALENDAR_VIEWS.map((v) => (
          <Button key={v} aria-pressed={v === view} variant={v === view ? 'primary' : 'default'} onClick={() => state.set({ view: v })} data-testid={`calendar-view-${v}`}>
            {t(`calendar.${v}`)}
          </Button>
        ))}
      </div>
      <Filters>{children}</Filters>
    </Bar>
  );
}

const Filters = styled.div`
  display: flex;
  gap: 8px;
  flex-wrap: wrap;
  align-items: center;
  margin-left: auto;
  ${PHONE_MEDIA} {
    flex: 1 1 100%;
    min-width: 0;
    margin-left: 0;
    /* A picker as wide as its longest option (a buddy's name and e-mail) shrinks to the screen. */
    > * {
      flex: 1 1 100%;
      min-width: 0;
      max-width: 100%;
    }
    select {
      width: 100%;
    }
    &:empty {
      display: none;
    }
  }
`;

const AgendaList = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: 8px;
  > li {
    display: grid;
    gap: 6px;
    padding: 10px 12px;
    border: 1px solid var(--borderColor-default, #d0d7de);
    border-radius: 8px;
    min-width: 0;
  }
  [data-agenda-time] {
    font-size: 13px;
    font-weight: 600;
    color: var(--fgColor-muted, #59636e);
  }
`;

export interface AgendaItem {
  key: string | number;
  /** When, as the entry is read: a slot and its hours, a time. */
  time: string;
  content: ReactNode;
}

/**
 * A calendar on a phone (ADR 021): the one day of the URL's date, its entries in time order, each with
 * its time above it. Rendered beside the grid and shown instead of it below 768 px (CSS), so the
 * server's HTML is right for either width and the same data serves both.
 */
export function DayAgenda({ items, empty }: { items: readonly AgendaItem[]; empty: string }) {
  return (
    <section className="phone-only" data-testid="calendar-agenda">
      {items.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted, #59636e)', padding: '16px 0' }} data-testid="agenda-empty">
          {empty}
        </p>
      ) : (
        <AgendaList>
          {items.map((item) => (
            <li key={item.key} data-testid="agenda-item">
              <span data-agenda-time="">{item.time}</span>
              <div style={{ display: 'grid', gap: 4, minWidth: 0 }}>{item.content}</div>
            </li>
          ))}
        </AgendaList>
      )}
    </section>
  );
}

export const MonthGrid = styled.div`
  display: grid;
  grid-template-columns: repeat(7, minmax(0, 1fr));
  border-top: 1px solid var(--borderColor-muted, #d8dee4);
  border-left: 1px solid var(--borderColor-muted, #d8dee4);
  > div {
    min-height: 104px;
    min-width: 0;
    padding: 4px;
    border-right: 1px solid var(--borderColor-muted, #d8dee4);
    border-bottom: 1px solid var(--borderColor-muted, #d8dee4);
    display: flex;
    flex-direction: column;
    gap: 3px;
  }
  > div[data-outside='true'] {
    background: var(--bgColor-muted, #f6f8fa);
    color: var(--fgColor-muted, #59636e);
  }
  > div[data-today='true'] {
    box-shadow: inset 0 0 0 2px var(--borderColor-accent-emphasis, #0969da);
  }
`;

export const WeekdayHeader = styled.div`
  display: grid;
  grid-template-columns: repeat(7, minmax(0, 1fr));
  font-size: 12px;
  font-weight: 600;
  color: var(--fgColor-muted, #59636e);
  > div {
    padding: 4px;
  }
`;

/** Rows are service slots, columns days (week) or the one day. */
export const SlotTable = styled.table`
  width: 100%;
  border-collapse: collapse;
  table-layout: fixed;
  font-size: 13px;
  th,
  td {
    border: 1px solid var(--borderColor-muted, #d8dee4);
    padding: 4px;
    vertical-align: top;
    text-align: left;
  }
  thead th {
    background: var(--bgColor-muted, #f6f8fa);
    font-weight: 600;
  }
  tbody th {
    width: 120px;
    background: var(--bgColor-muted, #f6f8fa);
    font-weight: 600;
  }
  td[data-today='true'],
  th[data-today='true'] {
    background: var(--bgColor-accent-muted, #ddf4ff);
  }
  td > div {
    display: flex;
    flex-direction: column;
    gap: 3px;
    min-height: 48px;
  }
`;

export const Chip = styled.span<{ $background: string; $border: string; $color: string; $wrap?: boolean }>`
  display: block;
  border-left: 3px solid ${(p) => p.$border};
  background: ${(p) => p.$background};
  color: ${(p) => p.$color};
  border-radius: 4px;
  padding: 2px 6px;
  font-size: 12px;
  line-height: 1.35;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: ${(p) => (p.$wrap ? 'normal' : 'nowrap')};
  overflow-wrap: anywhere;
  a {
    color: inherit;
    text-decoration: none;
  }
  a:hover,
  a:focus-visible {
    text-decoration: underline;
  }
`;

export function weekdayNames(lang: string): string[] {
  return daysOf('week', '2026-01-05').map((d) => formatDate(d, lang, { weekday: 'short' }));
}

/**
 * The week and day views: a row per service slot, a column per day, `cell` filling each. Cells carry
 * `data-date` and `data-slot` for the pages' tests and clicks.
 */
type CalendarState = ReturnType<typeof useCalendarState>;

/** The address of a day's view, keeping the rest of the calendar's parameters (the buddy). */
export const dayViewHref = (state: CalendarState, day: IsoDate) => `?${new URLSearchParams({ ...Object.fromEntries(state.search), view: 'day', date: day })}`;

/** The month view: weekday names over the grid of days, each with its number (opening the day) and `content`. */
export function MonthView({ state, today, content }: { state: CalendarState; today: string; content: (day: IsoDate) => ReactNode }) {
  const { i18n } = useTranslation();
  const month = state.date.slice(0, 7);
  return (
    <div className="wide-only" data-testid="calendar-month">
      <WeekdayHeader aria-hidden="true">
        {weekdayNames(i18n.language).map((name) => (
          <div key={name}>{name}</div>
        ))}
      </WeekdayHeader>
      <MonthGrid>
        {state.days.map((day) => (
          <div
            key={day}
            data-outside={day.slice(0, 7) !== month}
            data-today={day === today}
            data-date={day}
            role="group"
            aria-label={formatDate(day, i18n.language, { weekday: 'long', day: 'numeric', month: 'long' })}
          >
            <Link to={dayViewHref(state, day)} style={{ fontSize: 12, fontWeight: 600, color: 'inherit' }}>
              {Number(day.slice(8))}
            </Link>
            {content(day)}
          </div>
        ))}
      </MonthGrid>
    </div>
  );
}

export function SlotGrid({
  state,
  today,
  slots,
  slotHeading,
  cell,
}: {
  state: ReturnType<typeof useCalendarState>;
  today: string;
  slots: readonly { id: number; label: string }[];
  slotHeading: string;
  cell: (day: IsoDate, slotId: number) => ReactNode;
}) {
  const { t, i18n } = useTranslation();
  return (
    <div className="wide-only" style={{ overflowX: 'auto' }}>
      <SlotTable data-testid={`calendar-${state.view}`} style={{ minWidth: state.view === 'week' ? 760 : undefined }}>
        <thead>
          <tr>
            <th scope="col">{slotHeading}</th>
            {state.days.map((day) => (
              <th key={day} scope="col" data-today={day === today}>
                {formatDate(day, i18n.language, state.view === 'day' ? { weekday: 'long', day: 'numeric', month: 'long' } : { weekday: 'short', day: 'numeric', month: 'short' })}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {slots.map((slot) => (
            <tr key={slot.id}>
              <th scope="row">{seededText(t, 'service-slots', slot.label)}</th>
              {state.days.map((day) => (
                <td key={day} data-today={day === today} data-date={day} data-slot={slot.id}>
                  <div>{cell(day, slot.id)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </SlotTable>
    </div>
  );
}
