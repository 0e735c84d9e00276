import { Button, Heading, Label, Spinner, TextInput } from '@primer/react';
import { ArrowUpRightIcon, ChevronLeftIcon, ChevronRightIcon } from '@primer/octicons-react';
import { useEffect, useMemo, useState, type DragEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { timeOutsideSlot } from '../../shared/capacity.ts';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import { cellRefusal, type DispatchBoard, type DispatchBuddy, type DispatchCell, type DispatchService, type DispatchSlot } from '../../shared/schemas/dispatch.ts';
import { addDays, formatDate, isValidIsoDate, todayIso } from '../components/calendar-dates.ts';
import { STATUS_STYLE } from '../components/calendar.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { PageSpinner } from '../components/page-spinner.tsx';
import { statusText } from '../entity/status-label.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

/** The board's day from the URL (`/dispatch?date=2026-05-04`), today when absent or invalid. */
export function dispatchDateOf(search: URLSearchParams): string {
  const date = search.get('date') ?? '';
  return isValidIsoDate(date) ? date : todayIso();
}

const Toolbar = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: 8px;
  align-items: center;
  margin: 12px 0 16px;
`;

const Tray = styled.section`
  border: 1px dashed var(--borderColor-attention-emphasis, #9a6700);
  background: var(--bgColor-attention-muted, #fff8c5);
  border-radius: 8px;
  padding: 12px;
  margin-bottom: 20px;
  &[data-over='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
  }
  h2 {
    font-size: 16px;
    margin: 0 0 4px;
  }
  > p {
    margin: 0 0 8px;
    font-size: 13px;
  }
`;

const CardList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 240px), 1fr));
  gap: 8px;
`;

/** Buddies side by side where there is room, one under the other on a phone: never a sideways page. */
const Board = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(min(100%, 250px), 1fr));
  gap: 12px;
  align-items: start;
`;

const Column = styled.section`
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-radius: 8px;
  background: var(--bgColor-default, #fff);
  min-width: 0;
  header {
    padding: 8px 10px;
    border-bottom: 1px solid var(--borderColor-muted, #d8dee4);
  }
  h2 {
    font-size: 15px;
    margin: 0;
    overflow-wrap: anywhere;
  }
  header p {
    margin: 2px 0 0;
    font-size: 12px;
    color: var(--fgColor-muted, #59636e);
    overflow-wrap: anywhere;
  }
  header .email {
    margin: 0;
  }
  /* Set apart by a dashed border and a muted background, not by fading: faded text loses its contrast. */
  &[data-unscheduled='true'] {
    border-style: dashed;
    background: var(--bgColor-muted, #f6f8fa);
  }
`;

const Cell = styled.div`
  padding: 8px 10px;
  border-top: 1px solid var(--borderColor-muted, #d8dee4);
  &:first-of-type {
    border-top: 0;
  }
  &[data-state='open'] {
    min-height: 56px;
  }
  &[data-state='closed'] {
    background: repeating-linear-gradient(135deg, transparent 0 6px, var(--bgColor-neutral-muted, #afb8c133) 6px 12px);
  }
  &[data-over='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: -2px;
    background: var(--bgColor-accent-muted, #ddf4ff);
  }
  &[data-over='true'][data-refusal] {
    outline-color: var(--borderColor-danger-emphasis, #cf222e);
    background: var(--bgColor-danger-muted, #ffebe9);
  }
  .cell-head {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 4px 8px;
    font-size: 12px;
  }
  .cell-head + * {
    margin-top: 6px;
  }
  .cell-head strong {
    font-size: 13px;
  }
  ul {
    list-style: none;
    margin: 0;
    padding: 0;
    display: grid;
    gap: 6px;
  }
`;

const Card = styled.div`
  display: flex;
  align-items: stretch;
  border-radius: 6px;
  border-left: 4px solid var(--card-border);
  background: var(--card-background);
  color: var(--fgColor-default, #1f2328);
  font-size: 13px;
  min-width: 0;
  &[draggable='true'] {
    cursor: grab;
  }
  &[data-picked='true'] {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 1px;
  }
  .pick {
    all: unset;
    flex: 1;
    min-width: 0;
    padding: 6px 8px;
    overflow-wrap: anywhere;
    cursor: inherit;
  }
  .pick:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
  }
  .pick span {
    display: block;
  }
  .meta {
    color: var(--fgColor-muted, #59636e);
    font-size: 12px;
  }
  a {
    display: flex;
    align-items: center;
    padding: 0 8px;
    color: var(--fgColor-muted, #59636e);
  }
`;

const MOVABLE: readonly number[] = [SERVICE_STATUS.Requested, SERVICE_STATUS.Booked];

interface Target {
  buddy: DispatchBuddy;
  slot: DispatchSlot;
}

/** A service on the board: picked up by a click, Enter or Space (then dropped on a slot), or dragged. */
function ServiceCard({
  service,
  picked,
  anyPicked,
  onPick,
  onDragStart,
  onDragEnd,
  where,
}: {
  service: DispatchService;
  picked: boolean;
  anyPicked: boolean;
  onPick: () => void;
  onDragStart: (event: DragEvent) => void;
  onDragEnd: () => void;
  /** Where a card in the tray is now (buddy and slot). */
  where?: string;
}) {
  const { t } = useTranslation();
  const style = STATUS_STYLE[SERVICE_STATUS_FLOW.colors[service.status] ?? 'secondary'];
  const status = statusText(t, servicesEntity, 'status', service.status);
  const movable = MOVABLE.includes(service.status);
  const details = [service.service_time, service.service_type_label, service.address].filter(Boolean).join(' · ');
  // The card's name is what it shows (its status and, on a button, what a press does said to screen readers only).
  const body = (
    <>
      <span>
        <strong>#{service.id}</strong> {service.bicycle_label}
      </span>
      {details && <span className="meta">{details}</span>}
      {where && <span className="meta">{where}</span>}
      {service.notes && <span className="meta">“{service.notes}”</span>}
      <span className="visually-hidden">
        {status}
        {movable ? `. ${t('dispatch.pick')}` : ''}
      </span>
    </>
  );
  return (
    <Card
      style={{ ['--card-border' as string]: style.border, ['--card-background' as string]: style.background }}
      draggable={movable}
      onDragStart={movable ? onDragStart : undefined}
      onDragEnd={onDragEnd}
      data-picked={picked}
      data-testid={`dispatch-service-${service.id}`}
      data-status={service.status}
      title={status}
    >
      {movable ? (
        <button
          type="button"
          className="pick"
          aria-pressed={picked}
          // While a card is picked, the slots are the next stops of the Tab key, not the other cards.
          tabIndex={anyPicked && !picked ? -1 : 0}
          onClick={onPick}
        >
          {body}
        </button>
      ) : (
        <div className="pick">{body}</div>
      )}
      <Link to={`/services/${service.id}`} tabIndex={anyPicked ? -1 : undefined} aria-label={t('dispatch.open', { id: service.id })} title={t('dispatch.open', { id: service.id })}>
        <ArrowUpRightIcon size={14} />
      </Link>
    </Card>
  );
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

/** The card picked by click, tap or keyboard, and what the board announces to a screen reader. */
function usePickedCard() {
  const { t } = useTranslation();
  const [picked, setPicked] = useState<DispatchService | null>(null);
  const [announcement, setAnnouncement] = useState('');

  // A card stays picked until it is dropped, Escape is pressed or the day changes.
  useEffect(() => {
    if (!picked) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setPicked(null);
      setAnnouncement(t('dispatch.canceled'));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [picked, t]);

  const pick = (service: DispatchService) => {
    if (picked?.id === service.id) {
      setPicked(null);
      setAnnouncement(t('dispatch.canceled'));
      return;
    }
    setPicked(service);
    setAnnouncement(t('dispatch.picked', { id: service.id }));
  };

  return { picked, setPicked, announcement, setAnnouncement, pick };
}

/** The board's pick, drag and drop: what the cards and the slots of a buddy need to move a service. */
function useBoardMoves(date: string) {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = trpc.useUtils();
  const move = trpc.dispatch.move.useMutation();
  const transition = trpc.services.transition.useMutation();
  // A card picked by click, tap or keyboard (the slots then offer "Move here"), or being dragged (the
  // slots only light up: nothing may move under the pointer during a drag).
  const { picked, setPicked, announcement, setAnnouncement, pick } = usePickedCard();
  const [dragged, setDragged] = useState<DispatchService | null>(null);
  const [over, setOver] = useState<string | null>(null);
  // The time agreed with the customer, set or changed while placing the picked card ("" keeps none).
  const [time, setTime] = useState('');
  useEffect(() => setTime(picked?.service_time ?? ''), [picked]);

  /** The API's answer to a step, in a toast and the live region; the board then reloads whatever it was. */
  const report = async (step: () => Promise<unknown>, success: string) => {
    try {
      await step();
      toast.success(success);
      setAnnouncement(success);
    } catch (error) {
      // The API's own reason (slot full, day full, not working, not scheduled, changed meanwhile).
      const message = errorText(t, error);
      toast.error(message);
      setAnnouncement(message);
    } finally {
      // The board shows what the API holds now, never a guess.
      await utils.dispatch.board.invalidate({ date });
    }
  };

  /** A booked service back to the requests (ADR 044): the status flow's Booked → Requested, an Admin's step. */
  const unassign = async (service: DispatchService) => {
    setOver(null);
    setPicked(null);
    await report(() => transition.mutateAsync({ id: service.id, version: service.version, to: SERVICE_STATUS.Requested }), t('dispatch.unassigned', { id: service.id }));
  };

  const drop = async (service: DispatchService, target: Target) => {
    setOver(null);
    setPicked(null);
    const place = t('dispatch.place', { buddy: target.buddy.name, slot: target.slot.name });
    const book = service.status === SERVICE_STATUS.Requested;
    // A picked card carries the time typed beside it; a dragged one keeps its own.
    let serviceTime = picked?.id === service.id ? time || null : service.service_time;
    const retimed = serviceTime !== service.service_time;
    if (!book && !retimed && service.buddy_id === target.buddy.id && service.service_slot_id === target.slot.id) return;
    // A time outside the target slot is not sent as it is (issue 33, ADR 066; the API refuses it too): the
    // board asks to place the service at the slot's start instead, or leaves it where it is.
    if (timeOutsideSlot(serviceTime, target.slot)) {
      const start = target.slot.start_time.slice(0, 5);
      const hours = { time: serviceTime, slot: target.slot.name, start, end: target.slot.end_time.slice(0, 5), id: service.id };
      const retime = await confirm({
        title: t('dispatch.outsideSlotTitle'),
        message: t('dispatch.outsideSlot', hours),
        yes: t('dispatch.placeAtStart', { start }),
        no: t('dispatch.keepWhereItIs'),
      });
      if (!retime) {
        setAnnouncement(t('dispatch.notMoved', { id: service.id }));
        return;
      }
      serviceTime = start;
    }
    const at = serviceTime ? t('dispatch.placeAt', { place, time: serviceTime }) : place;
    await report(
      () => move.mutateAsync({ id: service.id, version: service.version, buddy_id: target.buddy.id, service_slot_id: target.slot.id, book, service_time: serviceTime }),
      t(book ? 'dispatch.booked' : 'dispatch.moved', { id: service.id, place: at }),
    );
  };

  const startDrag = (service: DispatchService) => (event: DragEvent) => {
    event.dataTransfer.setData('text/plain', String(service.id));
    event.dataTransfer.effectAllowed = 'move';
    setDragged(service);
  };
  const endDrag = () => {
    setOver(null);
    setDragged(null);
  };

  /** The props of a card on the board: picked or not, and how it is picked up or dragged. */
  const cardProps = (service: DispatchService) => ({
    service,
    picked: picked?.id === service.id,
    anyPicked: picked !== null,
    onPick: () => pick(service),
    onDragStart: startDrag(service),
    onDragEnd: endDrag,
  });

  /** The props of a buddy's slot as a drop target: lit up under a dragged card, and why it refuses it. */
  const targetProps = (data: DispatchBoard, buddy: DispatchBuddy, slot: DispatchSlot, cell: DispatchCell) => {
    const key = `${buddy.id}:${slot.id}`;
    const refusal = dragged ? cellRefusal(data, buddy, cell, dragged) : null;
    return {
      'data-over': over === key,
      'data-refusal': over === key && refusal ? refusal : undefined,
      onDragOver: (event: DragEvent) => {
        if (!dragged) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'move';
        if (over !== key) setOver(key);
      },
      onDragLeave: () => setOver((current) => (current === key ? null : current)),
      onDrop: (event: DragEvent) => {
        event.preventDefault();
        const service = dragged;
        setDragged(null);
        if (service) void drop(service, { buddy, slot });
      },
    };
  };

  /** The tray as a drop target: a booked card dragged there is unassigned. */
  const trayProps = {
    'data-over': over === 'tray',
    onDragOver: (event: DragEvent) => {
      if (dragged?.status !== SERVICE_STATUS.Booked) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (over !== 'tray') setOver('tray');
    },
    onDragLeave: () => setOver((current) => (current === 'tray' ? null : current)),
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      const service = dragged;
      setDragged(null);
      if (service?.status === SERVICE_STATUS.Booked) void unassign(service);
    },
  };

  return { picked, setPicked, announcement, moving: move.isPending || transition.isPending, drop, unassign, time, setTime, cardProps, targetProps, trayProps };
}

type BoardMoves = ReturnType<typeof useBoardMoves>;

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
  const slotName = (id: number) => data.slots.find((s) => s.id === id)?.name ?? '';
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
  return (
    <Cell data-state={open ? 'open' : 'closed'} data-testid={`dispatch-cell-${buddy.id}-${slot.id}`} {...moves.targetProps(data, buddy, slot, cell)}>
      <div className="cell-head">
        <strong>
          {slot.name} {slot.start_time}–{slot.end_time}
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
                    place: t('dispatch.place', { buddy: buddy.name, slot: slot.name }),
                    refusal: t(`dispatch.hint.${refusal}`),
                    summary,
                  })
                : t('dispatch.moveTo', { id: picked.id, place: t('dispatch.place', { buddy: buddy.name, slot: slot.name }), summary })
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
