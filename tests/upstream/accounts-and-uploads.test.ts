import type { Server } from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream } from '../../upstream/start.ts';
import { startGoogleKeys } from '../support/google-keys.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
let up: Upstream;
let jwks: Server;
let privateKey: CryptoKey;
const GOOGLE_CLIENT = 'test-client.apps.googleusercontent.com';

beforeAll(async () => {
  let certsUrl: string;
  ({ server: jwks, privateKey, certsUrl } = await startGoogleKeys());
  up = await startUpstream({
    port: 0,
    demoPassword: DEMO_PASSWORD,
    config: { scryptCost: 1024, refreshGraceSeconds: 1, maxUploadBytes: 64 * 1024, googleClientId: GOOGLE_CLIENT, googleJwksUrl: certsUrl },
  });
});
afterAll(async () => {
  await up?.close();
  jwks?.close();
});

async function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(up.url + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as { success: boolean; data: any; error: any } };
}

const login = async (email: string, password = DEMO_PASSWORD) => (await call('account/login', { body: { email, password } })).body.data as { token: string; refresh_token: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('envelope and errors', () => {
  it('wraps every answer, including unknown paths and bad JSON', async () => {
    expect(await call('no/such/thing')).toEqual({ status: 404, body: { success: false, data: null, error: { message: 'not_found', cause: 'Not found.' } } });
    const res = await fetch(up.url + 'account/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('validation_error');
  });
});

describe('login and refresh tokens', () => {
  it('puts the roles in the token scope and an expiry in exp', async () => {
    const { token } = await login('shop@example.com');
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims.scope).toEqual(['Buddy', 'Shop']);
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  });

  it('rotates on use, repeats the same pair within the grace window, and revokes the family on late reuse', async () => {
    const first = await login('buddy@example.com');
    const a = await call('account/refresh-token', { body: { refresh_token: first.refresh_token } });
    const b = await call('account/refresh-token', { body: { refresh_token: first.refresh_token } });
    expect(a.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
    await sleep(1200);
    const late = await call('account/refresh-token', { body: { refresh_token: first.refresh_token } });
    expect(late).toMatchObject({ status: 401, body: { error: { message: 'invalid_refresh_token' } } });
    // The whole family is gone, including the pair handed out by the rotation.
    expect((await call('account/refresh-token', { body: { refresh_token: a.body.data.refresh_token } })).status).toBe(401);
  });

  it('logout revokes the refresh token', async () => {
    const pair = await login('admin@example.com');
    expect((await call('account/logout', { body: { refresh_token: pair.refresh_token } })).status).toBe(200);
    expect((await call('account/refresh-token', { body: { refresh_token: pair.refresh_token } })).status).toBe(401);
  });

  it('ends every session of a deactivated user and says why at sign-in', async () => {
    const shop = await login('shop@example.com');
    const admin = await login('admin@example.com');
    const { rows } = await up.db.query<{ id: number; version: number }>("select id, version from users where email = 'shop@example.com'");
    const me = (await call(`users/${rows[0]!.id}/`, { token: admin.token })).body.data;
    const off = await call(`users/${me.id}/`, { method: 'PUT', token: admin.token, body: { ...me, is_active: false } });
    expect(off.status).toBe(200);
    expect((await call('account/refresh-token', { body: { refresh_token: shop.refresh_token } })).body.error.message).toBe('invalid_refresh_token');
    expect((await call('account/login', { body: { email: 'shop@example.com', password: DEMO_PASSWORD } })).body.error).toEqual({
      message: 'account_inactive',
      cause: 'This account is deactivated.',
    });
    // Even a refresh token issued while inactive-but-not-yet-revoked is refused: activity is checked on refresh.
    await up.db.query("update users set is_active = true where email = 'shop@example.com'");
    const again = await login('shop@example.com');
    await up.db.query("update users set is_active = false where email = 'shop@example.com'");
    expect((await call('account/refresh-token', { body: { refresh_token: again.refresh_token } })).status).toBe(401);
    await up.db.query("update users set is_active = true where email = 'shop@example.com'");
  });

  it('refuses expired and forged access tokens', async () => {
    const { token } = await login('admin@example.com');
    const forged = token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await call('account/', { token: forged })).body.error.message).toBe('unauthorized');
    expect((await call('account/')).status).toBe(401);
  });
});

describe('invitations', () => {
  it('invites, refuses a duplicate, and reports each address of a bulk invite', async () => {
    const admin = (await login('admin@example.com')).token;
    expect((await call('users/invite/', { token: admin, body: { email: 'new.one@example.com', roles: ['Buddy'] } })).status).toBe(200);
    expect((await call('users/invite/', { token: admin, body: { email: 'NEW.one@example.com' } })).body.error).toEqual({ message: 'user_exists', cause: 'User already exists' });
    const bulk = await call('users/bulk-invite/', {
      token: admin,
      body: { emails: 'a.bulk@example.com, not-an-email, admin@example.com' },
    });
    expect(bulk.body.data.results).toEqual([
      { email: 'a.bulk@example.com', success: true, user_id: expect.any(Number) },
      { email: 'not-an-email', success: false, error: { message: 'validation_error', cause: 'Provided value is not Email.', fields: { email: 'validation.email' } } },
      { email: 'admin@example.com', success: false, error: { message: 'user_exists', cause: 'User already exists' } },
    ]);
    const buddy = (await login('buddy@example.com')).token;
    expect((await call('users/invite/', { token: buddy, body: { email: 'x@example.com' } })).status).toBe(403);
  });
});

