import { describe, expect, it } from 'vitest';
import { loadEnv } from '../../server/env.ts';
import { inProcessUpstreamOptions } from '../../server/in-process-upstream.ts';
import { trustedProxiesField } from '../../shared/env-fields.server.ts';
import { loadUpstreamEnv } from '../../upstream/env.ts';
import { addressKey } from '../../upstream/lib/throttle.ts';

const production = { NODE_ENV: 'production', UPSTREAM_URL: 'https://api.example.com/api/', COOKIE_SECRETS: 'x'.repeat(40) };

describe('environment', () => {
  it('names the variable that is wrong', () => {
    expect(() => loadEnv({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadEnv({ COOKIE_SECRETS: 'short' })).toThrow(/COOKIE_SECRETS: each cookie secret needs at least 32 characters/);
  });

  it('refuses a production API without an https PUBLIC_URL, so cookies are never sent without Secure', () => {
    expect(() => loadEnv(production)).toThrow(/PUBLIC_URL: must be an https:\/\/ address in production/);
    expect(() => loadEnv({ ...production, PUBLIC_URL: 'http://backoffice.example.com' })).toThrow(/PUBLIC_URL/);
    expect(loadEnv({ ...production, PUBLIC_URL: 'https://backoffice.example.com' }).PUBLIC_URL).toBe('https://backoffice.example.com');
    expect(loadEnv({ ...production, ALLOW_INSECURE_COOKIES: 'true' }).ALLOW_INSECURE_COOKIES).toBe(true);
    // A loopback address is a local run (tests, a developer's machine), not a deployment.
    expect(loadEnv({ ...production, PUBLIC_URL: 'http://127.0.0.1:3100' }).PUBLIC_URL).toBe('http://127.0.0.1:3100');
    expect(loadEnv({ ...production, PUBLIC_URL: 'http://localhost:3000' }).PUBLIC_URL).toBe('http://localhost:3000');
    expect(() => loadEnv({ ...production, PUBLIC_URL: 'http://127.0.0.1.example.com' })).toThrow(/PUBLIC_URL/);
    // The local demo (`npm start`: production build, in-process API) runs on plain http://localhost.
    expect(loadEnv({ NODE_ENV: 'production' }).PUBLIC_URL).toBeUndefined();
  });

  it('in production, a HOST other than loopback needs an https PUBLIC_URL, with or without UPSTREAM_URL (ADR 029)', () => {
    const container = { NODE_ENV: 'production', HOST: '0.0.0.0' };
    // The Dockerfile's defaults alone: the in-process API, reachable from outside, over plain http.
    expect(() => loadEnv(container)).toThrow(/PUBLIC_URL: must be an https:\/\/ address in production when HOST \(0\.0\.0\.0\) is not a loopback address/);
    expect(() => loadEnv({ ...container, HOST: '::' })).toThrow(/PUBLIC_URL/);
    expect(() => loadEnv({ ...container, HOST: '10.1.2.3' })).toThrow(/PUBLIC_URL/);
    expect(() => loadEnv({ ...container, PUBLIC_URL: 'http://backoffice.example.com' })).toThrow(/PUBLIC_URL/);
    // Others reach a non-loopback HOST: a loopback PUBLIC_URL does not make that traffic local.
    expect(() => loadEnv({ ...container, PUBLIC_URL: 'http://localhost:3000' })).toThrow(/PUBLIC_URL/);
    expect(() => loadEnv({ ...container, ...production, PUBLIC_URL: 'http://localhost:3000' })).toThrow(/PUBLIC_URL/);
    expect(loadEnv({ ...container, PUBLIC_URL: 'https://backoffice.example.com' }).HOST).toBe('0.0.0.0');
    // The explicit escape hatch stays.
    expect(loadEnv({ ...container, ALLOW_INSECURE_COOKIES: 'true' }).ALLOW_INSECURE_COOKIES).toBe(true);
    // Loopback HOSTs are local runs; development and tests bind wherever they like.
    for (const HOST of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(loadEnv({ NODE_ENV: 'production', HOST }).HOST).toBe(HOST);
    expect(loadEnv({ NODE_ENV: 'development', HOST: '0.0.0.0' }).HOST).toBe('0.0.0.0');
  });

  it("starts the in-process API on loopback whatever HOST says, with its files on the back office's address (ADR 029)", () => {
    const container = { NODE_ENV: 'production', HOST: '0.0.0.0', PUBLIC_URL: 'https://backoffice.example.com/' };
    const options = inProcessUpstreamOptions(loadEnv(container), { root: '/app', publicUrl: 'https://backoffice.example.com/', logger: false });
    expect(options.host).toBe('127.0.0.1');
    expect(options.config?.publicOrigin).toBe('https://backoffice.example.com');
    const local = inProcessUpstreamOptions(loadEnv({}), { root: '/app', publicUrl: 'http://localhost:3000', logger: false });
    expect(local.host).toBe('127.0.0.1');
    expect(local.config?.publicOrigin).toBe('http://localhost:3000');
    // UPLOAD_PUBLIC_ORIGIN still names another address when files are served from elsewhere.
    const elsewhere = inProcessUpstreamOptions(loadEnv({ ...container, UPLOAD_PUBLIC_ORIGIN: 'https://files.example.com' }), {
      root: '/app',
      publicUrl: 'https://backoffice.example.com',
      logger: false,
    });
    expect(elsewhere.config?.publicOrigin).toBe('https://files.example.com');
  });

  it("keeps the in-process API's change history head beside its data unless AUDIT_HEAD_FILE says where (ADR 059)", () => {
    const opts = { root: '/app', publicUrl: 'http://localhost:3000', logger: false } as const;
    expect(inProcessUpstreamOptions(loadEnv({}), opts).config?.auditHeadFile).toBe('/app/data/pglite-audit-head.json');
    expect(inProcessUpstreamOptions(loadEnv({ DATABASE_URL: 'postgres://db/bike' }), opts).config?.auditHeadFile).toBe('/app/data/audit-head.json');
    expect(inProcessUpstreamOptions(loadEnv({ AUDIT_HEAD_FILE: '/var/lib/audit/head.json' }), opts).config?.auditHeadFile).toBe('/var/lib/audit/head.json');
  });

  it('passes SEED_DEMO through only when it is set', () => {
    expect(loadEnv({}).SEED_DEMO).toBeUndefined();
    expect(loadEnv({ SEED_DEMO: '' }).SEED_DEMO).toBeUndefined();
    expect(loadEnv({ SEED_DEMO: 'true' }).SEED_DEMO).toBe(true);
    expect(loadEnv({ SEED_DEMO: 'false' }).SEED_DEMO).toBe(false);
    expect(() => loadEnv({ SEED_DEMO: 'maybe' })).toThrow(/SEED_DEMO/);
  });

  it('reads a variable the back office and the reference API share the same way in both (ADR 030)', () => {
    const both = (source: NodeJS.ProcessEnv) => [loadEnv(source), loadUpstreamEnv(source)] as const;
    for (const [value, flag] of [
      ['yes', true],
      ['1', true],
      ['on', true],
      ['no', false],
      ['0', false],
      ['off', false],
    ] as const) {
      const [server, upstream] = both({ SEED_DEMO: value });
      expect([server.SEED_DEMO, upstream.SEED_DEMO]).toEqual([flag, flag]);
    }
    for (const source of [{ SEED_DEMO: 'maybe' }, { DATABASE_URL: 'mysql://db' }, { DEMO_PASSWORD: 'ab' }, { LOG_LEVEL: 'loud' }, { OPERATION_RADIUS_METRES: '-1' }]) {
      const name = Object.keys(source)[0]!;
      expect(() => loadEnv(source), name).toThrow(new RegExp(name));
      expect(() => loadUpstreamEnv(source), name).toThrow(new RegExp(name));
    }
    const [server, upstream] = both({ DATABASE_URL: 'postgres://db/app', OPERATION_RADIUS_METRES: '5000', LOG_LEVEL: '' });
    expect([server.DATABASE_URL, server.OPERATION_RADIUS_METRES, server.LOG_LEVEL]).toEqual([upstream.DATABASE_URL, upstream.OPERATION_RADIUS_METRES, upstream.LOG_LEVEL]);
    expect(upstream.PORT).toBe(4010);
    expect(loadUpstreamEnv({ PORT: '' }).PORT).toBe(4010);
  });

  it('reads the render limits (ADR 029)', () => {
    expect(loadEnv({}).SSR_RENDER_TIMEOUT_MS).toBe(15_000);
    expect(loadEnv({ SSR_RENDER_TIMEOUT_MS: '2500' }).SSR_RENDER_TIMEOUT_MS).toBe(2500);
    expect(loadEnv({ SSR_RENDER_TIMEOUT_MS: '0' }).SSR_RENDER_TIMEOUT_MS).toBe(0);
    expect(() => loadEnv({ SSR_RENDER_TIMEOUT_MS: 'soon' })).toThrow(/SSR_RENDER_TIMEOUT_MS/);
    expect(() => loadEnv({ SSR_RENDER_TIMEOUT_MS: '-1' })).toThrow(/SSR_RENDER_TIMEOUT_MS/);
    expect(loadEnv({}).SSR_WORKER_HEAP_MB).toBe(256);
    expect(() => loadEnv({ SSR_WORKER_HEAP_MB: '8' })).toThrow(/SSR_WORKER_HEAP_MB/);
  });

  it("reads the session lifetime and the API's trusted proxies (ADR 017, 018)", () => {
    expect(loadEnv({}).SESSION_MAX_AGE_DAYS).toBe(30);
    expect(loadEnv({ SESSION_MAX_AGE_DAYS: '7' }).SESSION_MAX_AGE_DAYS).toBe(7);
    expect(() => loadEnv({ SESSION_MAX_AGE_DAYS: '0' })).toThrow(/SESSION_MAX_AGE_DAYS/);
    expect(trustedProxiesField.parse('loopback, 10.0.0.0/8, ::1')).toEqual(['loopback', '10.0.0.0/8', '::1']);
    expect(trustedProxiesField.parse('none')).toEqual([]);
    expect(trustedProxiesField.safeParse('proxy.example.com').success).toBe(false);
    // The back office: `true` believes one proxy (the address it appends), never whatever a client sends.
    expect(loadEnv({}).TRUST_PROXY).toBe(false);
    expect(loadEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(1);
    expect(loadEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadEnv({ TRUST_PROXY: '10.0.0.0/8,loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(() => loadEnv({ TRUST_PROXY: 'yes please' })).toThrow(/TRUST_PROXY/);
  });

  it('counts a client by its IPv4 address, an IPv6 client by its /64', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:aa:bb:1:2:3:4')).toBe('2001:db8:aa:bb::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:0db8:00aa:00bb::ffff')).toBe(addressKey('2001:db8:aa:bb:9:9:9:9'));
  });
});
