/**
 * Work the first screen does not need (ADR 048): run when the browser is idle, or, with `afterLoad`, once the
 * page has loaded (the `load` event: its images, styles and scripts are in) and the browser is idle, so it
 * never competes with hydration and the first taps. A browser without `requestIdleCallback` waits a moment.
 */
export function whenIdle(callback: () => void): () => void {
  if (window.requestIdleCallback) {
    const handle = window.requestIdleCallback(callback);
    return () => window.cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, 200);
  return () => clearTimeout(timer);
}

export function afterLoad(callback: () => void): () => void {
  if (document.readyState === 'complete') return whenIdle(callback);
  let cancel = () => {};
  const onLoad = () => (cancel = whenIdle(callback));
  window.addEventListener('load', onLoad, { once: true });
  return () => {
    window.removeEventListener('load', onLoad);
    cancel();
  };
}
