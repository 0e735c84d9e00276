import { Dialog } from '@primer/react';
import { useTranslation } from 'react-i18next';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { ErrorState } from '../components/error-state.tsx';
import { formatDateTime, formatMoney } from '../../shared/format.ts';
import { trpc } from '../trpc.ts';

/** The refunds one subscription paid out (issue 13): date, amount in its currency, days, who cancelled. Loaded on demand. */
export default function SubscriptionRefundsDialog({ record, onClose }: { record: EntityRecord; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const refunds = trpc.subscriptions.refunds.list.useQuery({ id: record.id });
  return (
    <Dialog
      title={t('subscriptionActions.refundsTitle', { id: record.id })}
      onClose={onClose}
      width="large"
      footerButtons={[{ buttonType: 'default', content: t('subscriptionActions.close'), onClick: onClose }]}
    >
      <div data-testid="subscription-refunds">
        {refunds.error ? (
          <ErrorState error={refunds.error} onRetry={() => void refunds.refetch()} />
        ) : !refunds.data ? (
          <p aria-busy="true">{t('subscriptionActions.loading')}</p>
        ) : refunds.data.length === 0 ? (
          <p data-testid="subscription-refunds-empty">{t('subscriptionActions.noRefunds')}</p>
        ) : (
          <>
            <p id="subscription-refunds-caption" style={{ marginTop: 0, color: 'var(--fgColor-muted)' }}>
              {t('subscriptionActions.refundsCaption', { email: String(record.user_id_label ?? '') })}
            </p>
            {/* Four columns do not fit a phone: the table scrolls sideways inside the dialog. */}
            <div style={{ overflowX: 'auto' }}>
              <table style={{ width: '100%', borderCollapse: 'collapse' }} aria-describedby="subscription-refunds-caption">
                <thead>
                  <tr>
                    {(['date', 'amount', 'days', 'by'] as const).map((column) => (
                      <th
                        key={column}
                        scope="col"
                        style={{ textAlign: column === 'amount' ? 'right' : 'left', padding: '4px 8px', borderBottom: '1px solid var(--borderColor-default)' }}
                      >
                        {t(`subscriptionActions.columns.${column}`)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {refunds.data.map((refund) => (
                    <tr key={refund.id} data-testid={`refund-${refund.id}`}>
                      <td style={{ padding: '4px 8px', whiteSpace: 'nowrap' }}>{formatDateTime(refund.created_at, i18n.language)}</td>
                      <td style={{ padding: '4px 8px', textAlign: 'right', whiteSpace: 'nowrap' }}>{formatMoney(refund.amount, refund.currency, i18n.language)}</td>
                      <td style={{ padding: '4px 8px' }}>{t('subscriptionActions.days', { unused: refund.unused_days, days: refund.period_days })}</td>
                      <td style={{ padding: '4px 8px' }}>{refund.created_by_label ?? t('subscriptionActions.unknownPerson')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
    </Dialog>
  );
}
