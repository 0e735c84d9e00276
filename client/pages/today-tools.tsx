import { lazy, Suspense, useId, useState, type ReactNode } from 'react';
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

/** A button that opens a part of the page below it; the part (lazy code) is rendered only while open. */
function LazyDisclosure({ labels, testId, children }: { labels: [closed: string, open: string]; testId: string; children: (close: () => void) => ReactNode }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <Disclosure type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} data-testid={testId}>
        {t(open ? labels[1] : labels[0])}
      </Disclosure>
      <div id={id} hidden={!open}>
        {open && <Suspense fallback={<PageSpinner />}>{children(() => setOpen(false))}</Suspense>}
      </div>
    </>
  );
}

/** The bicycle's past services and findings, read-only, opened from the stop's card. */
export function BicycleHistoryToggle({ bicycleId }: { bicycleId: number }) {
  return (
    <LazyDisclosure labels={['today.showHistory', 'today.hideHistory']} testId="stop-history-toggle">
      {() => <BicycleHistory bicycleId={bicycleId} embedded />}
    </LazyDisclosure>
  );
}

/** The day's stops in a suggested order that shortens the way between them, to apply or leave. */
export function RouteOrderToggle({ stops }: { stops: readonly EntityRecord[] }) {
  return (
    <div style={{ display: 'grid', gap: 8, margin: '0 0 12px' }}>
      <LazyDisclosure labels={['today.suggestRoute', 'today.hideRoute']} testId="route-toggle">
        {(close) => <RoutePanel stops={stops} onDone={close} />}
      </LazyDisclosure>
    </div>
  );
}
