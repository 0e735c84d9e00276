import { Button, Heading, Label, Spinner, TextInput } from '@primer/react';
import { ChevronLeftIcon, ChevronRightIcon } from '@primer/octicons-react';
import { useMemo } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';
import { cellRefusal, type DispatchBoard, type DispatchBuddy, type DispatchCell, type DispatchService, type DispatchSlot } from '../../shared/schemas/dispatch.ts';
import { addDays, formatDate, isValidIsoDate, todayIso } from '../components/calendar-dates.ts';
import { ErrorState } from '../components/error-state.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { seededText } from '../entity/seeded-names.ts';
import { trpc } from '../trpc.ts';
import { Board, CardList, Cell, Column, Toolbar, Tray } from './dispatch-board-styles.ts';
import { useBoardMoves, type BoardMoves } from './dispatch-moves.ts';
import { MOVABLE, ServiceCard } from './dispatch-service-card.tsx';

/** The board's day from the URL (`/dispatch?date=2026-05-04`), today when absent or invalid. */
export function dispatchDateOf(search: URLSearchParams): string {
  const date = search.get('date') ?? '';
  return isValidIsoDate(date) ? date : todayIso();
}

/** What a slot of a buddy says about itself: working and how full, or why nothing can go there. */
function cellSummary(t: TFunction, slot: DispatchSlot, cell: DispatchCell, requested: number, buddy: DispatchBuddy): string {
  if (!slot.is_active) return t('dispatch.slotInactive');
  if (cell.away) return cell.note ? t('dispatch.notWorkingNote', { note: cell.note }) : t('dispatch.notWorking');
  if (!cell.scheduled) return t('dispatch.notScheduled');
  if (!cell.working) return cell.note ? t('dispatch.notWorkingNote', { note: cell.note }) : t('dispatch.notWorking');
  const parts = [t('dispatch.slotCapacity', { taken: cell.taken, max: slot.max, left: Math.max(0, slot.max - cell.taken) })];
  if (requested > 0) parts.push(t('dispatch.requestedCount', { count: requested }));
  // The buddy's day is taken up: an open slot then holds nothing more either (ADR 010), so it says so itself.
  if (buddy.day_limit !== null && buddy.day_taken >= buddy.day_limit) parts.push(t('dispatch.hint.day_full'));
  return parts.join(' · ');
}

function DispatchHeading({ busy }: { busy: boolean }) {
  const { t } = useTranslation();
  return (
    <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 8, flexWrap: 'wrap' }}>
      <Heading as="h1">{t('routes.dispatch')}</Heading>
      {busy && <Spinner size="small" srText={t('app.loading')} />}
    </div>
  );
}

/** The board's day: the previous and next days, a date, back to today. */
function DayToolbar({ date, onDate }: { date: string; onDate: (next: string) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Toolbar role="group" aria-label={t('dispatch.day')}>
      <Button leadingVisual={ChevronLeftIcon} onClick={() => onDate(addDays(date, -1))} data-testid="dispatch-previous">
        {t('dispatch.previousDay')}
      </Button>
      <TextInput type="date" aria-label={t('dispatch.day')} value={date} onChange={(e) => isValidIsoDate(e.target.value) && onDate(e.target.value)} data-testid="dispatch-date" />
      <Button trailingVisual={ChevronRightIcon} onClick={() => onDate(addDays(date, 1))} data-testid="dispatch-next">
        {t('dispatch.nextDay')}
      </Button>
      {date !== todayIso() && <Button onClick={() => onDate(todayIso())}>{t('dispatch.today')}</Button>}
      <span style={{ fontSize: 14, color: 'var(--fgColor-muted)' }} data-testid="dispatch-day-label">
        {formatDate(date, i18n.language, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })}
      </span>
    </Toolbar>
  );
}

