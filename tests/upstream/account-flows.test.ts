import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_REDACT } from '../../upstream/app.ts';
import { signAccessToken } from '../../upstream/lib/jwt.ts';
import { hashToken, hmac, randomToken } from '../../upstream/lib/tokens.ts';
import { startUpstream } from '../../upstream/start.ts';
import { upstreamCall } from '../support/upstream-call.ts';

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };

const PASSWORD = 'flows-password-1';
const APP_URL = 'http://backoffice.test';
const logLines: string[] = [];
let up: Upstream;

beforeAll(async () => {
  // Every log line is kept so the last test can prove no secret reached the log.
  const logger = pino({ level: 'info', redact: UPSTREAM_REDACT }, { write: (line: string) => void logLines.push(line) });
  up = await startUpstream({
    port: 0,
    demoPassword: PASSWORD,
    logger,
    config: { scryptCost: 1024, appUrl: APP_URL, corsOrigins: [APP_URL], logMailLinks: false },
  });
});
afterAll(async () => {
  await up?.close();
});

const call = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) => upstreamCall<Body>(up.url, path, init);

async function login(email: string, password = PASSWORD): Promise<{ token: string; refresh_token: string }> {
  const res = await call('account/login', { body: { email, password } });
  expect(res.body.error).toBeNull();
  return res.body.data;
}

async function lastLink(email: string, kind: 'invite' | 'reset' | 'confirm'): Promise<string> {
  const { rows } = await up.db.query<{ link: string }>('select link from outbox where lower(to_email) = lower($1) and kind = $2 order by id desc limit 1', [email, kind]);
  expect(rows[0]).toBeDefined();
  return rows[0]!.link;
}
const tokenOf = (link: string) => link.split('/').pop()!;

describe('plumbing', () => {
  it('answers the health check outside /api and tolerates trailing slashes', async () => {
    expect(await (await fetch(`${up.origin}/healthz`)).json()).toEqual({ ok: true });
    for (const path of ['account', 'account/']) {
      expect(await call(path)).toEqual({ status: 401, body: { success: false, data: null, error: { message: 'unauthorized', cause: expect.any(String) } } });
    }
  });

  it('puts field errors of a bad body into error.fields', async () => {
    const res = await call('account/login', { body: { email: 'not-an-email' } });
    expect(res).toEqual({
      status: 400,
      body: {
        success: false,
        data: null,
        error: { message: 'validation_error', cause: 'Some fields are not valid.', fields: { email: 'validation.email', password: 'validation.required' } },
      },
    });
  });
});

describe('login', () => {
  it('answers an unknown address and a wrong password alike (§8 text), and ignores e-mail case', async () => {
    const invalid = { status: 400, body: { success: false, data: null, error: { message: 'wrong_password', cause: 'Invalid credentials.' } } };
    expect(await call('account/login', { body: { email: 'nobody@example.com', password: 'whatever' } })).toEqual(invalid);
    expect(await call('account/login', { body: { email: 'admin@example.com', password: 'whatever' } })).toEqual(invalid);
    expect((await login('ADMIN@Example.com')).token).toEqual(expect.any(String));
  });

  it('resets the failure count on a successful sign-in', async () => {
    const email = 'buddy@example.com';
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) expect((await call('account/login', { body: { email, password: 'nope' } })).status).toBe(400);
      await login(email);
    }
  });

  it('refuses a deactivated account with 403, but only after a correct password', async () => {
    const { rows } = await up.db.query<{ email: string }>(
      "select email from users where email like '%@example.com' and email not in ('admin@example.com','buddy@example.com','shop@example.com','user@example.com') order by id limit 1",
    );
    const email = rows[0]!.email;
    await up.db.query('update users set is_active = false where email = $1', [email]);
    expect((await call('account/login', { body: { email, password: 'wrong' } })).body.error.message).toBe('wrong_password');
    expect(await call('account/login', { body: { email, password: PASSWORD } })).toMatchObject({ status: 403, body: { success: false, error: { message: 'account_inactive' } } });
  });

  it('answers token_expired for an expired access token', async () => {
    const { rows } = await up.db.query<{ id: number }>("select id from users where email = 'admin@example.com'");
    const expired = await signAccessToken(up.config.jwtSecret, Number(rows[0]!.id), ['Admin'], -60);
    expect(await call('account/', { token: expired })).toMatchObject({ status: 401, body: { error: { message: 'token_expired' } } });
  });
});

