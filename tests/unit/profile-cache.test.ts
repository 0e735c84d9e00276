import { describe, expect, it } from 'vitest';
import { createProfileCache } from '../../server/session/profile-cache.ts';

describe('the signed-in user kept per access token', () => {
  it('answers for the same token until it expires, never for another token', () => {
    let now = 1_000;
    const cache = createProfileCache<{ name: string }>({ ttlMs: 30_000, now: () => now });
    cache.set('token-a', '7', { name: 'Ada' });
    expect(cache.get('token-a')).toEqual({ name: 'Ada' });
    expect(cache.get('token-b')).toBeUndefined();
    now += 30_001;
    expect(cache.get('token-a')).toBeUndefined();
  });

  it('forgets a user whose profile changed, on every token of theirs, and everyone on demand', () => {
    const cache = createProfileCache<{ name: string }>();
    cache.set('a1', '7', { name: 'Ada' });
    cache.set('a2', '7', { name: 'Ada' });
    cache.set('b1', '8', { name: 'Bo' });
    cache.forget(7);
    expect([cache.get('a1'), cache.get('a2'), cache.get('b1')]).toEqual([undefined, undefined, { name: 'Bo' }]);
    cache.forgetAll();
    expect(cache.get('b1')).toBeUndefined();
  });

  it('stays within its size, dropping the oldest entries first', () => {
    const cache = createProfileCache<number>({ max: 3 });
    for (let i = 0; i < 5; i++) cache.set(`t${i}`, String(i), i);
    expect([0, 1, 2, 3, 4].map((i) => cache.get(`t${i}`))).toEqual([undefined, undefined, 2, 3, 4]);
  });
});
