import { rolesFromScope, isExpired, type Role } from '../../shared/roles.ts';

export interface TokenPair {
  token: string;
  refresh_token: string;
}

export interface AccessClaims {
  sub?: string;
  scope: unknown;
  exp?: number;
  iat?: number;
  /** The sign-in session (ADR 017). */
  sid?: unknown;
  /** The policy requires a second factor this user has not enrolled (ADR 068). */
  enrol?: unknown;
}

/**
 * Reads the access token's claims without verifying the signature: the token came straight from
 * the upstream over our own connection and has lived only inside an encrypted, signed cookie,
 * and the upstream verifies it on every call anyway. The claims only shape the UI and guards.
 */
export function decodeAccessToken(token: string): AccessClaims | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (!claims || typeof claims !== 'object') return null;
    return claims as AccessClaims;
  } catch {
    return null;
  }
}

export interface SessionInfo {
  userId: string | null;
  roles: Role[];
  exp: number | undefined;
  /** Lifetime of the token in seconds (exp − iat), when both are present. */
  lifetime: number | undefined;
  /** Spec §6: a token whose exp is in the past is flagged Expired. */
  expired: boolean;
  /** Only enrolling a second factor is open to this sign-in (ADR 068). */
  enrol: boolean;
}

/**
 * What a token's claims say, remembered per token (ADR 070): a session sends the same access token on every
 * request until it is refreshed, and decoding it (base64, JSON, the roles) was redone on each. Bounded, the oldest
 * out first; only whether it has expired is worked out again on every call.
 */
const CLAIMS_CACHE_SIZE = 10_000;
const readClaims = new Map<string, Omit<SessionInfo, 'expired'>>();

function claimsOf(token: string): Omit<SessionInfo, 'expired'> {
  const known = readClaims.get(token);
  if (known) return known;
  const claims = decodeAccessToken(token);
  const read = {
    userId: claims?.sub ?? null,
    roles: rolesFromScope(claims?.scope),
    exp: typeof claims?.exp === 'number' ? claims.exp : undefined,
    lifetime: typeof claims?.exp === 'number' && typeof claims.iat === 'number' ? claims.exp - claims.iat : undefined,
    enrol: claims?.enrol === true,
  };
  if (readClaims.size >= CLAIMS_CACHE_SIZE) readClaims.delete(readClaims.keys().next().value!);
  readClaims.set(token, read);
  return read;
}

export function sessionInfoOf(token: string, nowMs = Date.now()): SessionInfo {
  const read = claimsOf(token);
  return { ...read, roles: [...read.roles], expired: isExpired(read.exp, nowMs) };
}

/** The sign-in session an access token belongs to (its `sid`), if it names one. */
export function sessionIdOf(token: string | null): string | null {
  const sid = token ? decodeAccessToken(token)?.sid : undefined;
  return typeof sid === 'string' && sid.length > 0 ? sid : null;
}

export function isTokenPair(value: unknown): value is TokenPair {
  const v = value as Partial<TokenPair> | null;
  return !!v && typeof v.token === 'string' && typeof v.refresh_token === 'string' && v.token.length > 0 && v.refresh_token.length > 0;
}