describe('refresh tokens and logout', () => {
  it('refuses unknown and expired refresh tokens', async () => {
    expect((await call('account/refresh-token', { body: { refresh_token: randomToken() } })).body.error.message).toBe('invalid_refresh_token');
    const pair = await login('shop@example.com');
    await up.db.query("update refresh_tokens set expires_at = now() - interval '1 second' where token_hash = $1", [hashToken(pair.refresh_token)]);
    expect(await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).toMatchObject({
      status: 401,
      body: { error: { message: 'invalid_refresh_token' } },
    });
  });

  it('logout revokes the rotated successor too, and is idempotent', async () => {
    const first = await login('shop@example.com');
    const second = (await call('account/refresh-token', { body: { refresh_token: first.refresh_token } })).body.data;
    for (let i = 0; i < 2; i++) expect(await call('account/logout', { body: { refresh_token: first.refresh_token } })).toMatchObject({ status: 200, body: { success: true } });
    expect((await call('account/refresh-token', { body: { refresh_token: second.refresh_token } })).status).toBe(401);
    expect((await call('account/logout', { body: { refresh_token: randomToken() } })).status).toBe(200);
  });
});

describe('password reset', () => {
  const email = 'user@example.com';

  it('always answers forgot-password the same way, and mails a link only to real accounts', async () => {
    const before = (await up.db.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n;
    expect(await call('account/forgot-password', { body: { email: 'ghost@example.com' } })).toMatchObject({ status: 200, body: { success: true } });
    expect((await up.db.query<{ n: number }>('select count(*)::int as n from outbox')).rows[0]!.n).toBe(before);
    expect((await call('account/forgot-password', { body: { email } })).status).toBe(200);
    expect(await lastLink(email, 'reset')).toMatch(new RegExp(`^${APP_URL}/reset-password/[A-Za-z0-9_-]{43}$`));
  });

  it('checks the confirmation and length, sets the password once, and ends existing sessions', async () => {
    const session = await login(email);
    const token = tokenOf(await lastLink(email, 'reset'));
    expect(await call('account/reset-password', { body: { token, password: 'new-pass', password_confirm: 'other' } })).toEqual({
      status: 400,
      body: {
        success: false,
        data: null,
        error: { message: 'passwords_do_not_match', cause: 'Passwords do not match.', fields: { password_confirm: 'validation.passwordsDoNotMatch' } },
      },
    });
    expect((await call('account/reset-password', { body: { token, password: 'ab', password_confirm: 'ab' } })).body.error).toMatchObject({
      message: 'validation_error',
      fields: { password: 'validation.passwordMin' },
    });
    expect((await call('account/reset-password', { body: { token: 'made-up', password: 'new-pass', password_confirm: 'new-pass' } })).body.error).toEqual({
      message: 'token_does_not_exist',
      cause: 'Provided token does not exist',
    });

    expect(await call('account/reset-password', { body: { token, password: 'new-pass', password_confirm: 'new-pass' } })).toMatchObject({ status: 200, body: { success: true } });
    expect((await call('account/reset-password', { body: { token, password: 'new-pass', password_confirm: 'new-pass' } })).body.error.message).toBe('token_does_not_exist');
    expect((await call('account/refresh-token', { body: { refresh_token: session.refresh_token } })).status).toBe(401);
    expect((await call('account/login', { body: { email, password: PASSWORD } })).body.error.message).toBe('wrong_password');
    await login(email, 'new-pass');
  });

  it('refuses an expired reset link', async () => {
    await call('account/forgot-password', { body: { email } });
    const token = tokenOf(await lastLink(email, 'reset'));
    await up.db.query("update account_tokens set expires_at = now() - interval '1 second' where token_hash = $1", [hashToken(token)]);
    expect((await call('account/reset-password', { body: { token, password: 'newer', password_confirm: 'newer' } })).body.error.message).toBe('token_does_not_exist');
  });
});

describe('invitation lifecycle', () => {
  const email = 'Invited.Person@example.com';
  let admin: string;
  beforeAll(async () => {
    admin = (await login('admin@example.com')).token;
  });

  it('creates a pending user in the public shape and mails a link', async () => {
    const res = await call('users/invite/', { token: admin, body: { email, first_name: 'Ivy', last_name: 'Invitee', roles: ['Buddy'], user_type: 2, language: 'sv' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      email,
      first_name: 'Ivy',
      roles: ['Buddy'],
      user_type: 2,
      language: 'sv',
      account_status: 'pending',
      invitation_status: 'pending',
      member_since: null,
    });
    expect(res.body.data.invited_at).toEqual(expect.any(String));
    expect(Object.keys(res.body.data)).not.toContain('password_hash');
    expect(await lastLink(email, 'invite')).toMatch(new RegExp(`^${APP_URL}/accept-invitation/`));
    // No password yet: sign-in fails like any wrong password.
    expect((await call('account/login', { body: { email, password: 'anything' } })).body.error.message).toBe('wrong_password');
  });

  it('refuses unknown roles', async () => {
    const res = await call('users/invite/', { token: admin, body: { email: 'roles@example.com', roles: ['Emperor'] } });
    expect(res).toMatchObject({ status: 400, body: { error: { message: 'validation_error', fields: { roles: expect.stringContaining('Emperor') } } } });
    expect((await up.db.query("select 1 from users where email = 'roles@example.com'")).rows).toHaveLength(0);
  });

  it('resend-invite replaces the link', async () => {
    const oldToken = tokenOf(await lastLink(email, 'invite'));
    const { rows } = await up.db.query<{ id: number }>('select id from users where lower(email) = lower($1)', [email]);
    expect((await call(`users/${Number(rows[0]!.id)}/resend-invite/`, { token: admin, body: {} })).status).toBe(200);
    const newToken = tokenOf(await lastLink(email, 'invite'));
    expect(newToken).not.toBe(oldToken);
    expect((await call('account/accept-invite', { body: { token: oldToken, password: 'chosen', password_confirm: 'chosen' } })).body.error.message).toBe('token_does_not_exist');
  });

  it('accept-invite activates the account, after which resend is refused', async () => {
    const token = tokenOf(await lastLink(email, 'invite'));
    expect((await call('account/accept-invite', { body: { token, password: 'chosen', password_confirm: 'chose' } })).body.error.message).toBe('passwords_do_not_match');
    expect(await call('account/accept-invite', { body: { token, password: 'chosen', password_confirm: 'chosen' } })).toEqual({
      status: 200,
      body: { success: true, data: { email }, error: null },
    });
    const session = await login(email, 'chosen');
    const profile = (await call('account/', { token: session.token })).body.data;
    expect(profile).toMatchObject({ account_status: 'active', invitation_status: 'accepted', is_active: true, member_since: expect.any(String) });
    const claims = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ sub: String(profile.id), scope: ['Buddy'], exp: expect.any(Number), iat: expect.any(Number), jti: expect.any(String) });
    expect((await call(`users/${profile.id}/resend-invite/`, { token: admin, body: {} })).status).toBe(400);
  });
});

