import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSync } from 'otplib';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * Issue 32, second factors (ADR 068): an authenticator app enrolled with a code, a second step at sign-in that
 * takes each code once, recovery codes that work once, throttled wrong codes, the Admin policy that confines a
 * sign-in without a factor to enrolling, and the user's own sessions. Each test signs in its own new user from
 * its own client address.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({
    port: 0,
    demoPassword: DEMO_PASSWORD,
    logger: testLogger('upstream-factors'),
    config: { scryptCost: 1024, logMailLinks: false },
    backgroundJobs: false,
  });
});
afterAll(async () => {
  await up?.close();
});

async function call(path: string, init: { method?: string; body?: unknown; token?: string; ip?: string; ua?: string } = {}) {
  const res = await fetch(up.url + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.ip ? { 'x-forwarded-for': init.ip, 'x-forwarded-secret': up.config.forwardedSecret! } : {}),
      ...(init.ua ? { 'user-agent': init.ua } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
}

let nextAddress = 10;
const freshIp = () => `203.0.113.${nextAddress++}`;
let nextUser = 1;
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string; enrol?: boolean };
const now = () => Math.floor(Date.now() / 1000);
/** The code of `secret` for the time step `steps` after the current one. */
const codeAt = (secret: string, steps = 0) => generateSync({ secret, epoch: now() + steps * 30 });

