import { Button, Flash, Label } from '@primer/react';
import { lazy, Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { CAN_ACTIVATE, CAN_CANCEL, subscriptionsEntity, type SubscriptionStatus } from '../../shared/entities/subscriptions.ts';
import type { Refund, SubscriptionActionResult } from '../../shared/schemas/subscriptions.ts';
import { useEntityUtils } from '../entity/entity-api.ts';
import { formatMoney } from '../entity/field-value.tsx';
import { ResourceListPage } from '../entity/resource-list-page.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

type Action = 'activate' | 'cancel' | 'cancelAtPeriodEnd';

// The refunds dialog (Primer Dialog) loads the first time someone opens it.
const RefundsDialog = lazy(() => import('./subscription-refunds-dialog.tsx'));

/** §4: activate and cancel each start, succeed or fail; a reset clears the error, the last updated subscription and the last refund. */
export interface SubscriptionFeedback {
  pending: { id: number; action: Action } | null;
  error: string | null;
  lastUpdatedSubscription: EntityRecord | null;
  lastRefund: Refund | null;
}

const EMPTY: SubscriptionFeedback = { pending: null, error: null, lastUpdatedSubscription: null, lastRefund: null };

export function canActivate(record: EntityRecord): boolean {
  return CAN_ACTIVATE.includes(record.status as SubscriptionStatus) || (record.status === 'active' && record.cancel_at_period_end === true);
}

export function canCancel(record: EntityRecord): boolean {
  return CAN_CANCEL.includes(record.status as SubscriptionStatus);
}

/** Active and trialing subscriptions can be told to end with their current period (ADR 012). */
export function canCancelAtPeriodEnd(record: EntityRecord): boolean {
  return (record.status === 'active' || record.status === 'trialing') && record.cancel_at_period_end !== true;
}

/** A subscription told to end with its current period (active or trialing). */
const endsWithPeriod = (record: EntityRecord) => (record.status === 'active' || record.status === 'trialing') && record.cancel_at_period_end === true;

/** Activating an active subscription flagged to end only takes the flag back: the screen calls that "resume". */
const isResume = (record: EntityRecord) => record.status === 'active' && record.cancel_at_period_end === true;

/** The confirm dialog's title and question, and the toast of a change, per action. */
const TEXTS: Record<Action, { title: (r: EntityRecord) => string; confirm: (r: EntityRecord) => string; done: (r: EntityRecord) => string; danger: boolean }> = {
  activate: {
    title: (r) => (isResume(r) ? 'subscriptionActions.resumeTitle' : 'subscriptions.activateTitle'),
    confirm: (r) => (isResume(r) ? 'subscriptionActions.resumeConfirm' : 'subscriptions.activateConfirm'),
    done: (r) => (isResume(r) ? 'subscriptionActions.resumed' : 'subscriptions.activated'),
    danger: false,
  },
  cancel: { title: () => 'subscriptions.cancelTitle', confirm: () => 'subscriptions.cancelConfirm', done: () => 'subscriptions.canceled', danger: true },
  cancelAtPeriodEnd: {
    title: () => 'subscriptionActions.cancelAtPeriodEndTitle',
    confirm: () => 'subscriptionActions.cancelAtPeriodEndConfirm',
    done: () => 'subscriptionActions.canceledAtPeriodEnd',
    danger: true,
  },
};

function statusName(t: (key: string) => string, lang: string, record: EntityRecord): string {
  return t(`resources.subscriptions.options.status.${String(record.status)}`).toLocaleLowerCase(lang);
}

export function useSubscriptionActions() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = useEntityUtils(subscriptionsEntity);
  const activate = trpc.subscriptions.activate.useMutation();
  const cancel = trpc.subscriptions.cancel.useMutation();
  const [state, setState] = useState<SubscriptionFeedback>(EMPTY);

  const run = async (action: Action, record: EntityRecord) => {
    const texts = TEXTS[action];
    const confirmed = await confirm({
      title: t(texts.title(record)),
      message: t(texts.confirm(record), { id: record.id, email: String(record.user_id_label ?? ''), end: String(record.current_period_end ?? '') }),
      danger: texts.danger,
    });
    if (!confirmed) return;
    setState((s) => ({ ...s, pending: { id: record.id, action }, error: null }));
    try {
      const result = (await (action === 'activate' ? activate.mutateAsync({ id: record.id }) : cancel.mutateAsync({ id: record.id, at_period_end: action === 'cancelAtPeriodEnd' }))) as unknown as SubscriptionActionResult;
      setState({ pending: null, error: null, lastUpdatedSubscription: result.subscription, lastRefund: result.refund });
      utils.get.setData({ id: record.id }, result.subscription);
      await utils.list.invalidate();
      if (result.changed) toast.success(t(texts.done(record), { id: record.id, end: String(record.current_period_end ?? '') }));
      // Someone else got there first (or the click was repeated): nothing changed, nothing was refunded twice.
      else toast.info(t('subscriptionActions.unchanged', { id: record.id, status: statusName(t, i18n.language, result.subscription) }));
    } catch (error) {
      const message = errorText(t, error);
      setState((s) => ({ ...s, pending: null, error: message }));
      toast.error(message);
    }
  };

  const reset = useCallback(() => setState((s) => ({ ...EMPTY, pending: s.pending })), []);
  return {
    state,
    activate: (r: EntityRecord) => run('activate', r),
    cancel: (r: EntityRecord) => run('cancel', r),
    cancelAtPeriodEnd: (r: EntityRecord) => run('cancelAtPeriodEnd', r),
    reset,
  };
}