describe('confirm-email', () => {
  it('matches token and address together, so a wrong address does not use up the token', async () => {
    const token = randomToken();
    await up.db.query(
      "insert into account_tokens (user_id, kind, token_hash, expires_at) select id, 'confirm', $1, now() + interval '1 hour' from users where email = 'buddy@example.com'",
      [hashToken(token)],
    );
    expect((await call('account/confirm-email', { body: { email: 'shop@example.com', token } })).body.error.message).toBe('token_does_not_exist');
    expect((await call('account/confirm-email', { body: { email: 'buddy@example.com', token } })).status).toBe(200);
    expect((await call('account/confirm-email', { body: { email: 'buddy@example.com', token } })).body.error.message).toBe('token_does_not_exist');
  });
});

describe('e-mail change', () => {
  it('changes the address only when the mailed link to the new address is confirmed', async () => {
    const { token } = await login('buddy@example.com');
    expect((await call('account/change-email', { token, body: { email: 'admin@example.com' } })).body.error).toMatchObject({
      message: 'user_exists',
      fields: { email: 'errors.user_exists' },
    });
    expect((await call('account/change-email', { token, body: { email: 'not-an-address' } })).body.error.message).toBe('validation_error');
    const first = await call('account/change-email', { token, body: { email: 'bo.first@example.com' } });
    expect(first.body.data).toMatchObject({ email: 'buddy@example.com', pending_email: 'bo.first@example.com' });
    const firstLink = await lastLink('bo.first@example.com', 'confirm');
    // A second request replaces the first: only the latest link works.
    await call('account/change-email', { token, body: { email: 'Bo.Buddy@example.com' } });
    const link = await lastLink('bo.buddy@example.com', 'confirm');
    expect(link).toMatch(new RegExp(`^${APP_URL}/confirm-email/[\\w-]+/Bo\\.Buddy%40example\\.com$`));
    expect((await call('account/confirm-email', { body: { email: 'bo.first@example.com', token: firstLink.split('/').at(-2) } })).body.error.message).toBe('token_does_not_exist');
    // Until confirmed, the old address signs in.
    await login('buddy@example.com');
    const confirmToken = link.split('/').at(-2)!;
    expect((await call('account/confirm-email', { body: { email: 'someone@example.com', token: confirmToken } })).body.error.message).toBe('token_does_not_exist');
    expect((await call('account/confirm-email', { body: { email: 'Bo.Buddy@example.com', token: confirmToken } })).status).toBe(200);
    expect((await call('account/login', { body: { email: 'buddy@example.com', password: PASSWORD } })).body.error.message).toBe('wrong_password');
    const renamed = await login('bo.buddy@example.com');
    expect((await call('account/', { token: renamed.token })).body.data).toMatchObject({ email: 'Bo.Buddy@example.com', pending_email: null });
    await up.db.query("update users set email = 'buddy@example.com' where lower(email) = 'bo.buddy@example.com'");
  });
});

