import type { Page, Request } from 'playwright-core';
import { LIVE_PATH } from '../../shared/live.ts';

/** Requests in flight on a page, leaving out the live-updates stream (it never ends). */
export function trackRequests(page: Page) {
  const open = new Set<Request>();
  const counts = (r: Request) => !new URL(r.url()).pathname.startsWith(LIVE_PATH);
  page.on('request', (r) => counts(r) && open.add(r));
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
  /** Until no request has been open for 150 ms and the page has painted since. */
  return async function settled() {
    const deadline = Date.now() + 15_000;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (open.size > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= 150) {
        // The main thread free again (a chunk parsed, a render done) and still nothing asked for.
        await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
        if (open.size === 0) return;
        quietSince = Date.now();
      }
    }
  };
}