describe('Google sign-in', () => {
  const idToken = (email: string, aud = GOOGLE_CLIENT) =>
    new SignJWT({ email, email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer('https://accounts.google.com')
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  it('signs in an existing user with a verified ID token', async () => {
    const res = await call('auth/google', { body: { id_token: await idToken('admin@example.com') } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('refuses another audience and unknown users', async () => {
    expect((await call('auth/google', { body: { id_token: await idToken('admin@example.com', 'someone-else') } })).body.error.message).toBe('invalid_google_token');
    expect((await call('auth/google', { body: { id_token: await idToken('stranger@example.com') } })).body.error.message).toBe('user_does_not_exist');
  });

  it('refuses an invited user whose invitation was canceled, as it refuses a stranger (H1)', async () => {
    const admin = (await login('admin@example.com')).token;
    const invited = await call('users/invite/', { token: admin, body: { email: 'google.canceled@example.com' } });
    expect((await call('auth/google', { body: { id_token: await idToken('google.canceled@example.com') } })).status).toBe(200);
    expect((await call(`users/${invited.body.data.id}/cancel-invite/`, { token: admin, body: {} })).status).toBe(200);
    expect((await call('auth/google', { body: { id_token: await idToken('google.canceled@example.com') } })).body.error.message).toBe('user_does_not_exist');
  });
});

describe('signed uploads', () => {
  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
  const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 2)]);

  async function sign(contentType: string, kind = 'bicycle') {
    const token = (await login('admin@example.com')).token;
    return call(`upload/?kind=${kind}&content_type=${encodeURIComponent(contentType)}`, { token });
  }
  const put = (url: string, body: Buffer, headers: Record<string, string>) => fetch(url, { method: 'PUT', body: new Uint8Array(body), headers });

  it('hands out signed addresses only to users who may open the screen of the upload kind', async () => {
    const asUser = async (email: string, kind: string) => call(`upload/?kind=${kind}&content_type=image%2Fpng`, { token: (await login(email)).token });
    expect((await asUser('user@example.com', 'user_profile_picture')).status).toBe(403);
    expect((await asUser('buddy@example.com', 'company_logo')).status).toBe(403);
    expect((await asUser('buddy@example.com', 'event_logo')).status).toBe(403);
    expect((await asUser('buddy@example.com', 'service_detail_image')).status).toBe(200);
    expect((await asUser('buddy@example.com', 'user_profile_picture')).status).toBe(200);
    expect((await asUser('admin@example.com', 'company_logo')).status).toBe(200);
  });

  it('stores a PNG at the signed address and serves it at the access URL', async () => {
    const { body } = await sign('image/png');
    expect(body.data.url).toMatch(/\/files\/upload\/bicycle\/[0-9a-f-]+\.png\?expires=\d+&sig=/);
    const res = await put(body.data.url, PNG, { 'content-type': 'image/png', 'x-amz-acl': 'public-read' });
    expect(res.status).toBe(200);
    const file = await fetch(body.data.access_url);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    // A signed address works once.
    expect((await put(body.data.url, PNG, { 'content-type': 'image/png', 'x-amz-acl': 'public-read' })).status).toBe(403);
  });

  it('refuses other types, spoofed content, oversize bodies, missing acl and bad signatures', async () => {
    expect((await sign('image/gif')).body.error.message).toBe('invalid_upload');
    expect((await sign('image/png', 'passport')).body.error.message).toBe('invalid_upload');
    const spoof = await sign('image/jpeg');
    expect((await put(spoof.body.data.url, PNG, { 'content-type': 'image/jpeg', 'x-amz-acl': 'public-read' })).status).toBe(415);
    const wrongType = await sign('image/jpeg');
    expect((await put(wrongType.body.data.url, JPEG, { 'content-type': 'text/html', 'x-amz-acl': 'public-read' })).status).toBe(415);
    const big = await sign('image/jpeg');
    expect((await put(big.body.data.url, Buffer.concat([JPEG, Buffer.alloc(70 * 1024)]), { 'content-type': 'image/jpeg', 'x-amz-acl': 'public-read' })).status).toBe(413);
    const acl = await sign('image/jpeg');
    expect((await put(acl.body.data.url, JPEG, { 'content-type': 'image/jpeg' })).status).toBe(403);
    const forged = await sign('image/jpeg');
    expect((await put(forged.body.data.url.replace(/sig=[^&]+/, 'sig=forged'), JPEG, { 'content-type': 'image/jpeg', 'x-amz-acl': 'public-read' })).status).toBe(403);
    expect((await fetch(`${up.origin}/files/../../etc/passwd`)).status).toBe(404);
  });
});
