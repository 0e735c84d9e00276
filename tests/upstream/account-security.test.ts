import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { signAccessToken } from '../../upstream/lib/jwt.ts';
import { hashToken, randomToken } from '../../upstream/lib/tokens.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * Issue 12, accounts and sessions (ADR 017, 018): one answer to failed sign-ins, throttling that slows the
 * guesser and never the account, sessions that end at once, invitations that can be canceled, reset links
 * that do not outlive a reset, the API's own guards, and an Admin that always remains.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };
let up: Upstream;

beforeAll(async () => {
  // No background job: the ADR 052 tests record every statement the database runs and must see only their requests'.
  up = await startUpstream({
    port: 0,
    demoPassword: DEMO_PASSWORD,
    logger: testLogger('upstream-security'),
    config: { scryptCost: 1024, logMailLinks: false },
    backgroundJobs: false,
  });
});
afterAll(async () => {
  await up?.close();
});

interface CallInit {
  method?: string;
  body?: unknown;
  token?: string;
  /** The client address the back office would forward (the test runs on loopback, a trusted proxy, and knows the secret). */
  ip?: string;
  /** Sends `ip` without the back office's secret (another local process, ADR 028). */
  withoutSecret?: boolean;
}

async function call(path: string, init: CallInit = {}, target: Upstream = up): Promise<{ status: number; body: Body; text: string; headers: Headers }> {
  const res = await fetch(target.url + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.ip ? { 'x-forwarded-for': init.ip } : {}),
      ...(init.ip && !init.withoutSecret ? { 'x-forwarded-secret': target.config.forwardedSecret! } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Body, text, headers: res.headers };
}

/** A POST from another real client address (all of 127.0.0.0/8 is this machine); answers the status. */
function statusFrom(localAddress: string, url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A distinct client address per test, so throttling in one test never leaks into another. */
let nextAddress = 10;
const freshIp = () => `198.51.100.${nextAddress++}`;

async function login(email: string, password = DEMO_PASSWORD, ip = freshIp()): Promise<{ token: string; refresh_token: string }> {
  const res = await call('account/login', { body: { email, password }, ip });
  expect(res.body.error).toBeNull();
  return res.body.data;
}
const attempt = (email: string, password: string, ip: string, target?: Upstream) => call('account/login', { body: { email, password }, ip }, target);
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; scope: string[]; sid: string; sv: number };
const userId = async (email: string) => Number((await up.db.query<{ id: number }>('select id from users where lower(email) = lower($1)', [email])).rows[0]!.id);
const lastLink = async (email: string, kind: 'invite' | 'reset') =>
  (await up.db.query<{ link: string }>('select link from outbox where lower(to_email) = lower($1) and kind = $2 order by id desc limit 1', [email, kind])).rows[0]?.link ?? null;
const tokenOf = (link: string | null) => link!.split('/').pop()!;
const outboxCount = async () => (await up.db.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n;

async function adminToken(): Promise<string> {
  return (await login('admin@example.com')).token;
}

async function userRecord(id: number, token: string) {
  return (await call(`users/${id}/`, { token })).body.data;
}

/** An invited user with a password set directly: invitations are tested on their own below. */
async function inviteAndAccept(email: string, roles: string[], admin: string): Promise<number> {
  expect((await call('users/invite/', { token: admin, body: { email, roles } })).status).toBe(200);
  const accepted = await call('account/accept-invite', { body: { token: tokenOf(await lastLink(email, 'invite')), password: 'chosen-pass', password_confirm: 'chosen-pass' } });
  expect(accepted.status).toBe(200);
  return userId(email);
}

describe('M4: one answer for every failed sign-in', () => {
  it('answers an unknown address, a wrong password, an invited user and a canceled invitation byte for byte alike', async () => {
    const admin = await adminToken();
    await call('users/invite/', { token: admin, body: { email: 'm4.pending@example.com' } });
    await call('users/invite/', { token: admin, body: { email: 'm4.canceled@example.com' } });
    expect((await call(`users/${await userId('m4.canceled@example.com')}/cancel-invite/`, { token: admin, body: {} })).status).toBe(200);

    const answers = await Promise.all(
      ['nobody.at.all@example.com', 'admin@example.com', 'm4.pending@example.com', 'm4.canceled@example.com'].map((email) => attempt(email, 'not-the-password', freshIp())),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.text).toBe(answers[0]!.text);
    }
    expect(answers[0]!.body.error).toEqual({ message: 'wrong_password', cause: 'Invalid credentials.' });
  });
});

