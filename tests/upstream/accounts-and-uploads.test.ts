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

// ADR 056: the users and buddies lists are searched by the engine, and a nullable column's descending page is read
// in two parts. Every page of each, at the usual count bound (the few-matches way) and at a bound of 2 (the walked
// page, the count's lead), against a plain statement: the same rows in the same order, the same count.
describe('users and buddies lists (ADR 056)', () => {
  it('answer the rows of the plain search, role, activity and type filters, in every sort order both ways, page after page', async () => {
    const admin = (await login('admin@example.com')).token;
    const n = 60;
    const at = (i: number, every: number, value: string | null) => (i % every === 0 ? null : value);
    const rows = Array.from({ length: n }, (_, i) => ({
      email: `list${i}${i % 5 === 0 ? 'ab' : ''}${i % 7 === 0 ? 'an' : ''}@example.com`,
      first: [null, 'Anna', 'Åsa', 'Karl', 'Abba', 'anna'][i % 6],
      last: ['Andersson', null, 'Öberg', 'Ab', 'Larsson'][(i * 3) % 5],
      phone: [null, '+46 70 123', 'EXT 12', '555-0123', 'ext 99'][(i * 7) % 5],
      member: at(i, 3, `2024-01-${String(1 + (i % 20)).padStart(2, '0')}T00:00:00Z`),
      invited: at(i, 4, `2023-0${1 + (i % 9)}-01T00:00:00Z`),
      active: i % 6 !== 0,
      type: [1, 2, 4, 5][i % 4]!,
    }));
    const { rows: added } = await up.db.query<{ id: number }>(
      `insert into users (email, first_name, last_name, phone_number, member_since, invited_at, is_active, user_type)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::boolean[], $8::smallint[]) returning id`,
      (['email', 'first', 'last', 'phone', 'member', 'invited', 'active', 'type'] as const).map((k) => rows.map((r) => r[k])),
    );
    const ids = added.map((r) => Number(r.id));
    await up.db.query(`insert into user_roles (user_id, role_id) select u, (select id from roles where name = 'Buddy') from unnest($1::bigint[]) u where u % 2 = 0`, [ids]);
    const bound = up.config.exactCountUpTo;
    try {
      const fullName = "lower(coalesce(t.first_name, '') || ' ' || coalesce(t.last_name, ''))";
      const plain = async (search: string, role: string | undefined, activeOnly: boolean, type: number | undefined, ordering: string) => {
        const params: unknown[] = [];
        const where: string[] = [];
        if (search) {
          params.push(`%${search.toLowerCase()}%`);
          where.push(`(coalesce(lower(t.email) like $1, false) or coalesce(lower(t.phone_number) like $1, false) or ${fullName} like $1)`);
        }
        if (role) where.push(`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = t.id and r.name = $${params.push(role)})`);
        if (activeOnly) where.push('t.is_active');
        if (type !== undefined) where.push(`t.user_type = $${params.push(type)}`);
        const direction = ordering.startsWith('-') ? 'desc' : 'asc';
        const column = ordering.replace(/^-/, '');
        const sql = `select t.id from users t${where.length ? ` where ${where.join(' and ')}` : ''} order by t.${column} ${direction} nulls last, t.id ${direction}`;
        return (await up.db.query<{ id: number }>(sql, params)).rows.map((r) => Number(r.id));
      };
      for (const exactUpTo of [bound, 2]) {
        up.config.exactCountUpTo = exactUpTo;
        for (const search of ['', 'ab', 'an', 'EXT', 'anna a'])
          for (const [list, role, activeOnly] of [
            ['users', undefined, false],
            ['users', 'Buddy', false],
            ['buddies', 'Buddy', true],
          ] as const)
            for (const ordering of ['-id', 'first_name', '-last_name', '-member_since', '-invited_at', '-email']) {
              const type = ordering === '-email' ? 2 : undefined;
              const expected = await plain(search, role, activeOnly, type, ordering);
              const query = new URLSearchParams({
                page_size: '10',
                ordering,
                ...(search ? { search } : {}),
                ...(role && list === 'users' ? { role } : {}),
                ...(type ? { user_type: String(type) } : {}),
              });
              const got: number[] = [];
              const what = `${list}/?${query} (bound ${exactUpTo})`;
              for (let page = 1; page <= Math.ceil(expected.length / 10) + 1; page++) {
                query.set('page', String(page));
                const { status, body } = await call(`${list}/?${query}`, { token: admin });
                expect(status, what).toBe(200);
                got.push(...body.data.results.map((u: { id: number }) => u.id));
                expect(body.data.paginator.has_next, `${what} page ${page}`).toBe(page * 10 < expected.length);
                if (page === 1 && !body.data.paginator.estimated) expect(body.data.paginator.count, what).toBe(expected.length);
                if (body.data.paginator.estimated) expect(body.data.paginator.count, what).toBeGreaterThan(exactUpTo);
              }
              expect(got, what).toEqual(expected);
            }
      }
    } finally {
      up.config.exactCountUpTo = bound;
      await up.db.query('delete from user_roles where user_id = any($1::bigint[])', [ids]);
      await up.db.query('delete from users where id = any($1::bigint[])', [ids]);
    }
  }, 120_000);
});
