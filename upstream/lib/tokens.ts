import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored only as hashes: a database leak does not hand out sessions or reset links. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export interface AccessClaims {
  sub: string;
  scope: string[];
  exp: number;
}

export async function signAccessToken(secret: string, userId: number, scope: string[], ttlSeconds: number): Promise<string> {
  return new SignJWT({ scope })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(userId))
    .setIssuedAt()
    .setJti(randomToken(9))
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}

export async function verifyAccessToken(secret: string, token: string): Promise<{ claims: AccessClaims } | { error: 'expired' | 'invalid' }> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'] });
    return { claims: { sub: String(payload.sub), scope: Array.isArray(payload.scope) ? (payload.scope as string[]) : [], exp: payload.exp ?? 0 } };
  } catch (error) {
    return { error: (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
  }
}

/** Seals the pair a rotated refresh token hands out again during the grace window. */
export function sealPayload(secret: string, value: string): string {
  const key = createHash('sha256').update('refresh-grace:' + secret).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

export function openPayload(secret: string, sealed: string): string | null {
  try {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    const key = createHash('sha256').update('refresh-grace:' + secret).digest();
    const decipher = createDecipheriv('aes-256-gcm', key, iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

export function hmac(secret: string, ...parts: string[]): string {
  const mac = createHmac('sha256', 'upload:' + secret);
  for (const part of parts) mac.update(part).update('\n');
  return mac.digest('base64url');
}
