import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored only as hashes: a database leak does not hand out sessions or reset links. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Seals the pair a rotated refresh token hands out again during the grace window. */
export function sealPayload(secret: string, value: string): string {
  const key = createHash('sha256')
    .update('refresh-grace:' + secret)
    .digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

export function openPayload(secret: string, sealed: string): string | null {
  try {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    const key = createHash('sha256')
      .update('refresh-grace:' + secret)
      .digest();
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