/** The tray of requests waiting for a buddy's confirmed slot, and of open services whose buddy is gone. */
function RequestTray({ data, tray, onBoard, moves }: { data: DispatchBoard; tray: DispatchService[]; onBoard: Set<number>; moves: BoardMoves }) {
  const { t } = useTranslation();
  const { picked } = moves;
  const slotName = (id: number) => seededText(t, 'service-slots', data.slots.find((s) => s.id === id)?.name ?? '');
  return (
    <Tray aria-labelledby="dispatch-tray-title" data-testid="dispatch-tray" {...moves.trayProps}>
      <h2 id="dispatch-tray-title">{t('dispatch.trayTitle', { count: tray.length })}</h2>
      <p>{t('dispatch.trayHelp')}</p>
      {tray.length === 0 ? (
        <p data-testid="dispatch-tray-empty">{t('dispatch.trayEmpty')}</p>
      ) : (
        <CardList>
          {tray.map((service) => (
            <li key={service.id}>
              <ServiceCard
                {...moves.cardProps(service)}
                where={
                  onBoard.has(service.buddy_id)
                    ? t('dispatch.requestedWith', { place: t('dispatch.place', { buddy: service.buddy_label, slot: slotName(service.service_slot_id) }) })
                    : t('dispatch.buddyUnavailable', { buddy: service.buddy_label })
                }
              />
            </li>
          ))}
        </CardList>
      )}
      {picked && (
        <div style={{ marginTop: 8, display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }}>
          <Label variant="accent">{t('dispatch.pickedShort', { id: picked.id })}</Label>
          <label style={{ display: 'inline-flex', alignItems: 'center', gap: 6, fontSize: 13 }}>
            {t('dispatch.time')}
            <TextInput type="time" size="small" value={moves.time} onChange={(e) => moves.setTime(e.target.value)} data-testid="dispatch-time" />
          </label>
          {picked.status === SERVICE_STATUS.Booked && (
            <Button size="small" onClick={() => void moves.unassign(picked)} aria-label={t('dispatch.unassignLabel', { id: picked.id })} data-testid="dispatch-unassign">
              {t('dispatch.unassign')}
            </Button>
          )}
          <Button size="small" onClick={() => moves.setPicked(null)} data-testid="dispatch-cancel-pick">
            {t('dispatch.cancelPick')}
          </Button>
        </div>
      )}
    </Tray>
  );
}

/** A slot of a buddy: how full it is, its services, and where a picked card may be moved. */
function SlotCell({ data, buddy, slot, tray, moves }: { data: DispatchBoard; buddy: DispatchBuddy; slot: DispatchSlot; tray: DispatchService[]; moves: BoardMoves }) {
  const { t } = useTranslation();
  const { picked } = moves;
  const cell = buddy.cells.find((c) => c.slot_id === slot.id)!;
  const here = data.services.filter((s) => s.buddy_id === buddy.id && s.service_slot_id === slot.id);
  const shown = here.filter((s) => !tray.includes(s));
  const open = slot.is_active && !cell.away && cell.scheduled && cell.working;
  const refusal = picked ? cellRefusal(data, buddy, cell, picked) : null;
  const summary = cellSummary(t, slot, cell, here.length - shown.length, buddy);
  // A seeded slot's name in the page's language (ADR 078).
  const slotName = seededText(t, 'service-slots', slot.name);
  return (
    <Cell data-state={open ? 'open' : 'closed'} data-testid={`dispatch-cell-${buddy.id}-${slot.id}`} {...moves.targetProps(data, buddy, slot, cell)}>
      <div className="cell-head">
        <strong>
          {slotName} {slot.start_time}–{slot.end_time}
        </strong>
        <span data-testid="dispatch-cell-summary">{summary}</span>
      </div>
      {shown.length > 0 && (
        <ul>
          {shown.map((service) => (
            <li key={service.id}>
              <ServiceCard {...moves.cardProps(service)} />
            </li>
          ))}
        </ul>
      )}
      {picked &&
        !(picked.buddy_id === buddy.id && picked.service_slot_id === slot.id && picked.status !== SERVICE_STATUS.Requested && (moves.time || null) === picked.service_time) && (
          <Button
            size="small"
            block
            variant={refusal ? 'default' : 'primary'}
            onClick={() => void moves.drop(picked, { buddy, slot })}
            aria-label={
              refusal
                ? t('dispatch.moveToRefused', {
                    id: picked.id,
                    place: t('dispatch.place', { buddy: buddy.name, slot: slotName }),
                    refusal: t(`dispatch.hint.${refusal}`),
                    summary,
                  })
                : t('dispatch.moveTo', { id: picked.id, place: t('dispatch.place', { buddy: buddy.name, slot: slotName }), summary })
            }
            data-testid={`dispatch-move-here-${buddy.id}-${slot.id}`}
          >
            {refusal ? t(`dispatch.hint.${refusal}`) : t('dispatch.moveHere')}
          </Button>
        )}
    </Cell>
  );
}

