import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useConfirm } from '../shell/confirm.tsx';

const SENTINEL = 'boUnsavedGuard';

function onSentinel(): boolean {
  return Boolean((window.history.state as Record<string, unknown> | null)?.[SENTINEL]);
}

/**
 * Asks before leaving a form with unsaved changes: in-app links (sidebar, breadcrumbs) and the
 * browser's Back and Forward go through the confirm dialog; reloads and closing the tab get the
 * browser's own prompt.
 *
 * Back cannot be cancelled once the browser has moved, so while the form is dirty a same-URL history
 * entry (the sentinel) sits on top of the page: Back lands on the page itself, we ask, and either
 * continue backwards or put the sentinel back. (A data router's `useBlocker` would do this for us;
 * the app uses `BrowserRouter` because its SSR does not need loaders.)
 */
export function useUnsavedChangesGuard(dirty: boolean) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const navigate = useNavigate();

  useEffect(() => {
    if (!dirty) return;
    const ask = () => confirm({ title: t('form.unsavedTitle'), message: t('form.unsavedMessage'), danger: true });
    let armed = true;
    window.history.pushState({ ...(window.history.state as object | null), [SENTINEL]: true }, '', window.location.href);

    const onPopState = () => {
      if (!armed) return;
      armed = false;
      void ask().then((leave) => {
        if (leave) window.history.back();
        else {
          window.history.pushState({ ...(window.history.state as object | null), [SENTINEL]: true }, '', window.location.href);
          armed = true;
        }
      });
    };
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!anchor || anchor.target === '_blank' || anchor.origin !== window.location.origin) return;
      if (anchor.pathname === window.location.pathname && anchor.search === window.location.search) return;
      event.preventDefault();
      event.stopPropagation();
      const to = anchor.pathname + anchor.search + anchor.hash;
      void ask().then((leave) => {
        if (!leave) return;
        armed = false;
        // The new page takes the sentinel's place, so Back from it returns to this page once.
        navigate(to, { replace: onSentinel() });
      });
    };
    window.addEventListener('popstate', onPopState);
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('popstate', onPopState);
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
      // Saved (or otherwise clean): take the sentinel off the top again.
      if (armed && onSentinel()) window.history.back();
    };
  }, [dirty, confirm, navigate, t]);
}
