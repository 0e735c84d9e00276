import { Dialog } from '@primer/react';
import { useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConfirmOptions } from './confirm-options.ts';

/**
 * The yes/no dialog itself; loaded on demand by ConfirmProvider. With `typed` (an erasure, ADR 076) it holds a
 * labelled text box, which has the focus, and Yes stays disabled until that text is typed; Enter in the box confirms.
 */
export default function ConfirmDialog({ options, onAnswer }: { options: ConfirmOptions; onAnswer: (value: boolean) => void }) {
  const { t } = useTranslation();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [typed, setTyped] = useState('');
  const asksTyped = options.typed !== undefined;
  const matches = !asksTyped || typed.trim().toLowerCase() === options.typed!.trim().toLowerCase();
  return (
    <Dialog
      title={options.title ?? t('confirm.title')}
      role="alertdialog"
      onClose={() => onAnswer(false)}
      initialFocusRef={asksTyped ? inputRef : undefined}
      footerButtons={[
        { buttonType: 'default', content: options.no ?? t('confirm.no'), onClick: () => onAnswer(false), autoFocus: !asksTyped && options.focus === 'no' },
        {
          buttonType: options.danger ? 'danger' : 'primary',
          content: options.yes ?? t('confirm.yes'),
          onClick: () => matches && onAnswer(true),
          autoFocus: !asksTyped && options.focus !== 'no',
          disabled: !matches,
        },
      ]}
    >
      <p style={{ margin: 0 }} data-testid="confirm-message">
        {options.message}
      </p>
      {asksTyped && (
        <div style={{ marginTop: 12 }}>
          <label htmlFor={inputId} style={{ display: 'block', marginBottom: 4 }}>
            {t('confirm.typeToConfirm', { value: options.typed })}
          </label>
          <span className="bo-input" data-block>
            <input
              ref={inputRef}
              id={inputId}
              autoComplete="off"
              spellCheck={false}
              value={typed}
              data-testid="confirm-typed"
              onChange={(e) => setTyped(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && matches) onAnswer(true);
              }}
            />
          </span>
        </div>
      )}
    </Dialog>
  );
}
