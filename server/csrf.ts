import type { FastifyRequest } from 'fastify';

import { CSRF_HEADER } from '../shared/http-headers.ts';

/** Same-origin evidence from the browser: Fetch Metadata first, Origin as the fallback. */
export function isCrossSite(req: FastifyRequest): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    try {
      return new URL(origin).host !== req.headers.host;
    } catch {
      return true;
    }
  }
  return origin === 'null';
}

/**
 * State-changing calls must carry our custom header (a cross-site form or simple request
 * cannot set it), be JSON, and not come from another site.
 */
export function csrfRefusal(req: FastifyRequest): string | null {
  if (isCrossSite(req)) return 'cross-site request';
  if (req.headers[CSRF_HEADER] !== '1') return 'missing CSRF header';
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return 'mutations accept only application/json';
  return null;
}