/** A buddy's column: the day's capacity, then each slot. */
function BuddyColumn({ data, buddy, tray, moves }: { data: DispatchBoard; buddy: DispatchBuddy; tray: DispatchService[]; moves: BoardMoves }) {
  const { t } = useTranslation();
  return (
    <Column aria-labelledby={`dispatch-buddy-${buddy.id}`} data-testid={`dispatch-buddy-${buddy.id}`} data-unscheduled={buddy.day_limit === null}>
      <header>
        <h2 id={`dispatch-buddy-${buddy.id}`}>{buddy.name}</h2>
        <p className="email">{buddy.email}</p>
        <p data-testid="dispatch-day-capacity">
          {buddy.day_limit === null
            ? t(buddy.cells.some((c) => c.scheduled) ? 'dispatch.dayNotWorking' : 'dispatch.dayNotScheduled')
            : t('dispatch.dayCapacity', { taken: buddy.day_taken, limit: buddy.day_limit, left: Math.max(0, buddy.day_limit - buddy.day_taken) })}
        </p>
      </header>
      {data.slots.map((slot) => (
        <SlotCell key={slot.id} data={data} buddy={buddy} slot={slot} tray={tray} moves={moves} />
      ))}
    </Column>
  );
}

/**
 * /dispatch (Admin, ADR 022): a day of every active buddy — slots with the places left, the day's limit,
 * not-working slots — with the day's booked services, and a tray of requests to dispatch. A service moves
 * by drag and drop, or by keyboard (Enter on a card, then Enter on a slot's "Move here"); the API decides
 * (capacity, ADR 010) and the board shows its answer, then reloads: nothing is moved before the API agrees.
 */
export default function DispatchPage() {
  const { t } = useTranslation();
  const [search, setSearch] = useSearchParams();
  const date = dispatchDateOf(search);
  const board = trpc.dispatch.board.useQuery({ date });
  const moves = useBoardMoves(date);

  const setDate = (next: string) => {
    moves.setPicked(null);
    setSearch(next === todayIso() ? {} : { date: next });
  };

  const data = board.data;
  const onBoard = useMemo(() => new Set(data?.buddies.map((b) => b.id)), [data]);
  // The tray: requests waiting for a buddy's confirmed slot, and open services whose buddy is gone.
  const tray = useMemo(
    () => (data?.services ?? []).filter((s) => s.status === SERVICE_STATUS.Requested || (MOVABLE.includes(s.status) && !onBoard.has(s.buddy_id))),
    [data, onBoard],
  );
  // Buddies who work that day first; the others stay on the board (a drop there says why it cannot be).
  const buddies = useMemo(() => [...(data?.buddies ?? [])].sort((a, b) => Number(b.day_limit !== null) - Number(a.day_limit !== null)), [data]);

  const heading = <DispatchHeading busy={board.isFetching || moves.moving} />;
  const toolbar = <DayToolbar date={date} onDate={setDate} />;

  if (!data) {
    return (
      <section>
        {heading}
        {toolbar}
        {board.error ? <ErrorState error={board.error} onRetry={() => void board.refetch()} /> : <PageSpinner />}
      </section>
    );
  }

  return (
    <section data-testid="dispatch-board">
      {heading}
      {toolbar}
      <p className="visually-hidden" aria-live="polite" data-testid="dispatch-announcement">
        {moves.announcement}
      </p>

      <RequestTray data={data} tray={tray} onBoard={onBoard} moves={moves} />

      {buddies.length === 0 ? (
        <p>{t('dispatch.noBuddies')}</p>
      ) : (
        <Board>
          {buddies.map((buddy) => (
            <BuddyColumn key={buddy.id} data={data} buddy={buddy} tray={tray} moves={moves} />
          ))}
        </Board>
      )}
    </section>
  );
}
