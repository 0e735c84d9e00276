import { useEffect, useState, type DragEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { timeOutsideSlot } from '../../shared/capacity.ts';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';
import { cellRefusal, type DispatchBoard, type DispatchBuddy, type DispatchCell, type DispatchService, type DispatchSlot } from '../../shared/schemas/dispatch.ts';
import { seededText } from '../entity/seeded-names.ts';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

/** Where a service is dropped: a buddy's slot. */
export interface Target {
  buddy: DispatchBuddy;
  slot: DispatchSlot;
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

/**
 * The API's answer to a step, in a toast and the live region; the board then reloads whatever it was. The toast's
 * text is a function of `t`, written when drawn, so it follows a language switch (ADR 078).
 */
function useMoveReport(date: string, setAnnouncement: (text: string) => void) {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  return async (step: () => Promise<unknown>, success: (t: TFunction) => string) => {
    try {
      await step();
      toast.success(success);
      setAnnouncement(success(t));
    } catch (error) {
      // The API's own reason (slot full, day full, not working, not scheduled, changed meanwhile).
      toast.error((t) => errorText(t, error));
      setAnnouncement(errorText(t, error));
    } finally {
      // The board shows what the API holds now, never a guess.
      await utils.dispatch.board.invalidate({ date });
    }
  };
}

/**
 * A time outside the target slot is not sent as it is (issue 33, ADR 066; the API refuses it too): the board
 * asks to place the service at the slot's start instead (that time), or leaves it where it is (null).
 */
async function timeInSlot(
  t: TFunction,
  confirm: ReturnType<typeof useConfirm>,
  service: DispatchService,
  slot: DispatchSlot,
  serviceTime: string | null,
): Promise<string | null | undefined> {
  if (!timeOutsideSlot(serviceTime, slot)) return serviceTime;
  const start = slot.start_time.slice(0, 5);
  const hours = { time: serviceTime, slot: seededText(t, 'service-slots', slot.name), start, end: slot.end_time.slice(0, 5), id: service.id };
  const retime = await confirm({
    title: t('dispatch.outsideSlotTitle'),
    message: t('dispatch.outsideSlot', hours),
    yes: t('dispatch.placeAtStart', { start }),
    no: t('dispatch.keepWhereItIs'),
  });
  return retime ? start : undefined;
}

interface DragMoves {
  pick: (service: DispatchService) => void;
  picked: DispatchService | null;
  drop: (service: DispatchService, target: Target) => Promise<void>;
  unassign: (service: DispatchService) => Promise<void>;
  dragged: DispatchService | null;
  setDragged: (service: DispatchService | null) => void;
  over: string | null;
  setOver: (key: string | null | ((current: string | null) => string | null)) => void;
}

/** A drop target's drag-over and drag-leave handlers: lit up (key) while an accepted card is over it. */
function dragOverHandlers(moves: DragMoves, key: string, accepts: boolean) {
  return {
    'data-over': moves.over === key,
    onDragOver: (event: DragEvent) => {
      if (!accepts) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (moves.over !== key) moves.setOver(key);
    },
    onDragLeave: () => moves.setOver((current) => (current === key ? null : current)),
  };
}

/** The props of the cards and of the drop targets (a buddy's slot, the tray) for picking and dragging. */
function dragProps(moves: DragMoves) {
  const { picked, dragged, setDragged } = moves;
  /** The props of a card on the board: picked or not, and how it is picked up or dragged. */
  const cardProps = (service: DispatchService) => ({
    service,
    picked: picked?.id === service.id,
    anyPicked: picked !== null,
    onPick: () => moves.pick(service),
    onDragStart: (event: DragEvent) => {
      event.dataTransfer.setData('text/plain', String(service.id));
      event.dataTransfer.effectAllowed = 'move';
      setDragged(service);
    },
    onDragEnd: () => {
      moves.setOver(null);
      setDragged(null);
    },
  });

  /** The props of a buddy's slot as a drop target: lit up under a dragged card, and why it refuses it. */
  const targetProps = (data: DispatchBoard, buddy: DispatchBuddy, slot: DispatchSlot, cell: DispatchCell) => {
    const key = `${buddy.id}:${slot.id}`;
    const refusal = dragged ? cellRefusal(data, buddy, cell, dragged) : null;
    return {
      ...dragOverHandlers(moves, key, dragged !== null),
      'data-refusal': moves.over === key && refusal ? refusal : undefined,
      onDrop: (event: DragEvent) => {
        event.preventDefault();
        setDragged(null);
        if (dragged) void moves.drop(dragged, { buddy, slot });
      },
    };
  };

  /** The tray as a drop target: a booked card dragged there is unassigned. */
  const trayProps = {
    ...dragOverHandlers(moves, 'tray', dragged?.status === SERVICE_STATUS.Booked),
    onDrop: (event: DragEvent) => {
      event.preventDefault();
      setDragged(null);
      if (dragged?.status === SERVICE_STATUS.Booked) void moves.unassign(dragged);
    },
  };
  return { cardProps, targetProps, trayProps };
}

/** The board's pick, drag and drop: what the cards and the slots of a buddy need to move a service. */
export function useBoardMoves(date: string) {
  const { t } = useTranslation();
  const confirm = useConfirm();
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
  const report = useMoveReport(date, setAnnouncement);

  /** A booked service back to the requests (ADR 044): the status flow's Booked → Requested, an Admin's step. */
  const unassign = async (service: DispatchService) => {
    setOver(null);
    setPicked(null);
    await report(
      () => transition.mutateAsync({ id: service.id, version: service.version, to: SERVICE_STATUS.Requested }),
      (t) => t('dispatch.unassigned', { id: service.id }),
    );
  };

  const drop = async (service: DispatchService, target: Target) => {
    setOver(null);
    setPicked(null);
    const book = service.status === SERVICE_STATUS.Requested;
    // A picked card carries the time typed beside it; a dragged one keeps its own.
    const typed = picked?.id === service.id ? time || null : service.service_time;
    const retimed = typed !== service.service_time;
    if (!book && !retimed && service.buddy_id === target.buddy.id && service.service_slot_id === target.slot.id) return;
    const serviceTime = await timeInSlot(t, confirm, service, target.slot, typed);
    if (serviceTime === undefined) {
      setAnnouncement(t('dispatch.notMoved', { id: service.id }));
      return;
    }
    const said = (t: TFunction) => {
      const place = t('dispatch.place', { buddy: target.buddy.name, slot: seededText(t, 'service-slots', target.slot.name) });
      const at = serviceTime ? t('dispatch.placeAt', { place, time: serviceTime }) : place;
      return t(book ? 'dispatch.booked' : 'dispatch.moved', { id: service.id, place: at });
    };
    await report(
      () => move.mutateAsync({ id: service.id, version: service.version, buddy_id: target.buddy.id, service_slot_id: target.slot.id, book, service_time: serviceTime }),
      said,
    );
  };

  const drag = dragProps({ pick, picked, drop, unassign, dragged, setDragged, over, setOver });
  return { picked, setPicked, announcement, moving: move.isPending || transition.isPending, drop, unassign, time, setTime, ...drag };
}

export type BoardMoves = ReturnType<typeof useBoardMoves>;
