import { Button, Flash } from '@primer/react';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { CAN_ACTIVATE, CAN_CANCEL, subscriptionsEntity, type SubscriptionStatus } from '../../shared/entities/subscriptions.ts';
import type { Refund } from '../../server/trpc/routers/subscriptions.ts';
import { useEntityUtils } from '../entity/entity-api.ts';
import { formatMoney } from '../entity/field-value.tsx';
import { ResourceListPage } from '../entity/resource-list-page.tsx';
import { errorText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';

type Action = 'activate' | 'cancel';

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

export function useSubscriptionActions() {
  const { t } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const utils = useEntityUtils(subscriptionsEntity);
  const activate = trpc.subscriptions.activate.useMutation();
  const cancel = trpc.subscriptions.cancel.useMutation();
  const [state, setState] = useState<SubscriptionFeedback>(EMPTY);

  const run = async (action: Action, record: EntityRecord) => {
    const confirmed = await confirm({
      title: t(`subscriptions.${action}Title`),
      message: t(`subscriptions.${action}Confirm`, { id: record.id, email: String(record.user_id_label ?? '') }),
      danger: action === 'cancel',
    });
    if (!confirmed) return;
    setState((s) => ({ ...s, pending: { id: record.id, action }, error: null }));
    try {
      const result = await (action === 'activate' ? activate : cancel).mutateAsync({ id: record.id });
      setState({ pending: null, error: null, lastUpdatedSubscription: result.subscription, lastRefund: result.refund });
      utils.get.setData({ id: record.id }, result.subscription);
      await utils.list.invalidate();
      toast.success(t(action === 'activate' ? 'subscriptions.activated' : 'subscriptions.canceled', { id: record.id }));
    } catch (error) {
      const message = errorText(t, error);
      setState((s) => ({ ...s, pending: null, error: message }));
      toast.error(message);
    }
  };

  const reset = useCallback(() => setState((s) => ({ ...EMPTY, pending: s.pending })), []);
  return { state, activate: (r: EntityRecord) => run('activate', r), cancel: (r: EntityRecord) => run('cancel', r), reset };
}

function Feedback({ state, onReset }: { state: SubscriptionFeedback; onReset: () => void }) {
  const { t, i18n } = useTranslation();
  if (!state.error && !state.lastUpdatedSubscription) return null;
  const updated = state.lastUpdatedSubscription;
  const refund = state.lastRefund;
  return (
    <Flash variant={state.error ? 'danger' : 'success'} style={{ margin: '12px 0', display: 'flex', gap: 12, alignItems: 'center' }} data-testid="subscription-feedback" role="status">
      <div style={{ flex: 1 }}>
        {state.error ?? t('subscriptions.updated', { id: updated!.id, status: t(`resources.subscriptions.options.status.${String(updated!.status)}`).toLocaleLowerCase(i18n.language) })}
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

/** Subscriptions with activate and cancel (each behind the confirm dialog): all of them, or one user's. */
export function SubscriptionsList({ userId }: { userId?: number }) {
  const { t } = useTranslation();
  const { state, activate, cancel, reset } = useSubscriptionActions();
  const busy = (record: EntityRecord, action: Action) => state.pending?.id === record.id && state.pending.action === action;
  return (
    <ResourceListPage
      def={subscriptionsEntity}
      headingLevel="h2"
      fixedFilters={userId ? { user_id: userId } : undefined}
      rowActions={(record) => (
        <span style={{ display: 'inline-flex', gap: 4 }}>
          {canActivate(record) && (
            <Button size="small" loading={busy(record, 'activate')} disabled={state.pending !== null} onClick={() => void activate(record)} data-testid={`activate-${record.id}`}>
              {t('subscriptions.activate')}
            </Button>
          )}
          {canCancel(record) && (
            <Button size="small" variant="danger" loading={busy(record, 'cancel')} disabled={state.pending !== null} onClick={() => void cancel(record)} data-testid={`cancel-${record.id}`}>
              {t('subscriptions.cancel')}
            </Button>
          )}
        </span>
      )}
    >
      <Feedback state={state} onReset={reset} />
    </ResourceListPage>
  );
}
