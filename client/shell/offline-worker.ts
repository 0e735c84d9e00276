import { DAY_CACHE, QUEUE_KEY, USER_KEY } from '../offline-storage.ts';
import { OFFLINE_ASSETS_ID } from '../../shared/ssr-contract.ts';
import type { QueryClient } from '@tanstack/react-query';

/** Our service worker (`client/public/sw.js`, ADR 042): one fixed URL, the whole app as its scope. */
export const WORKER_URL = '/sw.js';

const isOurs = (registration: ServiceWorkerRegistration) =>
  [registration.active, registration.waiting, registration.installing].some((worker) => worker && new URL(worker.scriptURL).pathname === WORKER_URL);

/** The signed-in user's id, as the server's prefetch of `session.me` left it in the cache. */
function userIdOf(queryClient: QueryClient): string | null {
  const me = queryClient
    .getQueryCache()
    .findAll()
    .find((query) => String(query.queryKey[0]) === 'session,me');
  const id = (me?.state.data as { user?: { id?: unknown } } | undefined)?.user?.id;
  return id === undefined || id === null ? null : String(id);
}

/**
 * How many steps the user took on Today that this browser still keeps unsent (waiting, or refused and not yet
 * discarded): signing out deletes them, so the account menu asks first (issue 33).
 */
export function keptStepCount(userId: string): number {
  try {
    const steps: unknown = JSON.parse(localStorage.getItem(QUEUE_KEY) ?? '[]');
    return Array.isArray(steps) ? steps.filter((step) => String((step as { user?: unknown } | null)?.user) === userId).length : 0;
  } catch {
    return 0;
  }
}

/** Deletes what this browser kept of the signed-in user: the Today page and its stops, and unsent actions (sign-out). */
export async function forgetOfflineData(): Promise<void> {
  try {
    localStorage.removeItem(QUEUE_KEY);
    localStorage.removeItem(USER_KEY);
  } catch {
    // Storage refused (private mode): nothing was kept there.
  }
  await globalThis.caches?.delete(DAY_CACHE).catch(() => false);
}

/**
 * At idle after the first load: §2's "any leftover service worker is unregistered" — any but ours; then, on a
 * signed-in page, ours is registered (or updated) and told which assets this page loaded before it ran, and the
 * Today page to keep. Another user's kept data is deleted before anything of it could be shown.
 */
export async function startOfflineWorker(queryClient: QueryClient, signedIn: boolean): Promise<void> {
  const container = navigator.serviceWorker;
  if (!container) return;
  for (const registration of await container.getRegistrations()) if (!isOurs(registration) || !signedIn) void registration.unregister();
  if (!signedIn) return;
  const user = userIdOf(queryClient);
  if (!user) return;
  let previous: string | null = null;
  try {
    previous = localStorage.getItem(USER_KEY);
  } catch {
    return;
  }
  if (previous !== user) {
    await forgetOfflineData();
    localStorage.setItem(USER_KEY, user);
  }
  await container.register(WORKER_URL, { scope: '/' });
  const ready = await container.ready;
  // And, on a page that works offline, the chunks its parts load on demand (a dialog, a panel), which the
  // server lists in the page (ADR 048): the worker fetches them, not the page.
  const onDemand = JSON.parse(document.getElementById(OFFLINE_ASSETS_ID)?.textContent ?? '[]') as string[];
  const urls = performance
    .getEntriesByType('resource')
    .map((entry) => entry.name)
    .concat([...document.querySelectorAll<HTMLScriptElement | HTMLLinkElement>('script[src], link[href]')].map((el) => ('src' in el ? el.src : el.href)))
    .concat(onDemand.map((path) => new URL(path, location.href).href));
  ready.active?.postMessage({ type: 'keep', urls: [...new Set(urls)], page: location.pathname + location.search });
}
