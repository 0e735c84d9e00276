import { ArrowUpRightIcon } from '@primer/octicons-react';
import type { DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { DispatchService } from '../../shared/schemas/dispatch.ts';
import { STATUS_STYLE } from '../components/calendar.tsx';
import { statusText } from '../entity/status-label.tsx';
import { Card } from './dispatch-board-styles.ts';

/** The statuses a card may be moved from: a request, or a booked service. */
export const MOVABLE: readonly number[] = [SERVICE_STATUS.Requested, SERVICE_STATUS.Booked];

/** A service on the board: picked up by a click, Enter or Space (then dropped on a slot), or dragged. */
export function ServiceCard({
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
