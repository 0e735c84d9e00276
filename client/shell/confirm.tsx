import { createContext, lazy, Suspense, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import type { ConfirmOptions } from './confirm-options.ts';

type Confirm = (options: ConfirmOptions) => Promise<boolean>;
const ConfirmContext = createContext<Confirm | null>(null);

/** The one yes/no dialog for sensitive actions (spec §1, §2): `if (await confirm({...})) ...`. */
export function useConfirm(): Confirm {
  const confirm = useContext(ConfirmContext);
  if (!confirm) throw new Error('useConfirm needs a ConfirmProvider');
  return confirm;
}

// The dialog's code (Primer Dialog and its overlay machinery) loads the first time a question is asked.
const ConfirmDialog = lazy(() => import('./confirm-dialog.tsx'));

export function ConfirmProvider({ children }: { children: ReactNode }) {
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
        <Suspense fallback={null}>
          <ConfirmDialog options={open} onAnswer={answer} />
        </Suspense>
      )}
    </ConfirmContext.Provider>
  );
}