function Feedback({ state, onReset }: { state: SubscriptionFeedback; onReset: () => void }) {
  const { t, i18n } = useTranslation();
  if (!state.error && !state.lastUpdatedSubscription) return null;
  const updated = state.lastUpdatedSubscription;
  const refund = state.lastRefund;
  return (
    <Flash variant={state.error ? 'danger' : 'success'} style={{ margin: '12px 0', display: 'flex', gap: 12, alignItems: 'center' }} data-testid="subscription-feedback" role="status">
      <div style={{ flex: 1 }}>
        {state.error ?? t('subscriptions.updated', { id: updated!.id, status: statusName(t, i18n.language, updated!) })}
        {!state.error && updated && endsWithPeriod(updated) && (
          <div data-testid="subscription-ends">{t('subscriptionActions.endsOn', { end: String(updated.current_period_end ?? '') })}</div>
        )}
        {!state.error && refund && (
          <div data-testid="subscription-refund">
            {t('subscriptions.refund', { amount: formatMoney(refund.amount, refund.currency, i18n.language), unused: refund.unused_days, days: refund.period_days })}
          </div>
        )}
        {!state.error && updated && !refund && updated.status === 'canceled' && <div>{t('subscriptions.noRefund')}</div>}
      </div>
      <Button size="small" onClick={onReset} data-testid="subscription-feedback-reset">
        {t('subscriptions.dismiss')}
      </Button>
    </Flash>
  );
}

/**
 * Subscriptions with activate, cancel now, cancel at the period's end (each behind the confirm dialog) and
 * their past refunds: all of them, or one user's.
 */
export function SubscriptionsList({ userId }: { userId?: number }) {
  const { t } = useTranslation();
  const { state, activate, cancel, cancelAtPeriodEnd, reset } = useSubscriptionActions();
  const [refundsOf, setRefundsOf] = useState<EntityRecord | null>(null);
  const busy = (record: EntityRecord, action: Action) => state.pending?.id === record.id && state.pending.action === action;
  return (
    <ResourceListPage
      def={subscriptionsEntity}
      headingLevel="h2"
      fixedFilters={userId ? { user_id: userId } : undefined}
      rowActions={(record) => (
        <span style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap', alignItems: 'center' }}>
          {endsWithPeriod(record) && (
            <Label variant="attention" data-testid={`ends-${record.id}`}>
              {t('subscriptionActions.endsOn', { end: String(record.current_period_end ?? '') })}
            </Label>
          )}
          {canActivate(record) && (
            <Button size="small" loading={busy(record, 'activate')} disabled={state.pending !== null} onClick={() => void activate(record)} data-testid={`activate-${record.id}`}>
              {t(isResume(record) ? 'subscriptionActions.resume' : 'subscriptions.activate')}
            </Button>
          )}
          {canCancelAtPeriodEnd(record) && (
            <Button size="small" loading={busy(record, 'cancelAtPeriodEnd')} disabled={state.pending !== null} onClick={() => void cancelAtPeriodEnd(record)} data-testid={`cancel-at-end-${record.id}`}>
              {t('subscriptionActions.cancelAtPeriodEnd')}
            </Button>
          )}
          {canCancel(record) && (
            <Button size="small" variant="danger" loading={busy(record, 'cancel')} disabled={state.pending !== null} onClick={() => void cancel(record)} data-testid={`cancel-${record.id}`}>
              {t('subscriptionActions.cancelNow')}
            </Button>
          )}
          <Button size="small" variant="invisible" onClick={() => setRefundsOf(record)} data-testid={`refunds-${record.id}`}>
            {t('subscriptionActions.refunds')}
          </Button>
        </span>
      )}
    >
      <Feedback state={state} onReset={reset} />
      {refundsOf && (
        <Suspense fallback={null}>
          <RefundsDialog record={refundsOf} onClose={() => setRefundsOf(null)} />
        </Suspense>
      )}
    </ResourceListPage>
  );
}
