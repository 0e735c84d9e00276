import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './trpc/init.ts';

declare module 'fastify' {
  interface FastifyRequest {
    loginAccount?: string;
  }
}

/**
 * Sign-in attempts are limited per client IP and per account (e-mail), so neither one address trying
 * many accounts nor many addresses trying one account get far. The upstream locks accounts as well.
 */
export function createLoginLimiter(app: FastifyInstance, limits: { perIpPerMinute?: number; perAccountPer15Minutes?: number } = {}) {
  const perIp = app.createRateLimit({ max: limits.perIpPerMinute ?? 30, timeWindow: 60_000, keyGenerator: (req) => `login-ip:${req.ip}` });
  const perAccount = app.createRateLimit({
    max: limits.perAccountPer15Minutes ?? 10,
    timeWindow: 15 * 60_000,
    keyGenerator: (req) => `login-account:${req.loginAccount ?? ''}`,
  });
  return async (req: FastifyRequest, email: string): Promise<void> => {
    req.loginAccount = email.trim().toLowerCase();
    for (const limiter of [perIp, perAccount]) {
      const result = await limiter(req);
      // `isAllowed` is only true for allow-listed keys; the verdict is `isExceeded`.
      if (!result.isAllowed && result.isExceeded) {
        throw new AppError('TOO_MANY_REQUESTS', 'too_many_attempts', `Too many sign-in attempts. Try again in ${result.ttlInSeconds} seconds.`, undefined, true);
      }
    }
  };
}
