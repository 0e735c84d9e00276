import { seededText } from '../entity/seeded-names.ts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { SERVICE_STATUS, SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import type { ActionButton } from '../entity/action-buttons.ts';
import { RecordActions, type ActionOutcome, type ActionSender } from '../entity/record-actions.tsx';
import { StatusLabel } from '../entity/status-label.tsx';
import { isCanceled } from './today-query.ts';
import type { QueuedStep } from './today-offline.tsx';
import { Actions, Alert, Card, CardHead, Flag, Muted, StopNumber } from './today-styles.ts';
import { BicycleHistoryToggle } from './today-tools.tsx';

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

/** A stop's number on the map, its time and slot, and its status. */
function StopHead({ service, number, outside }: { service: EntityRecord; number?: number; outside: boolean }) {
  const { t } = useTranslation();
  const status = Number(service.status);
  return (
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
      <Muted>{seededText(t, 'service-slots', String(service.service_slot_id_label ?? ''))}</Muted>
      <span style={{ marginLeft: 'auto' }}>
        <StatusLabel def={servicesEntity} field="status" flow={SERVICE_STATUS_FLOW} value={status} />
      </span>
    </CardHead>
  );
}

/** A stop's owner (with a phone link) and, where the day shows more than one buddy's stops, its buddy. */
function StopPeople({ service, showBuddy }: { service: EntityRecord; showBuddy: boolean }) {
  const { t } = useTranslation();
  const owner = String(service.owner_id_label ?? '');
  const phone = service.owner_phone ? String(service.owner_phone) : null;
  return (
    <>
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
    </>
  );
}

/** A stop of the day: where, what and whose, its steps (or its kept step's note) and a refused step's reason. */
export function StopCard({ service, number, outside, showBuddy, error, onResult, send, step, note }: StopCardProps) {
  const { t } = useTranslation();
  const lat = Number(service.latitude);
  const lng = Number(service.longitude);
  const address = String(service.address ?? '') || `${lat.toFixed(5)}, ${lng.toFixed(5)}`;
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
      <StopHead service={service} number={number} outside={outside} />
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
      <StopPeople service={service} showBuddy={showBuddy} />
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
