import type { FastifyRequest } from 'fastify';

export type Lang = 'en' | 'sv';

/** The language the back office asks in (`Accept-Language`, §7): reference labels follow it. */
export function langOf(req: FastifyRequest): Lang {
  return /^sv\b/i.test(String(req.headers['accept-language'] ?? '').trim()) ? 'sv' : 'en';
}
