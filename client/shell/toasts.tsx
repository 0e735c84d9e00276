import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';

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

const COLORS: Record<ToastKind, string> = {
  info: 'var(--bgColor-accent-emphasis, #0969da)',
  success: 'var(--bgColor-success-emphasis, #1f883d)',
  warn: 'var(--bgColor-attention-emphasis, #9a6700)',
  error: 'var(--bgColor-danger-emphasis, #cf222e)',
};

const Region = styled.div`
  position: fixed;
  top: calc(var(--app-header-height, 0px) + 8px);
  right: 16px;
  z-index: ${TOAST_Z_INDEX};
  display: flex;
  flex-direction: column;
  gap: 8px;
  max-width: min(420px, calc(100vw - 32px));
`;

const Item = styled.div<{ $kind: ToastKind }>`
  display: flex;
  align-items: flex-start;
  gap: 12px;
  padding: 12px 14px;
  border-radius: 6px;
  color: #fff;
  background: ${(p) => COLORS[p.$kind]};
  box-shadow: 0 8px 24px rgba(140, 149, 159, 0.3);
  font-size: 14px;
  line-height: 1.4;
`;

const Close = styled.button`
  margin-left: auto;
  background: transparent;
  border: 0;
  color: inherit;
  cursor: pointer;
  font-size: 18px;
  line-height: 1;
  padding: 0 2px;
  &:focus-visible {
    outline: 2px solid #fff;
  }
`;

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
      <Region role="region" aria-label={t('toast.region')} data-testid="toasts">
        {toasts.map((toast) => (
          <Item key={toast.id} $kind={toast.kind} role={toast.kind === 'error' ? 'alert' : 'status'} data-kind={toast.kind}>
            <span>
              <strong>{t(`toast.${toast.kind}`)}: </strong>
              {toast.message}
            </span>
            <Close type="button" aria-label={t('toast.close')} onClick={() => dismiss(toast.id)}>
              ×
            </Close>
          </Item>
        ))}
      </Region>
    </ToastContext.Provider>
  );
}
