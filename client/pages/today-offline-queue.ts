import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ActionSender } from '../entity/record-actions.tsx';
import { afterLoad } from '../shell/idle.ts';
import type { OfflineQueue, QueuedStep } from './today-offline.tsx';

type OfflineModule = typeof import('./today-offline.tsx');

const subscribeOnline = (change: () => void) => {
  window.addEventListener('online', change);
  window.addEventListener('offline', change);
  return () => {
    window.removeEventListener('online', change);
    window.removeEventListener('offline', change);
  };
};
/** Whether the browser says it is online; the server renders online. */
export const useOnline = () =>
  useSyncExternalStore(
    subscribeOnline,
    () => navigator.onLine,
    () => true,
  );

/**
 * The Today page's offline queue (ADR 042). Not needed for the first paint, it is loaded once the page has
 * loaded and the browser is idle (ADR 048), or at the first step a buddy takes before then: every step goes
 * through it, so a step taken in a dead spot right after a reload is kept like any other.
 */
export function useOfflineQueue(userId: string | null, onSent: () => void) {
  // The module and queue are kept aside: the page shows them only through `steps`, so loading them does not
  // render the day again when nothing waits (the usual case).
  const offline = useRef<{ module: OfflineModule; queue: OfflineQueue } | null>(null);
  const [steps, setSteps] = useState<readonly QueuedStep[]>([]);
  const [reachable, setReachable] = useState(true);
  const sent = useRef(onSent);
  sent.current = onSent;
  const open = useRef<(() => Promise<OfflineQueue>) | null>(null);
  useEffect(() => {
    if (!userId) return;
    let opening: Promise<OfflineQueue> | undefined;
    let queue: OfflineQueue | undefined;
    let unsubscribe = () => {};
    let gone = false;
    open.current = () =>
      (opening ??= import('./today-offline.tsx').then((module) => {
        if (gone) throw new Error('The Today page was left before its offline queue loaded.');
        const opened = (queue = module.openOfflineQueue(userId, () => sent.current()));
        offline.current = { module, queue: opened };
        const show = () => {
          const now = opened.steps();
          setSteps((before) => (before.length === 0 && now.length === 0 ? before : now));
          setReachable(opened.reachable());
        };
        unsubscribe = opened.subscribe(show);
        show();
        return opened;
      })).catch((error: unknown) => {
        // Not loaded (no network, not kept yet): the next step tries again.
        opening = undefined;
        throw error;
      });
    const cancel = afterLoad(() => void open.current?.().catch(() => undefined));
    return () => {
      gone = true;
      open.current = null;
      offline.current = null;
      cancel();
      unsubscribe();
      queue?.close();
    };
  }, [userId]);
  const send = useCallback<ActionSender>(async (path, input, record) => {
    const queue = await open.current?.();
    if (!queue) throw new Error('The Today page was left before its offline queue loaded.');
    return queue.submit(path, input, record);
  }, []);
  return { offline: steps.length > 0 ? offline.current : null, steps, reachable, send: userId ? send : undefined };
}