describe('profile', () => {
  it('returns exactly the public user shape and updates own fields only', async () => {
    const { token } = await login('shop@example.com');
    const before = (await call('account/', { token })).body.data;
    expect(Object.keys(before).sort()).toEqual(
      [
        'id',
        'email',
        'first_name',
        'last_name',
        'phone_number',
        'country',
        'language',
        'is_active',
        'profile_image',
        'user_type',
        'biography',
        'social_security_number',
        'roles',
        'account_status',
        'invitation_status',
        'invited_at',
        'member_since',
        'state',
        'area',
        'city',
        'post_code',
        'operational_range_id',
        'pending_email',
        'version',
        'updated_at',
      ].sort(),
    );
    expect(before).toMatchObject({ email: 'shop@example.com', first_name: 'Sam', last_name: 'Shop', roles: ['Buddy', 'Shop'] });

    const update = {
      first_name: 'Samuel',
      last_name: 'Shop',
      phone_number: '+46 70 000 00 00',
      country: 'gb',
      language: 'sv',
      city: 'Uppsala',
      post_code: '753 10',
      email: 'hijack@example.com',
      user_type: 5,
    };
    const after = await call('account/', { method: 'PUT', token, body: update });
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({
      first_name: 'Samuel',
      country: 'gb',
      language: 'sv',
      city: 'Uppsala',
      email: 'shop@example.com',
      user_type: before.user_type,
      version: before.version + 1,
    });

    expect(await call('account/', { method: 'PUT', token, body: { ...update, country: 'fr' } })).toMatchObject({
      status: 400,
      body: { error: { message: 'validation_error', fields: { country: expect.any(String) } } },
    });
  });
});

describe('uploads', () => {
  it('refuses an expired signed address and unauthenticated signing, and answers the CORS preflight', async () => {
    expect((await call('upload/?kind=bicycle&content_type=image/png')).status).toBe(401);
    const { token } = await login('admin@example.com');
    const signed = (await call('upload/?kind=user_profile_picture&content_type=image/png', { token })).body.data;
    expect(signed).toMatchObject({
      key: expect.stringMatching(/^user_profile_picture\/[0-9a-f-]{36}\.png$/),
      access_url: `${up.origin}/files/${signed.key}`,
      expires_at: expect.any(String),
    });

    const past = String(Math.floor(Date.now() / 1000) - 1);
    const expiredUrl = `${up.origin}/files/upload/${signed.key}?expires=${past}&sig=${hmac(up.config.jwtSecret, signed.key, 'image/png', past)}`;
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    const expired = await fetch(expiredUrl, { method: 'PUT', body: png, headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } });
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as Body).error.message).toBe('invalid_signature');

    const preflight = await fetch(signed.url, {
      method: 'OPTIONS',
      headers: { origin: APP_URL, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-amz-acl' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP_URL);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-amz-acl');
    const foreign = await fetch(signed.url, { method: 'OPTIONS', headers: { origin: 'http://evil.test', 'access-control-request-method': 'PUT' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const put = await fetch(signed.url, { method: 'PUT', body: png, headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read', origin: APP_URL } });
    expect(put.status).toBe(200);
    const file = await fetch(signed.access_url);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('logs', () => {
  it('never contain passwords, tokens or upload signatures', async () => {
    const pair = await login('admin@example.com');
    await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } });
    await call('account/', { token: pair.token });
    const all = logLines.join('\n');
    expect(all).toContain('incoming request');
    for (const secret of [PASSWORD, 'new-pass', 'chosen', pair.token, pair.refresh_token, 'sig=']) expect(all).not.toContain(secret);
  });
});
