import { Dialog } from '@primer/react';
import { useTranslation } from 'react-i18next';
import type { ConfirmOptions } from './confirm-options.ts';

/** The yes/no dialog itself; loaded on demand by ConfirmProvider. */
export default function ConfirmDialog({ options, onAnswer }: { options: ConfirmOptions; onAnswer: (value: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={options.title ?? t('confirm.title')}
      role="alertdialog"
      onClose={() => onAnswer(false)}
      footerButtons={[
        { buttonType: 'default', content: options.no ?? t('confirm.no'), onClick: () => onAnswer(false), autoFocus: options.focus === 'no' },
        { buttonType: options.danger ? 'danger' : 'primary', content: options.yes ?? t('confirm.yes'), onClick: () => onAnswer(true), autoFocus: options.focus !== 'no' },
      ]}
    >
      <p style={{ margin: 0 }} data-testid="confirm-message">
        {options.message}
      </p>
    </Dialog>
  );
}
