import { Button } from '@primer/react';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { SERVICE_STATUS } from '../../shared/entities/services.ts';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { suggestRouteOrder } from '../../shared/route-order.ts';
import { formatNumber } from '../../shared/format.ts';
import { errorText, fieldErrorsOf, fieldText } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { stopWhen } from './today-query.ts';

const Panel = styled.section`
  display: grid;
  gap: 8px;
  padding: 12px;
  border: 1px solid var(--borderColor-accent-muted, #54aeff66);
  border-radius: 10px;
  background: var(--bgColor-accent-muted, #ddf4ff);
  font-size: 15px;
  p,
  ol {
    margin: 0;
  }
  ol {
    padding-left: 24px;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 8px;
  }
  .actions button {
    min-height: 44px;
  }
`;

/**
 * The suggested order of the day's open stops (ADR 044): computed here from their coordinates — stops with an
 * agreed time, and finished ones, keep their places —, shown with the estimated distance now and after, and
 * applied through the declared `services.orderRoute` action, which checks it again.
 */
export default function RoutePanel({ stops, onDone }: { stops: readonly EntityRecord[]; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const apply = trpc.services.orderRoute.useMutation();
  const [error, setError] = useState<string | null>(null);
  const suggestion = useMemo(
    () =>
      suggestRouteOrder(
        stops.map((s) => ({
          id: s.id,
          lat: Number(s.latitude),
          lng: Number(s.longitude),
          fixed: Boolean(s.service_time) || Number(s.status) === SERVICE_STATUS.Finished,
        })),
      ),
    [stops],
  );
  const km = (metres: number) => formatNumber(metres / 1000, i18n.language, { style: 'unit', unit: 'kilometer', maximumFractionDigits: 1 });
  const byId = new Map(stops.map((s) => [s.id, s]));
  const current = stops.map((s) => s.id);
  const same = suggestion.order.every((id, i) => id === current[i]);

  const run = async () => {
    setError(null);
    try {
      await apply.mutateAsync({ order: suggestion.order });
      toast.success((t) => t('route.applied'));
      await utils.services.calendar.invalidate();
      onDone();
    } catch (e) {
      // A time order the API refuses is said by its field message; anything else by the error's own text.
      const message = fieldText(t, fieldErrorsOf(e).order) ?? errorText(t, e);
      setError(message);
      toast.error((t) => fieldText(t, fieldErrorsOf(e).order) ?? errorText(t, e));
      await utils.services.calendar.invalidate();
    }
  };

  return (
    <Panel aria-labelledby="route-title" data-testid="route-panel">
      <h2 id="route-title" style={{ fontSize: 16, margin: 0 }}>
        {t('route.title')}
      </h2>
      <p data-testid="route-distances">
        {t('route.distances', { before: km(suggestion.before), after: km(suggestion.after) })}
        {!same && <strong> {t('route.saves', { distance: km(suggestion.before - suggestion.after) })}</strong>}
      </p>
      <p style={{ fontSize: 13 }}>{t('route.help')}</p>
      {same ? (
        <p data-testid="route-same">{t('route.alreadyShortest')}</p>
      ) : (
        <>
          <ol data-testid="route-order">
            {suggestion.order.map((id) => {
              const stop = byId.get(id)!;
              return (
                <li key={id} data-service={id}>
                  {[stopWhen(stop), String(stop.address ?? '')].filter(Boolean).join(' · ')}
                  {stop.service_time ? ` (${t('route.fixed')})` : ''}
                </li>
              );
            })}
          </ol>
          {error && (
            <p role="alert" style={{ color: 'var(--fgColor-danger, #d1242f)' }} data-testid="route-error">
              {error}
            </p>
          )}
          <div className="actions">
            <Button variant="primary" onClick={() => void run()} loading={apply.isPending} data-testid="route-apply">
              {t('route.apply')}
            </Button>
            <Button onClick={onDone}>{t('route.keep')}</Button>
          </div>
        </>
      )}
    </Panel>
  );
}
