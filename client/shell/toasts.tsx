import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
// Static styles in a plain style sheet (no JavaScript to carry them, ADR 021): toasts.css.
import './toasts.css';

/**
 * §9: toasts close by themselves after 5 s; the container sits at z-index 1999, below the sticky header
 * (`--app-header-height`, client/styles.css) so a toast never covers the header's controls (ADR 045).
 */
export const TOAST_AUTO_CLOSE_MS = 5000;
export const TOAST_Z_INDEX = 1999;

export type ToastKind = 'info' | 'success' | 'warn' | 'error';
interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}

type Notify = (message: string) => void;
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
    (kind: ToastKind, message: string) => {
      const id = nextId.current++;
      setToasts((list) => [...list.slice(-4), { id, kind, message }]);
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
              {toast.message}
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
