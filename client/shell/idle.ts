/**
 * Work the first screen does not need (ADR 048): run when the browser is idle, or, with `afterLoad`, once the
 * page has loaded (the `load` event: its images, styles and scripts are in), React has hydrated it, and the
 * browser is idle, so it never competes with hydration and the first taps. Hydration runs in slices (a
 * transition, ADR 024) and the browser is idle between them, so idle alone came too early. A browser without
 * `requestIdleCallback` waits a moment.
 */
export function whenIdle(callback: () => void): () => void {
  if (window.requestIdleCallback) {
    const handle = window.requestIdleCallback(callback);
    return () => window.cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, 200);
  return () => clearTimeout(timer);
}

/** A page that never says it is hydrated (an error on the way) still gets its later work this long after the load. */
const HYDRATION_WAIT_MS = 10_000;
let hydrated = false;
const waiting = new Set<() => void>();

/** Called once the page's server HTML has been hydrated (routes.tsx, beside `data-hydrated`). */
export function markHydrated(): void {
  hydrated = true;
  for (const run of [...waiting]) run();
  waiting.clear();
}

export function afterLoad(callback: () => void): () => void {
  let cancel = () => {};
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    waiting.delete(run);
    clearTimeout(fallback);
    cancel = whenIdle(callback);
  };
  let fallback: ReturnType<typeof setTimeout> | undefined;
  const loaded = () => {
    if (hydrated) return run();
    waiting.add(run);
    fallback = setTimeout(run, HYDRATION_WAIT_MS);
  };
  if (document.readyState === 'complete') loaded();
  else window.addEventListener('load', loaded, { once: true });
  return () => {
    done = true;
    waiting.delete(run);
    clearTimeout(fallback);
    window.removeEventListener('load', loaded);
    cancel();
  };
}
