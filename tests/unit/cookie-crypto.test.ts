import { describe, expect, it } from 'vitest';
import { createCookieSealer } from '../../server/session/cookie-crypto.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

describe('cookie sealer', () => {
  it('round-trips and hides the value', () => {
    const sealer = createCookieSealer([A]);
    const sealed = sealer.seal('bo_at', 'header.payload.signature');
    expect(sealed).not.toContain('payload');
    expect(sealer.open('bo_at', sealed)).toEqual({ value: 'header.payload.signature', stale: false });
  });

  it('refuses tampering, a value moved to another cookie, and unknown keys', () => {
    const sealer = createCookieSealer([A]);
    const sealed = sealer.seal('bo_at', 'secret');
    const parts = sealed.split('.');
    parts[2] = parts[2]!.slice(0, -2) + (parts[2]!.endsWith('AA') ? 'BB' : 'AA');
    expect(sealer.open('bo_at', parts.join('.'))).toBeNull();
    expect(sealer.open('bo_rt', sealed)).toBeNull();
    expect(createCookieSealer([B]).open('bo_at', sealed)).toBeNull();
    expect(sealer.open('bo_at', 'garbage')).toBeNull();
    expect(sealer.open('bo_at', undefined)).toBeNull();
  });

  it('opens cookies sealed under a retired key and marks them stale for re-issue', () => {
    const old = createCookieSealer([A]).seal('bo_rt', 'refresh');
    const rotated = createCookieSealer([B, A]);
    expect(rotated.open('bo_rt', old)).toEqual({ value: 'refresh', stale: true });
    expect(rotated.open('bo_rt', rotated.seal('bo_rt', 'refresh'))).toEqual({ value: 'refresh', stale: false });
  });

  it('stays well under the 4096-byte cookie limit for a large access token', () => {
    const token = 'x'.repeat(1500);
    expect(createCookieSealer([A]).seal('__Host-bo_at', token).length).toBeLessThan(4096 - 200);
  });
});
