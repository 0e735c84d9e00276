import { lazy, Suspense, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { withAllTranslations } from '../i18n.ts';

/**
 * What a stop's card and the day add on /today beyond the stops themselves (ADR 044): the bicycle's history and
 * a suggested route order. Each is a button on first paint; its code loads when it is opened, so the page's
 * first load carries neither the history table nor the route search.
 */
const BicycleHistory = lazy(() => import('../components/bicycle-history.tsx').then((m) => ({ default: m.BicycleHistory })));
// Its texts are of the later part (translation-parts.ts): they come with the panel's code.
const RoutePanel = lazy(() => withAllTranslations(import('./today-route.tsx')));

/** A quiet button a thumb can hit (44 px), for opening a part of the page. */
export const Disclosure = styled.button`
  min-height: 44px;
  padding: 0 12px;
  border: 1px solid var(--borderColor-default, #d0d7de);
  border-radius: 8px;
  background: var(--bgColor-muted, #f6f8fa);
  color: var(--fgColor-default, #1f2328);
  font: inherit;
  font-size: 15px;
  cursor: pointer;
  justify-self: start;
  &:focus-visible {
    outline: 2px solid var(--focus-outlineColor, #0969da);
    outline-offset: 2px;
  }
`;

/** The bicycle's past services and findings, read-only, opened from the stop's card. */
export function BicycleHistoryToggle({ bicycleId }: { bicycleId: number }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <Disclosure type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} data-testid="stop-history-toggle">
        {t(open ? 'today.hideHistory' : 'today.showHistory')}
      </Disclosure>
      <div id={id} hidden={!open}>
        {open && (
          <Suspense fallback={<PageSpinner />}>
            <BicycleHistory bicycleId={bicycleId} embedded />
          </Suspense>
        )}
      </div>
    </>
  );
}

/** The day's stops in a suggested order that shortens the way between them, to apply or leave. */
export function RouteOrderToggle({ stops }: { stops: readonly EntityRecord[] }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div style={{ display: 'grid', gap: 8, margin: '0 0 12px' }}>
      <Disclosure type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} data-testid="route-toggle">
        {t(open ? 'today.hideRoute' : 'today.suggestRoute')}
      </Disclosure>
      <div id={id} hidden={!open}>
        {open && (
          <Suspense fallback={<PageSpinner />}>
            <RoutePanel stops={stops} onDone={() => setOpen(false)} />
          </Suspense>
        )}
      </div>
    </div>
  );
}
