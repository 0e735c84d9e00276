import { Dialog } from '@primer/react';
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface ConfirmOptions {
  title?: string;
  message: string;
  /** Styles Yes as dangerous (deletes, cancellations). */
  danger?: boolean;
}

type Confirm = (options: ConfirmOptions) => Promise<boolean>;
const ConfirmContext = createContext<Confirm | null>(null);

/** The one yes/no dialog for sensitive actions (spec §1, §2): `if (await confirm({...})) ...`. */
export function useConfirm(): Confirm {
  const confirm = useContext(ConfirmContext);
  if (!confirm) throw new Error('useConfirm needs a ConfirmProvider');
  return confirm;
}

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState<ConfirmOptions | null>(null);
  const resolver = useRef<((answer: boolean) => void) | null>(null);

  const confirm = useCallback<Confirm>((options) => {
    resolver.current?.(false);
    setOpen(options);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  const answer = (value: boolean) => {
    resolver.current?.(value);
    resolver.current = null;
    setOpen(null);
  };

  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      {open && (
        <Dialog
          title={open.title ?? t('confirm.title')}
          role="alertdialog"
          onClose={() => answer(false)}
          footerButtons={[
            { buttonType: 'default', content: t('confirm.no'), onClick: () => answer(false) },
            { buttonType: open.danger ? 'danger' : 'primary', content: t('confirm.yes'), onClick: () => answer(true), autoFocus: true },
          ]}
        >
          <p style={{ margin: 0 }} data-testid="confirm-message">
            {open.message}
          </p>
        </Dialog>
      )}
    </ConfirmContext.Provider>
  );
}