describe('M2 and L3: throttling per client address and account, never a lockout', () => {
  it('slows the address that guesses (2^n backoff) while the real user signs in from another address', async () => {
    const stranger = freshIp();
    const statuses: number[] = [];
    let firstRefusal: Awaited<ReturnType<typeof attempt>> | null = null;
    for (let i = 0; i < 50; i++) {
      const res = await attempt('admin@example.com', `guess-${i}`, stranger);
      statuses.push(res.status);
      if (res.status === 429 && !firstRefusal) firstRefusal = res;
    }
    // Five free failures, then each attempt waits: nearly all of the 50 are refused before any hashing.
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(statuses[5]).toBe(429);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(40);
    expect(firstRefusal!.body.error).toEqual({ message: 'too_many_attempts', cause: 'Too many failed sign-in attempts. Try again later.' });
    expect(Number(firstRefusal!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Even the right password waits at the stranger's address…
    expect((await attempt('admin@example.com', DEMO_PASSWORD, stranger)).status).toBe(429);
    // …while the real user, at theirs, is not affected at all.
    expect((await attempt('admin@example.com', DEMO_PASSWORD, freshIp())).status).toBe(200);
  });

  it('doubles the wait after each further failure, up to the cap', async () => {
    const ip = freshIp();
    const waitAfterFailing = async () => {
      expect((await attempt('buddy@example.com', 'nope', ip)).status).toBe(400);
      const refused = await attempt('buddy@example.com', 'nope', ip);
      expect(refused.status).toBe(429);
      const seconds = Number(refused.headers.get('retry-after'));
      // Time passes (moved in the database rather than waited for).
      await up.db.query("update throttle set last_at = last_at - make_interval(secs => $2) where scope = 'login' and key like $1 || '|%'", [ip, seconds]);
      return seconds;
    };
    for (let i = 0; i < 4; i++) expect((await attempt('buddy@example.com', 'nope', ip)).status).toBe(400);
    expect([await waitAfterFailing(), await waitAfterFailing(), await waitAfterFailing(), await waitAfterFailing()]).toEqual([1, 2, 4, 8]);
    await up.db.query("update throttle set count = 100 where scope = 'login' and key like $1 || '|%'", [ip]);
    expect(Number((await attempt('buddy@example.com', 'nope', ip)).headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    // A correct password from the address, once allowed, starts it over.
    await up.db.query("update throttle set last_at = now() - interval '1 hour' where scope = 'login' and key like $1 || '|%'", [ip]);
    expect((await attempt('buddy@example.com', DEMO_PASSWORD, ip)).status).toBe(200);
    expect((await attempt('buddy@example.com', 'nope', ip)).status).toBe(400);
  });

  it('throttles an unknown address exactly like a real one (keyed by the address as typed, not the user)', async () => {
    const ip = freshIp();
    const refusals = [];
    for (const email of ['ghost.m2@example.com', 'shop@example.com']) {
      for (let i = 0; i < 5; i++) await attempt(email, 'wrong', ip);
      refusals.push(await attempt(email, 'wrong', ip));
    }
    expect(refusals.map((r) => r.status)).toEqual([429, 429]);
    expect(refusals[1]!.text).toBe(refusals[0]!.text);
  });

  it('limits one address across accounts, and successful sign-ins do not use up its allowance', async () => {
    const office = freshIp();
    for (let i = 0; i < 25; i++) expect((await attempt('shop@example.com', DEMO_PASSWORD, office)).status).toBe(200);
    const sprayer = freshIp();
    for (let i = 0; i < 20; i++) expect((await attempt(`spray-${i}@example.com`, 'Summer2024', sprayer)).status).toBe(400);
    expect((await attempt('spray-new@example.com', 'Summer2024', sprayer)).status).toBe(429);
  });

  it('believes X-Forwarded-For only from a trusted proxy: a direct client cannot pick its address', async () => {
    const direct = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-untrusted'), config: { scryptCost: 1024, trustedProxies: [] } });
    try {
      for (let i = 0; i < 5; i++) expect((await attempt('admin@example.com', 'wrong', `203.0.113.${i}`, direct)).status).toBe(400);
      // Every "address" was really this one peer: the sixth is slowed whatever the header claims…
      expect((await attempt('admin@example.com', DEMO_PASSWORD, '203.0.113.99', direct)).status).toBe(429);
      // …while a client that really is elsewhere signs in to the same account.
      expect(await statusFrom('127.0.0.2', direct.url + 'account/login', { email: 'admin@example.com', password: DEMO_PASSWORD })).toBe(200);
    } finally {
      await direct.close();
    }
  });

  it("N6: believes X-Forwarded-For only with the back office's secret: another local process cannot throttle a chosen address", async () => {
    const victim = freshIp();
    // A process on this machine (a trusted address) claims to be the victim's address, without the secret…
    for (let i = 0; i < 6; i++) await call('account/login', { body: { email: 'shop@example.com', password: `guess-${i}` }, ip: victim, withoutSecret: true });
    const forged = await fetch(up.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': victim, 'x-forwarded-secret': 'not-the-secret-not-the-secret-not-the' },
      body: JSON.stringify({ email: 'shop@example.com', password: 'guess-x' }),
    });
    expect(forged.status).not.toBe(200);
    // …and the victim, whose address the back office forwards with the secret, is not slowed at all.
    expect((await attempt('shop@example.com', DEMO_PASSWORD, victim)).status).toBe(200);
    // The guesses were counted where they came from: this machine's own address.
    expect((await up.db.query("select 1 from throttle where scope = 'login' and key = '127.0.0.1|shop@example.com'")).rows).toHaveLength(1);
    await up.db.query("delete from throttle where key like '127.0.0.1%'");
  });

  it('keeps /openapi.json for Admin tokens and the users list for Admin and BuddyShop (Shop alone gets 403)', async () => {
    const admin = await adminToken();
    expect((await fetch(up.origin + '/openapi.json')).status).toBe(401);
    expect((await fetch(up.origin + '/openapi.json', { headers: { authorization: `Bearer ${(await login('buddy@example.com')).token}` } })).status).toBe(403);
    const doc = await fetch(up.origin + '/openapi.json', { headers: { authorization: `Bearer ${admin}` } });
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { paths: object }).paths).toBeTruthy();

    await inviteAndAccept('shop.only@example.com', ['Shop'], admin);
    const shopOnly = (await login('shop.only@example.com', 'chosen-pass')).token;
    expect(claimsOf(shopOnly).scope).toEqual(['Shop']);
    expect(await call('users/', { token: shopOnly })).toMatchObject({ status: 403, body: { error: { message: 'forbidden' } } });
    expect((await call('users/', { token: (await login('buddy@example.com')).token })).status).toBe(403);
    expect((await call('users/', { token: (await login('shop@example.com')).token })).status).toBe(200);
    expect((await call('users/', { token: admin })).status).toBe(200);
  });

  it('N4: the buddies list (e-mails, phones) follows the users list rule: Shop alone and Buddy alone get 403', async () => {
    const admin = await adminToken();
    await inviteAndAccept('n4.shop@example.com', ['Shop'], admin);
    const shopOnly = (await login('n4.shop@example.com', 'chosen-pass')).token;
    expect(await call('buddies/', { token: shopOnly })).toMatchObject({ status: 403, body: { error: { message: 'forbidden' } } });
    expect((await call('buddies/', { token: (await login('buddy@example.com')).token })).status).toBe(403);
    expect((await call('buddies/', { token: (await login('shop@example.com')).token })).status).toBe(200);
    expect((await call('buddies/', { token: admin })).body.data.results.length).toBeGreaterThan(0);
  });

  it('`npm run upstream` listens on loopback unless HOST says otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upstream-host-'));
    const { HOST: _host, ...inherited } = process.env;
    const child = spawn(process.execPath, ['upstream/main.ts'], {
      env: { ...inherited, PORT: '0', UPSTREAM_DATA_DIR: join(dir, 'pglite'), UPSTREAM_UPLOAD_DIR: join(dir, 'uploads'), SEED_DEMO: 'false', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const found = /listening on (\S+)/.exec(out);
          if (found) resolve(found[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(new URL(url).hostname).toBe('127.0.0.1');
      expect((await fetch(new URL('/healthz', url))).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('M5: sessions end at once', () => {
  it('refuses an access token captured before logout, immediately', async () => {
    const pair = await login('buddy@example.com');
    expect((await call('account/', { token: pair.token })).status).toBe(200);
    expect((await call('account/logout', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
    expect(await call('account/', { token: pair.token })).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
  });

  it('ends every session of a deactivated user at once; other users keep theirs', async () => {
    const admin = await adminToken();
    const id = await inviteAndAccept('m5.deactivated@example.com', ['Buddy'], admin);
    const first = await login('m5.deactivated@example.com', 'chosen-pass');
    const second = await login('m5.deactivated@example.com', 'chosen-pass');
    const other = await login('buddy@example.com');
    const user = await userRecord(id, admin);
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...user, is_active: false } })).status).toBe(200);
    for (const pair of [first, second]) {
      expect((await call('account/', { token: pair.token })).status).toBe(401);
      expect((await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).status).toBe(401);
    }
    expect((await call('account/', { token: other.token })).status).toBe(200);
  });

  it('a role change outdates the tokens issued before; a refresh carries the new roles', async () => {
    const admin = await adminToken();
    const id = await inviteAndAccept('m5.roles@example.com', ['Buddy', 'Shop'], admin);
    const pair = await login('m5.roles@example.com', 'chosen-pass');
    expect((await call('users/', { token: pair.token })).status).toBe(200);
    expect((await call(`users/${id}/roles/Shop/`, { method: 'DELETE', token: admin })).status).toBe(200);
    expect(await call('users/', { token: pair.token })).toMatchObject({ status: 401, body: { error: { message: 'token_expired' } } });
    const refreshed = (await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).body.data;
    expect(claimsOf(refreshed.token).scope).toEqual(['Buddy']);
    expect((await call('users/', { token: refreshed.token })).status).toBe(403);
    expect((await call('account/', { token: refreshed.token })).status).toBe(200);
    // Adding a role works the same way.
    expect((await call(`users/${id}/roles/`, { token: admin, body: { role: 'Shop' } })).status).toBe(200);
    expect((await call('account/', { token: refreshed.token })).status).toBe(401);
    const again = (await call('account/refresh-token', { body: { refresh_token: refreshed.refresh_token } })).body.data;
    expect(claimsOf(again.token).scope).toEqual(['Buddy', 'Shop']);
    // A link change that is not a role (a language) leaves tokens alone.
    expect((await call(`users/${id}/languages/`, { token: admin, body: { language_id: 1 } })).status).toBe(200);
    expect((await call('account/', { token: again.token })).status).toBe(200);
  });

  it('a password reset ends every session of the user at once', async () => {
    const pair = await login('user@example.com');
    expect((await call('account/', { token: pair.token })).status).toBe(200);
    await call('account/forgot-password', { body: { email: 'user@example.com' }, ip: freshIp() });
    const token = tokenOf(await lastLink('user@example.com', 'reset'));
    expect((await call('account/reset-password', { body: { token, password: DEMO_PASSWORD, password_confirm: DEMO_PASSWORD } })).status).toBe(200);
    expect(await call('account/', { token: pair.token })).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
  });

  it('refuses a token without a session (issued before sessions existed) so that it gets refreshed', async () => {
    const legacy = await signAccessToken(up.config.jwtSecret, await userId('admin@example.com'), ['Admin'], 900);
    expect(await call('account/', { token: legacy })).toMatchObject({ status: 401, body: { error: { message: 'token_expired' } } });
    const pair = await login('admin@example.com');
    const claims = claimsOf(pair.token);
    const forged = await signAccessToken(up.config.jwtSecret, await userId('buddy@example.com'), ['Admin'], 900, { sid: claims.sid, sv: claims.sv });
    // Someone else's session id does not make a token valid for another user.
    expect((await call('account/', { token: forged })).status).toBe(401);
  });
});

// PGlite runs one statement at a time; on PostgreSQL (TEST_DATABASE_URL) the list's statements really run
// beside the session check.
const adminUrl = process.env.TEST_DATABASE_URL;
describe.each([['PGlite', null], ...(adminUrl ? [['PostgreSQL', adminUrl]] : [])] as [string, string | null][])(
  'ADR 052 (%s): a list reads beside its session check, and answers only after it',
  (_backend, serverUrl) => {
    let pglite: Upstream | undefined;
    let server: { admin: pg.Client; name: string } | undefined;
    beforeAll(async () => {
      if (!serverUrl) return;
      const name = `up_gate_${process.pid}_${Date.now()}`;
      const created = await createTestDatabase(serverUrl, name);
      server = { admin: created.admin, name };
      pglite = up;
      up = await startUpstream({
        port: 0,
        databaseUrl: created.url,
        seedDemo: true,
        demoPassword: DEMO_PASSWORD,
        logger: testLogger('upstream-security-pg'),
        config: { scryptCost: 1024, logMailLinks: false },
        backgroundJobs: false,
      });
    }, 60_000);
    afterAll(async () => {
      if (!pglite || !server) return;
      await up.close();
      up = pglite;
      await server.admin.query(`drop database ${server.name}`);
      await server.admin.end();
    });

    /** Makes the API's session check answer `ms` late, noting when it answered and which statements started before. */
    function slowChecks(ms: number) {
      const original = up.app.checkSession;
      const log: string[] = [];
      const query = up.db.query;
      up.db.query = ((sql: string, params?: readonly unknown[], ...rest: unknown[]) => {
        log.push(sql.replace(/\s+/g, ' ').slice(0, 60));
        return (query as (...args: unknown[]) => unknown).call(up.db, sql, params, ...rest);
      }) as typeof up.db.query;
      up.app.checkSession = async (...args: Parameters<typeof original>) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        log.push('session checked');
        return original.apply(up.app, args);
      };
      return {
        log,
        restore: () => {
          up.app.checkSession = original;
          up.db.query = query;
        },
      };
    }
    const refused = (res: Awaited<ReturnType<typeof call>>, message = 'session_ended') => {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, data: null, error: { message } });
      expect(res.text).not.toContain('results');
    };

    it('a revoked session gets its 401 and no rows from every list, though the rows were read before the check answered', async () => {
      const pair = await login('admin@example.com');
      const lists = [
        'bicycles/?page=1&page_size=10',
        'users/?page=1&page_size=10',
        'buddies/?page=1',
        'services/?page=1&search=a',
        'bicycles/calendar/?from=2020-01-01&to=2020-01-31',
      ];
      const before = await call(lists[0]!, { token: pair.token });
      expect(before.body.data.results.length).toBeGreaterThan(0);
      expect((await call('account/logout', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
      const slow = slowChecks(150);
      try {
        for (const path of lists) refused(await call(path, { token: pair.token }));
        // The overlap is real: the list's statements started before the check answered…
        const first = slow.log.indexOf('session checked');
        expect(slow.log.slice(0, first).some((sql) => /bicycles/.test(sql))).toBe(true);
        // …and a handler's own refusal (a bad sort) is answered as the session's, not as what the handler found.
        refused(await call('bicycles/?ordering=not_a_column', { token: pair.token }));
      } finally {
        slow.restore();
      }
    });

    it('a role refused by the token and a session outdated by a role change wait for the check too', async () => {
      const pair = await login('user@example.com');
      expect((await call('bicycles/', { token: pair.token })).status).toBe(403);
      expect((await call('account/logout', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
      const slow = slowChecks(50);
      try {
        refused(await call('bicycles/', { token: pair.token }));
      } finally {
        slow.restore();
      }
      const admin = await adminToken();
      const id = await inviteAndAccept('adr052.roles@example.com', ['Buddy', 'Shop'], admin);
      const outdated = await login('adr052.roles@example.com', 'chosen-pass');
      expect((await call('users/?page=1', { token: outdated.token })).status).toBe(200);
      expect((await call(`users/${id}/roles/Shop/`, { method: 'DELETE', token: admin })).status).toBe(200);
      refused(await call('users/?page=1', { token: outdated.token }), 'token_expired');
    });

    it('a write never starts before the check passed: a revoked session writes nothing', async () => {
      const pair = await login('admin@example.com');
      const count = async () => (await up.db.query<{ n: number }>("select count(*)::int as n from languages where code = 'zz1'")).rows[0]!.n;
      expect((await call('account/logout', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
      const slow = slowChecks(150);
      try {
        const res = await call('languages/', { token: pair.token, body: { code: 'zz1', name: 'Adr 052', native_name: 'Adr 052' } });
        expect(res).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
        // Nothing ran before the check answered.
        expect(slow.log[0]).toBe('session checked');
      } finally {
        slow.restore();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await count()).toBe(0);
      // The same write with a session that stands is done.
      expect((await call('languages/', { token: await adminToken(), body: { code: 'zz1', name: 'Adr 052', native_name: 'Adr 052' } })).status).toBe(201);
      expect(await count()).toBe(1);
    });
  },
);

describe('absolute session lifetime', () => {
  it('refuses to refresh a session older than its lifetime, however often it was rotated', async () => {
    const first = await login('shop@example.com');
    const rotated = (await call('account/refresh-token', { body: { refresh_token: first.refresh_token } })).body.data;
    expect(rotated.refresh_token).toEqual(expect.any(String));
    await up.db.query("update sessions set created_at = now() - interval '29 days' where id = $1", [claimsOf(rotated.token).sid]);
    const stillOk = (await call('account/refresh-token', { body: { refresh_token: rotated.refresh_token } })).body.data;
    expect(stillOk.token).toEqual(expect.any(String));
    await up.db.query("update sessions set created_at = now() - interval '30 days 1 minute' where id = $1", [claimsOf(rotated.token).sid]);
    expect(await call('account/refresh-token', { body: { refresh_token: stillOk.refresh_token } })).toMatchObject({
      status: 401,
      body: { error: { message: 'invalid_refresh_token' } },
    });
  });

  it('follows a configured lifetime', async () => {
    const short = await startUpstream({
      port: 0,
      demoPassword: DEMO_PASSWORD,
      logger: testLogger('upstream-short-session'),
      config: { scryptCost: 1024, sessionMaxAgeSeconds: 2 },
    });
    try {
      const pair = (await attempt('admin@example.com', DEMO_PASSWORD, freshIp(), short)).body.data;
      const rotated = (await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } }, short)).body.data;
      expect(rotated.token).toEqual(expect.any(String));
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await call('account/refresh-token', { body: { refresh_token: rotated.refresh_token } }, short)).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});

describe('H1: invitations end with deactivation, and can be canceled', () => {
  it('deactivating an invited user cancels the invitation: its link no longer activates the account', async () => {
    const admin = await adminToken();
    const email = 'h1.deactivated@example.com';
    expect((await call('users/invite/', { token: admin, body: { email, roles: ['Buddy'] } })).status).toBe(200);
    const link = tokenOf(await lastLink(email, 'invite'));
    const id = await userId(email);
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(id, admin)), is_active: false } })).status).toBe(200);
    expect(await userRecord(id, admin)).toMatchObject({ is_active: false, invitation_status: 'canceled' });

    const refused = await call('account/accept-invite', { body: { token: link, password: 'taken-over', password_confirm: 'taken-over' } });
    const madeUp = await call('account/accept-invite', { body: { token: randomToken(), password: 'taken-over', password_confirm: 'taken-over' } });
    expect(refused.status).toBe(400);
    expect(refused.text).toBe(madeUp.text);
    expect(await userRecord(id, admin)).toMatchObject({ is_active: false, invitation_status: 'canceled' });
    expect((await attempt(email, 'taken-over', freshIp())).body.error.message).toBe('wrong_password');

    // Reactivated, the account still has no open invitation until an Admin sends one again.
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(id, admin)), is_active: true } })).status).toBe(200);
    expect((await call('account/accept-invite', { body: { token: link, password: 'taken-over', password_confirm: 'taken-over' } })).status).toBe(400);
    expect((await call(`users/${id}/resend-invite/`, { token: admin, body: {} })).body.data).toMatchObject({ invitation_status: 'pending', is_active: true });
    const fresh = tokenOf(await lastLink(email, 'invite'));
    expect((await call('account/accept-invite', { body: { token: fresh, password: 'my-choice', password_confirm: 'my-choice' } })).status).toBe(200);
    expect(await userRecord(id, admin)).toMatchObject({ is_active: true, invitation_status: 'accepted' });
  });

  it('deactivation also ends reset links', async () => {
    const admin = await adminToken();
    const id = await inviteAndAccept('h1.reset@example.com', ['Buddy'], admin);
    await call('account/forgot-password', { body: { email: 'h1.reset@example.com' }, ip: freshIp() });
    const reset = tokenOf(await lastLink('h1.reset@example.com', 'reset'));
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(id, admin)), is_active: false } })).status).toBe(200);
    expect((await call('account/reset-password', { body: { token: reset, password: 'newpass', password_confirm: 'newpass' } })).body.error.message).toBe('token_does_not_exist');
    // A deactivated account is mailed no new link either (the answer is the same).
    const before = await outboxCount();
    expect((await call('account/forgot-password', { body: { email: 'h1.reset@example.com' }, ip: freshIp() })).status).toBe(200);
    expect(await outboxCount()).toBe(before);
  });

  it('cancel-invite (Admin): the link stops working; resend re-opens it only for an active account', async () => {
    const admin = await adminToken();
    const email = 'h1.canceled@example.com';
    await call('users/invite/', { token: admin, body: { email, roles: ['Buddy'] } });
    const link = tokenOf(await lastLink(email, 'invite'));
    const id = await userId(email);
    expect((await call(`users/${id}/cancel-invite/`, { token: (await login('buddy@example.com')).token, body: {} })).status).toBe(403);
    expect((await call(`users/${id}/cancel-invite/`, { token: admin, body: {} })).body.data).toMatchObject({ invitation_status: 'canceled' });
    expect((await call('account/accept-invite', { body: { token: link, password: 'chosen', password_confirm: 'chosen' } })).body.error.message).toBe('token_does_not_exist');
    expect(await call(`users/${id}/cancel-invite/`, { token: admin, body: {} })).toMatchObject({ status: 409, body: { error: { message: 'invitation_not_pending' } } });
    expect((await call(`users/${99_999_999}/cancel-invite/`, { token: admin, body: {} })).status).toBe(404);

    // Deactivated meanwhile: resend refuses to re-open.
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(id, admin)), is_active: false } })).status).toBe(200);
    expect(await call(`users/${id}/resend-invite/`, { token: admin, body: {} })).toMatchObject({ status: 409, body: { error: { message: 'account_inactive' } } });
    expect(await lastLink(email, 'invite')).toContain(link);
    // Active again: resend re-opens it with a new link, and the canceled one stays dead.
    expect((await call(`users/${id}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(id, admin)), is_active: true } })).status).toBe(200);
    expect((await call(`users/${id}/resend-invite/`, { token: admin, body: {} })).body.data).toMatchObject({ invitation_status: 'pending' });
    expect((await call('account/accept-invite', { body: { token: link, password: 'chosen', password_confirm: 'chosen' } })).status).toBe(400);
    expect((await call('account/accept-invite', { body: { token: tokenOf(await lastLink(email, 'invite')), password: 'chosen', password_confirm: 'chosen' } })).status).toBe(200);
  });
});

describe('L1: reset links and requests', () => {
  it('a new request ends the earlier link, and a completed reset ends every other one', async () => {
    const email = 'shop@example.com';
    const id = await userId(email);
    await call('account/forgot-password', { body: { email }, ip: freshIp() });
    const older = tokenOf(await lastLink(email, 'reset'));
    await call('account/forgot-password', { body: { email }, ip: freshIp() });
    const newer = tokenOf(await lastLink(email, 'reset'));
    expect((await call('account/reset-password', { body: { token: older, password: DEMO_PASSWORD, password_confirm: DEMO_PASSWORD } })).body.error.message).toBe(
      'token_does_not_exist',
    );
    // A link issued some other way (an older mail that raced the new request) ends with the reset too.
    const stray = randomToken();
    await up.db.query("insert into account_tokens (user_id, kind, token_hash, expires_at) values ($1, 'reset', $2, now() + interval '1 hour')", [id, hashToken(stray)]);
    expect((await call('account/reset-password', { body: { token: newer, password: DEMO_PASSWORD, password_confirm: DEMO_PASSWORD } })).status).toBe(200);
    expect((await call('account/reset-password', { body: { token: stray, password: 'hijacked', password_confirm: 'hijacked' } })).body.error.message).toBe('token_does_not_exist');
  });

  it('limits requests per client address and account, and per client, with the same answer whether or not the account exists', async () => {
    const ip = freshIp();
    const refusals = [];
    for (const email of ['buddy@example.com', 'nobody.l1@example.com']) {
      for (let i = 0; i < 3; i++) expect((await call('account/forgot-password', { body: { email }, ip })).status).toBe(200);
      const before = await outboxCount();
      refusals.push(await call('account/forgot-password', { body: { email }, ip }));
      expect(await outboxCount()).toBe(before);
    }
    expect(refusals[0]).toMatchObject({ status: 429, body: { error: { message: 'too_many_requests' } } });
    expect(refusals[1]!.text).toBe(refusals[0]!.text);
    expect(Number(refusals[0]!.headers.get('retry-after'))).toBeGreaterThan(0);

    const busy = freshIp();
    for (let i = 0; i < 20; i++) expect((await call('account/forgot-password', { body: { email: `l1-${i}@example.com` }, ip: busy })).status).toBe(200);
    expect((await call('account/forgot-password', { body: { email: 'l1-last@example.com' }, ip: busy })).status).toBe(429);
  });

  it('N2: a stranger cannot make the owner wait; past a higher per-account cap the mails stop silently', async () => {
    const email = 'n2.owner@example.com';
    await inviteAndAccept(email, ['Buddy'], await adminToken());
    const mails = async () => (await up.db.query<{ n: number }>("select count(*)::int as n from outbox where lower(to_email) = $1 and kind = 'reset'", [email])).rows[0]!.n;
    const ask = (ip: string) => call('account/forgot-password', { body: { email }, ip });
    const stranger = freshIp();
    for (let i = 0; i < 3; i++) expect((await ask(stranger)).status).toBe(200);
    expect((await ask(stranger)).status).toBe(429);
    // The owner, at their own address, is answered and mailed as usual.
    const owner = freshIp();
    expect((await ask(owner)).status).toBe(200);
    expect(await mails()).toBe(4);
    // Strangers at many addresses fill the mailbox only up to the cap; beyond it nobody is mailed, nobody told.
    for (let i = 0; i < 8; i++) expect((await ask(freshIp())).status).toBe(200);
    expect(await mails()).toBe(up.config.forgotPasswordLimits.mailsPerEmailPerHour);
    const answer = await ask(owner);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ sent: true });
    expect(await mails()).toBe(up.config.forgotPasswordLimits.mailsPerEmailPerHour);
  });
});

describe('L5: an Admin always remains', () => {
  it('refuses to remove the Admin role from, or deactivate, the last active Admin', async () => {
    const admin = await adminToken();
    const adminId = await userId('admin@example.com');
    expect(await call(`users/${adminId}/roles/Admin/`, { method: 'DELETE', token: admin })).toMatchObject({
      status: 409,
      body: { error: { message: 'last_admin', cause: 'The last active Admin cannot lose the Admin role or be deactivated.' } },
    });
    expect((await call(`users/${adminId}/`, { method: 'PUT', token: admin, body: { ...(await userRecord(adminId, admin)), is_active: false } })).body.error.message).toBe(
      'last_admin',
    );
    expect((await userRecord(adminId, admin)).roles).toContain('Admin');

    // A pending invitation holding Admin does not count: it cannot sign in yet.
    await call('users/invite/', { token: admin, body: { email: 'l5.pending@example.com', roles: ['Admin'] } });
    expect((await call(`users/${adminId}/roles/Admin/`, { method: 'DELETE', token: admin })).status).toBe(409);

    // With a second active Admin, either may step down.
    const second = await inviteAndAccept('l5.second@example.com', ['Admin'], admin);
    expect((await call(`users/${adminId}/roles/Admin/`, { method: 'DELETE', token: admin })).status).toBe(200);
    const secondToken = (await login('l5.second@example.com', 'chosen-pass')).token;
    expect((await call(`users/${second}/roles/Admin/`, { method: 'DELETE', token: secondToken })).status).toBe(409);
    expect((await call(`users/${adminId}/roles/`, { token: secondToken, body: { role: 'Admin' } })).status).toBe(200);
  });
});

describe('N1: the built-in roles keep their names', () => {
  type RoleRow = { id: number; name: string; description: string | null; version: number };
  const roles = async (token: string) => (await call('roles/?page_size=100', { token })).body.data.results as RoleRow[];

  it('refuses to rename or delete Admin, Buddy and Shop (409 with a field message); the next sign-in still carries Admin', async () => {
    const admin = await adminToken();
    const builtIn = { status: 409, body: { error: { message: 'built_in_role', fields: { name: 'validation.builtInRole' } } } };
    for (const name of ['Admin', 'Buddy', 'Shop']) {
      const role = (await roles(admin)).find((r) => r.name === name)!;
      expect(await call(`roles/${role.id}/`, { method: 'PUT', token: admin, body: { ...role, name: `${name} (old)` } })).toMatchObject(builtIn);
      expect(await call(`roles/${role.id}/`, { method: 'PATCH', token: admin, body: { name: name.toLowerCase(), version: role.version } })).toMatchObject(builtIn);
      expect(await call(`roles/${role.id}/`, { method: 'DELETE', token: admin })).toMatchObject({ status: 409 });
    }
    // No new role takes a built-in name, in any case (ADR 058: a `BuddyShop` row used to be locked for ever), nor does a rename.
    const reserved = { status: 409, body: { error: { message: 'built_in_role', fields: { name: 'validation.reservedRole' } } } };
    for (const name of ['BuddyShop', 'buddyshop', ' ADMIN ', 'shop']) expect(await call('roles/', { token: admin, body: { name, description: null } })).toMatchObject(reserved);
    const plain = await call('roles/', { token: admin, body: { name: 'N1 Plain', description: null } });
    expect(plain.status).toBe(201);
    expect(await call(`roles/${plain.body.data.id}/`, { method: 'PUT', token: admin, body: { ...plain.body.data, name: 'Buddyshop' } })).toMatchObject(reserved);
    // A BuddyShop row made before that is not locked: it can be renamed, and deleted.
    const { rows } = await up.db.query<{ id: number }>("insert into roles (name) values ('BuddyShop') returning id");
    const old = (await roles(admin)).find((r) => r.id === Number(rows[0]!.id))!;
    expect((await call(`roles/${old.id}/`, { method: 'PUT', token: admin, body: { ...old, name: 'N1 Former BuddyShop' } })).status).toBe(200);
    expect((await call(`roles/${old.id}/`, { method: 'DELETE', token: admin })).status).toBeLessThan(300);
    expect(claimsOf((await login('admin@example.com')).token).scope).toContain('Admin');
  });

  it('a change to a role someone holds outdates their tokens, as a role removal does; a refresh carries the new name', async () => {
    let admin = await adminToken();
    const created = await call('roles/', { token: admin, body: { name: 'N1 Mechanic', description: null } });
    expect(created.status).toBe(201);
    await inviteAndAccept('n1.holder@example.com', ['Buddy', 'N1 Mechanic'], admin);
    const pair = await login('n1.holder@example.com', 'chosen-pass');
    const other = await login('buddy@example.com');
    expect((await call(`roles/${created.body.data.id}/`, { method: 'PUT', token: admin, body: { ...created.body.data, name: 'N1 Fitter' } })).status).toBe(200);
    expect(await call('account/', { token: pair.token })).toMatchObject({ status: 401, body: { error: { message: 'token_expired' } } });
    expect((await call('account/', { token: other.token })).status).toBe(200);
    const refreshed = (await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).body.data;
    expect(claimsOf(refreshed.token).scope).toEqual(expect.arrayContaining(['Buddy', 'N1 Fitter']));
    // A built-in role's description may change; its holders (the Admins) refresh and keep it.
    const adminRole = (await roles(admin)).find((r) => r.name === 'Admin')!;
    expect((await call(`roles/${adminRole.id}/`, { method: 'PUT', token: admin, body: { ...adminRole, description: 'Everything' } })).status).toBe(200);
    expect((await call('account/', { token: admin })).status).toBe(401);
    admin = await adminToken();
    expect(claimsOf(admin).scope).toContain('Admin');
  });
});
