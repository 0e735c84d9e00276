import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
// Static styles in a plain style sheet (no JavaScript to carry them, ADR 021): toasts.css.
import './toasts.css';

/**
 * §9: toasts close by themselves after 5 s; the container sits at z-index 1999, below the sticky header
 * (`--app-header-height`, client/styles.css) so a toast never covers the header's controls (ADR 045).
 * Issue 33: a toast is written when it is drawn, from a function of the current `t` where it is the app's
 * own text, so it follows a language switch; one toast shows at a time (a new one replaces it, no stack);
 * and it sits at the bottom of the screen, where no page keeps the controls it was used next to (Activity's
 * Export, Today's day navigation: top right).
 */
export const TOAST_AUTO_CLOSE_MS = 5000;
export const TOAST_Z_INDEX = 1999;

export type ToastKind = 'info' | 'success' | 'warn' | 'error';
/** A toast's text: the app's own text as a function of `t` (it follows the language), or text as it came. */
export type ToastMessage = string | ((t: TFunction) => string);
interface Toast {
  id: number;
  kind: ToastKind;
  message: ToastMessage;
}

type Notify = (message: ToastMessage) => void;
export interface ToastApi {
  info: Notify;
  success: Notify;
  warn: Notify;
  error: Notify;
}

const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast needs a ToastProvider');
  return api;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const dismiss = useCallback((id: number) => {
    setToasts((list) => list.filter((toast) => toast.id !== id));
    const timer = timers.current.get(id);
    if (timer) clearTimeout(timer);
    timers.current.delete(id);
  }, []);

  const push = useCallback(
    (kind: ToastKind, message: ToastMessage) => {
      const id = nextId.current++;
      // One at a time: the newest replaces what is shown (its timer goes with it).
      for (const timer of timers.current.values()) clearTimeout(timer);
      timers.current.clear();
      setToasts([{ id, kind, message }]);
      timers.current.set(
        id,
        setTimeout(() => dismiss(id), TOAST_AUTO_CLOSE_MS),
      );
    },
    [dismiss],
  );

  useEffect(() => {
    const all = timers.current;
    return () => all.forEach((timer) => clearTimeout(timer));
  }, []);

  const api = useMemo<ToastApi>(
    () => ({
      info: (m) => push('info', m),
      success: (m) => push('success', m),
      warn: (m) => push('warn', m),
      error: (m) => push('error', m),
    }),
    [push],
  );

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="bo-toasts" role="region" aria-label={t('toast.region')} data-testid="toasts">
        {toasts.map((toast) => (
          <div key={toast.id} className="bo-toast" role={toast.kind === 'error' ? 'alert' : 'status'} data-kind={toast.kind}>
            <span>
              <strong>{t(`toast.${toast.kind}`)}: </strong>
              {typeof toast.message === 'function' ? toast.message(t) : toast.message}
            </span>
            <button type="button" aria-label={t('toast.close')} onClick={() => dismiss(toast.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
