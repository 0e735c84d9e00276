import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../shared/request-log.server.ts';

describe('request paths in logs', () => {
  it('drop query strings and the one-time tokens (and e-mail addresses) of public links', () => {
    expect(loggablePath('/files/upload/bicycle/x.png?expires=1&sig=abc')).toBe('/files/upload/bicycle/x.png');
    expect(loggablePath('/reset-password/nNAugSecretToken')).toBe('/reset-password/[redacted]');
    expect(loggablePath('/accept-invitation/KFgMSecret?x=1')).toBe('/accept-invitation/[redacted]');
    expect(loggablePath('/confirm-email/tok/someone%40example.com')).toBe('/confirm-email/[redacted]');
    expect(loggablePath('/users/12')).toBe('/users/12');
  });
});
