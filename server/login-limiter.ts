import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CREDENTIAL_ERROR_CODES } from '../shared/errors.ts';
import { AppError } from './app-error.ts';

const ACCOUNT_WINDOW_MS = 15 * 60_000;
/** Bounds the memory an attacker can make us spend by trying many addresses and accounts. */
const MAX_TRACKED_ACCOUNTS = 50_000;

export interface LoginLimits {
  perIpPerMinute?: number;
  /** Failed attempts per client address and account in 15 minutes; a successful sign-in resets it. */
  perAccountPer15Minutes?: number;
}

export interface LoginGuard {
  /** Throws TOO_MANY_REQUESTS when this client, or this client on this account, has tried too often. */
  check(req: FastifyRequest, email: string): Promise<void>;
  /** Records the outcome of an attempt: only wrong credentials count against the client and account. */
  settle(req: FastifyRequest, email: string, error: unknown): void;
}

function tooMany(seconds: number): AppError {
  return new AppError('TOO_MANY_REQUESTS', 'too_many_attempts', `Too many sign-in attempts. Try again in ${seconds} seconds.`, undefined, true);
}

/**
 * Sign-in attempts are limited per client IP (every attempt) and per client IP and account (failed
 * attempts only). Counting per account alone would let a stranger lock a colleague out by failing on
 * purpose; counted per address and account, a stranger's failures slow only the stranger. The API
 * throttles the same way with exponential backoff, across back-office instances (ADR 018).
 */
export function createLoginGuard(app: FastifyInstance, limits: LoginLimits = {}): LoginGuard {
  const perIp = app.createRateLimit({ max: limits.perIpPerMinute ?? 30, timeWindow: 60_000, keyGenerator: (req) => `login-ip:${req.ip}` });
  const maxFailures = limits.perAccountPer15Minutes ?? 10;
  const failures = new Map<string, { count: number; resetAt: number }>();
  const key = (req: FastifyRequest, email: string) => `${req.ip}|${email.trim().toLowerCase()}`;

  return {
    async check(req, email) {
      const result = await perIp(req);
      // `isAllowed` is only true for allow-listed keys; the verdict is `isExceeded`.
      if (!result.isAllowed && result.isExceeded) throw tooMany(result.ttlInSeconds);
      const pair = key(req, email);
      const entry = failures.get(pair);
      if (entry && entry.resetAt <= Date.now()) failures.delete(pair);
      else if (entry && entry.count >= maxFailures) throw tooMany(Math.ceil((entry.resetAt - Date.now()) / 1000));
    },
    settle(req, email, error) {
      const pair = key(req, email);
      if (!error) {
        failures.delete(pair);
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !CREDENTIAL_ERROR_CODES.includes(code)) return;
      const now = Date.now();
      const entry = failures.get(pair);
      if (entry && entry.resetAt > now) entry.count += 1;
      else {
        // Oldest entries go first when the table is full (a Map iterates in insertion order).
        if (failures.size >= MAX_TRACKED_ACCOUNTS) failures.delete(failures.keys().next().value!);
        failures.set(pair, { count: 1, resetAt: now + ACCOUNT_WINDOW_MS });
      }
    },
  };
}
