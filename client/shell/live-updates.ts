import type { QueryClient } from '@tanstack/react-query';
import { LIVE_CHANGE_EVENT, LIVE_PATH, type LiveChange } from '../../shared/live.ts';

/**
 * Live updates in the browser (ADR 037), loaded by the client entry once a signed-in page is idle (not in
 * the first load's budget): the server's stream of changes this user may see; each change marks the answers
 * about its entity stale, and the ones on screen are fetched again. Without the stream (no EventSource, the
 * stream refused or failing), the screens on view are fetched again every 30 seconds instead.
 */

export const POLL_MS = 30_000;
/** Errors in a row without the stream opening in between before falling back to polling. */
const MAX_FAILURES = 3;
/** Changes arriving together (a dispatch move, a bulk edit) are applied in one go. */
const BATCH_MS = 250;
/** Screens that count or place records of several entities: stale after any change. */
const SUMMARIES = ['dashboard', 'dispatch'];

/**
 * The tRPC router of an entity (`bicycle-types` → `bicycleTypes`), the first part of its queries' keys: the
 * rule of `routerKey` (shared/entity/define.ts), not imported so the definitions stay out of this chunk (a test holds them equal).
 */
export const routerOf = (entity: string) => entity.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Marks stale every answer of these routers (all, for a gap); those on screen are fetched again. */
function invalidate(queryClient: QueryClient, routers: ReadonlySet<string> | 'all') {
  void queryClient.invalidateQueries({
    predicate: (query) => {
      if (routers === 'all') return true;
      const path = query.queryKey[0];
      return Array.isArray(path) && typeof path[0] === 'string' && routers.has(path[0]);
    },
  });
}

/**
 * Starts listening; answers the function that stops. Each change is also announced on the window
 * (`LIVE_CHANGE_EVENT`, the change as `detail`) for screens that count changes (the sidebar).
 */
export function startLiveUpdates(queryClient: QueryClient): () => void {
  let source: EventSource | null = null;
  let poller: ReturnType<typeof setInterval> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = new Set<string>();
  let failures = 0;

  const flush = () => {
    timer = undefined;
    const routers = pending;
    pending = new Set();
    invalidate(queryClient, routers);
  };

  const poll = () => {
    source?.close();
    source = null;
    poller ??= setInterval(() => void queryClient.refetchQueries({ type: 'active' }), POLL_MS);
  };

  if (typeof EventSource === 'undefined') poll();
  else {
    source = new EventSource(LIVE_PATH);
    source.addEventListener('open', () => (failures = 0));
    source.addEventListener('change', (event) => {
      const change = JSON.parse((event as MessageEvent<string>).data) as LiveChange;
      pending.add(routerOf(change.entity));
      for (const summary of SUMMARIES) pending.add(summary);
      timer ??= setTimeout(flush, BATCH_MS);
      window.dispatchEvent(new CustomEvent(LIVE_CHANGE_EVENT, { detail: change }));
    });
    // More was missed than the server kept: everything may be out of date.
    source.addEventListener('gap', () => invalidate(queryClient, 'all'));
    source.addEventListener('error', () => {
      // Closed: the server refused the stream (signed out, turned off); otherwise the browser reconnects itself.
      if (source?.readyState === EventSource.CLOSED || ++failures >= MAX_FAILURES) poll();
    });
  }

  return () => {
    source?.close();
    clearInterval(poller);
    clearTimeout(timer);
  };
}