async function adminToken(): Promise<string> {
  const res = await call('account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD }, ip: freshIp() });
  return res.body.data.token;
}

/** A new user of these roles with a password, invited by the Admin and accepted. */
async function newUser(roles: string[] = []): Promise<string> {
  const email = `factor${nextUser++}.${Date.now()}@example.com`;
  expect((await call('users/invite/', { token: await adminToken(), body: { email, roles } })).status).toBe(200);
  const { rows } = await up.db.query<{ link: string }>("select link from outbox where lower(to_email) = lower($1) and kind = 'invite' order by id desc limit 1", [email]);
  const token = rows[0]!.link.split('/').pop()!;
  expect((await call('account/accept-invite', { body: { token, password: 'chosen-pass', password_confirm: 'chosen-pass' } })).status).toBe(200);
  return email;
}

const passwordStep = (email: string, ip: string) => call('account/login', { body: { email, password: 'chosen-pass' }, ip });

/** Signs in (password only) and enrols an authenticator app; answers the secret, the recovery codes and the session's token. */
async function enrolled(email: string, ip: string) {
  const signedIn = (await passwordStep(email, ip)).body.data as { token: string; refresh_token: string };
  const started = await call('account/factors/totp', { token: signedIn.token, body: {} });
  expect(started.status).toBe(200);
  const secret = started.body.data.secret as string;
  expect(started.body.data.uri).toContain(`secret=${secret}`);
  const confirmed = await call('account/factors/totp/confirm', { token: signedIn.token, body: { code: codeAt(secret) }, ip });
  expect(confirmed.status).toBe(200);
  return { secret, codes: confirmed.body.data.recovery_codes as string[], pair: signedIn };
}

const historyOf = async (email: string) =>
  (
    await up.db.query<{ action: string }>(
      "select a.action from audit_log a join users u on u.id = a.record_id where a.entity = 'users' and lower(u.email) = lower($1) order by a.id",
      [email],
    )
  ).rows.map((r) => r.action);

describe('an authenticator app (TOTP)', () => {
  it('is enrolled only with a right code, then asks every sign-in for a code and takes each code once', async () => {
    const email = await newUser();
    const ip = freshIp();
    const other = (await passwordStep(email, freshIp())).body.data as { token: string };
    const signedIn = (await passwordStep(email, ip)).body.data as { token: string };
    const { secret } = (await call('account/factors/totp', { token: signedIn.token, body: {} })).body.data;
    expect(await call('account/factors/totp/confirm', { token: signedIn.token, body: { code: '000000' }, ip })).toMatchObject({
      status: 400,
      body: { error: { message: 'wrong_code' } },
    });
    // Not enrolled yet: the password alone still signs in.
    expect((await passwordStep(email, freshIp())).body.data.token).toEqual(expect.any(String));

    const confirmed = await call('account/factors/totp/confirm', { token: signedIn.token, body: { code: codeAt(secret) }, ip });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    // The factor change ends the other sessions at once, and is in the history.
    expect(await call('account/', { token: other.token })).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
    expect(await historyOf(email)).toContain('factor_added');

    const first = await passwordStep(email, ip);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ second_factor_required: true, challenge: expect.any(String), methods: ['totp', 'recovery'] });
    expect(first.body.data.token).toBeUndefined();
    const challenge = first.body.data.challenge as string;
    const wrong = await call('account/login/second-factor', { body: { challenge, code: '123456' === codeAt(secret) ? '654321' : '123456' }, ip });
    expect(wrong).toMatchObject({ status: 400, body: { error: { message: 'wrong_code' } } });
    // The code that confirmed the enrolment was used: the same code never passes twice.
    expect(await call('account/login/second-factor', { body: { challenge, code: codeAt(secret) }, ip })).toMatchObject({ status: 400 });
    const next = codeAt(secret, 1);
    const passed = await call('account/login/second-factor', { body: { challenge, code: next }, ip });
    expect(passed.status).toBe(200);
    expect(passed.body.data).toEqual({ token: expect.any(String), refresh_token: expect.any(String) });
    expect((await call('account/', { token: passed.body.data.token })).status).toBe(200);
    expect(await call('account/login/second-factor', { body: { challenge, code: next }, ip })).toMatchObject({ status: 400, body: { error: { message: 'wrong_code' } } });
    expect(await historyOf(email)).toEqual(expect.arrayContaining(['second_factor_failed', 'sign_in']));
  });

  it('refuses a forged or altered challenge', async () => {
    const email = await newUser();
    const ip = freshIp();
    const { secret } = await enrolled(email, ip);
    const { challenge } = (await passwordStep(email, ip)).body.data as { challenge: string };
    const altered = challenge.slice(0, -2) + (challenge.endsWith('AA') ? 'BB' : 'AA');
    expect(await call('account/login/second-factor', { body: { challenge: altered, code: codeAt(secret, 1) }, ip })).toMatchObject({
      status: 400,
      body: { error: { message: 'second_factor_expired' } },
    });
    expect(await call('account/login/second-factor', { body: { challenge: 'x.y.z', code: codeAt(secret, 1) }, ip })).toMatchObject({ status: 400 });
  });

  it('slows wrong codes with backoff: 429 with Retry-After, even for the right code, after the free failures', async () => {
    const email = await newUser();
    const ip = freshIp();
    const { secret } = await enrolled(email, ip);
    const { challenge } = (await passwordStep(email, ip)).body.data as { challenge: string };
    const right = codeAt(secret, 1);
    const wrongCode = right === '111111' ? '222222' : '111111';
    for (let i = 0; i < up.config.loginThrottle.freeFailures; i++)
      expect((await call('account/login/second-factor', { body: { challenge, code: wrongCode }, ip })).status).toBe(400);
    const throttled = await call('account/login/second-factor', { body: { challenge, code: right }, ip });
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.message).toBe('too_many_attempts');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('recovery codes', () => {
  it('are stored hashed and each signs in once, in any case and without the dash', async () => {
    const email = await newUser();
    const ip = freshIp();
    const { codes } = await enrolled(email, ip);
    const { rows } = await up.db.query<{ code_hash: string }>('select code_hash from recovery_codes r join users u on u.id = r.user_id where lower(u.email) = lower($1)', [email]);
    expect(rows).toHaveLength(10);
    for (const code of codes) expect(rows.map((r) => r.code_hash)).not.toContain(code);

    const typed = codes[3]!.toUpperCase().replace('-', ' ');
    const { challenge } = (await passwordStep(email, ip)).body.data as { challenge: string };
    const passed = await call('account/login/second-factor', { body: { challenge, code: typed }, ip });
    expect(passed.status).toBe(200);
    expect(passed.body.data.token).toEqual(expect.any(String));
    const again = (await passwordStep(email, ip)).body.data.challenge as string;
    expect(await call('account/login/second-factor', { body: { challenge: again, code: codes[3] }, ip })).toMatchObject({
      status: 400,
      body: { error: { message: 'wrong_code' } },
    });
    expect((await call('account/factors', { token: passed.body.data.token })).body.data.recovery_codes_left).toBe(9);
  });

  it('new codes replace the old ones, in the history, ending the other sessions', async () => {
    const email = await newUser();
    const ip = freshIp();
    const { codes, secret } = await enrolled(email, ip);
    const challengeOf = async () => (await passwordStep(email, ip)).body.data.challenge as string;
    const a = (await call('account/login/second-factor', { body: { challenge: await challengeOf(), code: codes[0] }, ip })).body.data.token as string;
    const b = (await call('account/login/second-factor', { body: { challenge: await challengeOf(), code: codeAt(secret, 1) }, ip })).body.data.token as string;
    const renewed = await call('account/factors/recovery-codes', { token: a, body: {} });
    expect(renewed.status).toBe(200);
    expect(await call('account/', { token: b })).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
    expect(await call('account/login/second-factor', { body: { challenge: await challengeOf(), code: codes[1] }, ip })).toMatchObject({ status: 400 });
    expect((await call('account/login/second-factor', { body: { challenge: await challengeOf(), code: renewed.body.data.recovery_codes[0] }, ip })).status).toBe(200);
    expect(await historyOf(email)).toContain('recovery_codes_generated');
  });
});

describe('the Admin policy', () => {
  it('confines a sign-in of a required role without a factor to the account routes until it enrols, and keeps its last factor', async () => {
    const admin = await adminToken();
    expect((await call('second-factor-policy', { token: admin })).body.data.roles).toEqual([]); // the demo data turns it off
    // Buddy + Shop: the users list is theirs to read (ADR 018), once enrolled.
    const email = await newUser(['Buddy', 'Shop']);
    expect((await call('second-factor-policy', { token: admin, method: 'PUT', body: { roles: ['Admin', 'Shop'] } })).body.data.roles).toEqual(['Admin', 'Shop']);
    try {
      const ip = freshIp();
      const pair = (await passwordStep(email, ip)).body.data as { token: string; refresh_token: string };
      expect(claimsOf(pair.token).enrol).toBe(true);
      expect(await call('users/', { token: pair.token })).toMatchObject({ status: 403, body: { error: { message: 'second_factor_enrolment_required' } } });
      expect(await call('second-factor-policy', { token: pair.token, method: 'PUT', body: { roles: [] } })).toMatchObject({ status: 403 });
      expect((await call('account/factors', { token: pair.token })).body.data).toMatchObject({ required: true, totp: null });

      const { secret } = (await call('account/factors/totp', { token: pair.token, body: {} })).body.data;
      expect((await call('account/factors/totp/confirm', { token: pair.token, body: { code: codeAt(secret) }, ip })).status).toBe(200);
      // The enrolment made the token out of date; its refresh has no `enrol`, and the app opens.
      expect(await call('account/', { token: pair.token })).toMatchObject({ status: 401, body: { error: { message: 'token_expired' } } });
      const refreshed = (await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).body.data as { token: string };
      expect(claimsOf(refreshed.token).enrol).toBeUndefined();
      expect((await call('users/', { token: refreshed.token })).status).toBe(200);
      // The policy's last factor stays.
      expect(await call('account/factors/totp/remove', { token: refreshed.token, body: { code: codeAt(secret, 1) }, ip })).toMatchObject({
        status: 409,
        body: { error: { message: 'second_factor_required' } },
      });
      expect((await call('account/factors', { token: refreshed.token })).body.data.totp).not.toBeNull();
    } finally {
      await call('second-factor-policy', { token: admin, method: 'PUT', body: { roles: [] } });
    }
  });

  it('is for Admins only', async () => {
    const email = await newUser(['Buddy']);
    const token = (await passwordStep(email, freshIp())).body.data.token as string;
    expect((await call('second-factor-policy', { token })).status).toBe(403);
  });
});

describe('sessions', () => {
  it('lists the user’s own sessions with browser and address, and ends one at once', async () => {
    const email = await newUser();
    const a = (await call('account/login', { body: { email, password: 'chosen-pass' }, ip: '203.0.113.200', ua: 'Browser A' })).body.data as { token: string };
    const b = (await call('account/login', { body: { email, password: 'chosen-pass' }, ip: '203.0.113.201', ua: 'Browser B' })).body.data as { token: string };
    const list = (await call('account/sessions', { token: a.token })).body.data as { id: string; current: boolean; user_agent: string; ip: string }[];
    expect(list).toHaveLength(2);
    expect(list.find((s) => s.current)).toMatchObject({ user_agent: 'Browser A', ip: '203.0.113.200' });
    const otherId = list.find((s) => !s.current)!.id;
    expect(list.find((s) => !s.current)).toMatchObject({ user_agent: 'Browser B', ip: '203.0.113.201' });
    // Another user's session is not theirs to end.
    const stranger = (await passwordStep(await newUser(), freshIp())).body.data.token as string;
    expect((await call(`account/sessions/${otherId}/end`, { token: stranger, body: {} })).status).toBe(404);
    expect((await call(`account/sessions/${otherId}/end`, { token: a.token, body: {} })).status).toBe(200);
    expect(await call('account/', { token: b.token })).toMatchObject({ status: 401, body: { error: { message: 'session_ended' } } });
    expect((await call('account/', { token: a.token })).status).toBe(200);
    expect(await historyOf(email)).toContain('session_ended');
  });
});
