import { SignJWT, jwtVerify } from 'jose';
import { randomToken } from './tokens.ts';

export interface AccessClaims {
  sub: string;
  scope: string[];
  exp: number;
  /** The sign-in session (ADR 017); absent in tokens issued before sessions existed. */
  sid?: string;
  /** The user's session version when the token was issued. */
  sv?: number;
  /** The policy requires a second factor the user has not enrolled: only the account's own routes answer (ADR 068). */
  enrol?: true;
}

/** Which sign-in a token belongs to, and the user's session version it was issued under (ADR 017). */
export interface SessionClaims {
  sid: string;
  sv: number;
  enrol?: true;
}

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** HS256 access token: `sub` is the user id as a string, `scope` the user's role names, `sid`/`sv` its session. */
export async function signAccessToken(secret: string, userId: number, scope: string[], ttlSeconds: number, session?: SessionClaims): Promise<string> {
  return new SignJWT({ scope, ...session })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt()
    .setJti(randomToken(9))
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(keyOf(secret));
}

/** `expired` is told apart from `invalid` so clients know a refresh can help (spec §8: 401 → refresh once). */
export async function verifyAccessToken(secret: string, token: string): Promise<{ claims: AccessClaims } | { error: 'expired' | 'invalid' }> {
  try {
    // Pinning the algorithm keeps a token signed with `none` or an asymmetric key from being accepted.
    const { payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || !/^\d+$/.test(payload.sub) || typeof payload.exp !== 'number') return { error: 'invalid' };
    const scope = Array.isArray(payload.scope) ? payload.scope.filter((s): s is string => typeof s === 'string') : [];
    const session = typeof payload.sid === 'string' && Number.isInteger(payload.sv) ? { sid: payload.sid, sv: payload.sv as number } : {};
    return { claims: { sub: payload.sub, scope, exp: payload.exp, ...session, ...(payload.enrol === true ? { enrol: true as const } : {}) } };
  } catch (error) {
    return { error: (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
  }
}
