import { Button, Flash, Label } from '@primer/react';
import { lazy, Suspense, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { endsWithPeriod, subscriptionsEntity } from '../../shared/entities/subscriptions.ts';
import type { Refund, SubscriptionActionResult } from '../../shared/schemas/subscriptions.ts';
import { formatDate, formatMoney } from '../../shared/format.ts';
import type { ActionButton } from '../entity/action-buttons.ts';
import { RecordActions, type ActionOutcome } from '../entity/record-actions.tsx';
import { ResourceListPage } from '../entity/resource-list-page.tsx';

// The refunds dialog (Primer Dialog) loads the first time someone opens it.
const RefundsDialog = lazy(() => import('./subscription-refunds-dialog.tsx'));

/** §4: the outcome of the last activate or cancel; a reset clears the error, the last updated subscription and the last refund. */
export interface SubscriptionFeedback {
  error: string | null;
  lastUpdatedSubscription: EntityRecord | null;
  lastRefund: Refund | null;
}

const EMPTY: SubscriptionFeedback = { error: null, lastUpdatedSubscription: null, lastRefund: null };

function statusName(t: (key: string) => string, lang: string, record: EntityRecord): string {
  return t(`resources.subscriptions.options.status.${String(record.status)}`).toLocaleLowerCase(lang);
}

/** The feedback kept from each action's outcome (RecordActions' toasts say the rest). */
function feedbackOf(outcome: ActionOutcome, current: SubscriptionFeedback): SubscriptionFeedback {
  if (outcome.state === 'pending' || outcome.state === 'queued') return { ...current, error: null };
  if (outcome.state === 'failed') return { ...current, error: outcome.message };
  const result = outcome.result as SubscriptionActionResult;
  return { error: null, lastUpdatedSubscription: result.subscription, lastRefund: result.refund };
}

/** "Activate" on a subscription told to end with its period takes that back: the buttons and texts say "resume". */
/** The conventional ids of the row's buttons (activate-<id>, cancel-<id>, cancel-at-end-<id>). */
const testIdOf = (record: EntityRecord) => (button: ActionButton) =>
  button.key === 'activate' ? `activate-${record.id}` : button.variant === 'atPeriodEnd' ? `cancel-at-end-${record.id}` : `cancel-${record.id}`;

function Feedback({ state, onReset }: { state: SubscriptionFeedback; onReset: () => void }) {
  const { t, i18n } = useTranslation();
  if (!state.error && !state.lastUpdatedSubscription) return null;
  const updated = state.lastUpdatedSubscription;
  const refund = state.lastRefund;
  return (
    <Flash
      variant={state.error ? 'danger' : 'success'}
      style={{ margin: '12px 0', display: 'flex', gap: 12, alignItems: 'center' }}
      data-testid="subscription-feedback"
      role="status"
    >
      <div style={{ flex: 1 }}>
        {/* Told to end with its period, the subscription is still active: say when it ends, not "is now active". */}
        {state.error ??
          (endsWithPeriod(updated!) ? (
            <span data-testid="subscription-ends">{t('subscriptions.endsAtPeriodEnd', { id: updated!.id, end: formatDate(updated!.current_period_end, i18n.language) })}</span>
          ) : (
            t('subscriptions.updated', { id: updated!.id, status: statusName(t, i18n.language, updated!) })
          ))}
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
  const { t, i18n } = useTranslation();
  const [feedback, setFeedback] = useState<SubscriptionFeedback>(EMPTY);
  const [refundsOf, setRefundsOf] = useState<EntityRecord | null>(null);
  const onResult = useCallback((outcome: ActionOutcome) => setFeedback((current) => feedbackOf(outcome, current)), []);
  const reset = useCallback(() => setFeedback(EMPTY), []);
  return (
    <ResourceListPage
      def={subscriptionsEntity}
      headingLevel="h2"
      fixedFilters={userId ? { user_id: userId } : undefined}
      rowActions={(record) => (
        <span style={{ display: 'inline-flex', gap: 4, flexWrap: 'wrap', alignItems: 'center' }}>
          {endsWithPeriod(record) && (
            <Label variant="attention" data-testid={`ends-${record.id}`}>
              {t('subscriptionActions.endsOn', { end: formatDate(record.current_period_end, i18n.language) })}
            </Label>
          )}
          <RecordActions def={subscriptionsEntity} record={record} variant="compact" testId={testIdOf(record)} onResult={onResult} />
          <Button size="small" variant="invisible" onClick={() => setRefundsOf(record)} data-testid={`refunds-${record.id}`}>
            {t('subscriptionActions.refunds')}
          </Button>
        </span>
      )}
    >
      <Feedback state={feedback} onReset={reset} />
      {refundsOf && (
        <Suspense fallback={null}>
          <RefundsDialog record={refundsOf} onClose={() => setRefundsOf(null)} />
        </Suspense>
      )}
    </ResourceListPage>
  );
}
