import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../upstream/db.ts';
import { sweepUnusedUploads } from '../../upstream/lib/upload-sweep.ts';
import { migrate, migrationsDir } from '../../upstream/migrate.ts';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';

/**
 * Issue 12 M6 (profile pictures only from our uploads) and L4 (single-use upload URLs under concurrency,
 * a per-user quota, unused uploads swept), against the reference API.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Answer = { status: number; body: { success: boolean; data: any; error: { message: string; fields?: Record<string, string> } | null } };

const PASSWORD = 'uploads-password-1';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 1)]);
const SWEEP_AGE_SECONDS = 2;
let up: Upstream;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

async function call(method: string, path: string, body?: unknown, as = 'admin'): Promise<Answer> {
  const res = await fetch(up.url + path, {
    method,
    headers: { authorization: `Bearer ${tokens[as]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const sign = (kind: string, as = 'admin') => call('GET', `upload/?kind=${kind}&content_type=image%2Fpng`, undefined, as);
const put = (url: string, body = PNG) => fetch(url, { method: 'PUT', body: new Uint8Array(body), headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } });

/** A finished upload of `kind` made by `as`: its access URL. */
async function uploaded(kind: string, as = 'admin'): Promise<string> {
  const signed = await sign(kind, as);
  expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  expect((await put(signed.body.data.url)).status).toBe(200);
  return signed.body.data.access_url as string;
}

beforeAll(async () => {
  up = await startUpstream({
    port: 0,
    demoPassword: PASSWORD,
    logger: testLogger('upstream-uploads'),
    config: {
      scryptCost: 1024,
      uploadsPerHour: 8,
      uploadBytesPerDay: 4000,
      unusedUploadMaxAgeSeconds: SWEEP_AGE_SECONDS,
      maxUploadBytes: 16 * 1024,
      corsOrigins: ['http://backoffice.test'],
    },
  });
  for (const who of ['admin', 'buddy', 'shop']) {
    const res = await fetch(up.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${who}@example.com`, password: PASSWORD }),
    });
    tokens[who] = ((await res.json()) as Answer['body']).data.token;
    ids[who] = Number((await up.db.query<{ id: number }>('select id from users where email = $1', [`${who}@example.com`])).rows[0]!.id);
  }
});
afterAll(async () => up?.close());

/** Each test gets fresh quota: what earlier tests uploaded is moved out of the hour and the day. */
async function freshQuota() {
  await up.db.query("update uploads set created_at = created_at - interval '2 days', used_at = used_at - interval '2 days'");
}

describe('profile pictures accept only our uploads (issue 12 M6)', () => {
  it('refuses javascript:, data:, other sites and other people’s or other kinds of uploads on the own profile', async () => {
    await freshQuota();
    const origin = new URL(up.url).origin;
    const foreignKey = 'user_profile_picture/0f8fad5b-d9cb-469f-a165-70867728950e.png';
    const someoneElses = await uploaded('user_profile_picture', 'shop');
    const otherKind = await uploaded('service_detail_image', 'buddy');
    for (const bad of [
      'javascript:alert(1)',
      'data:image/png;base64,iVBORw0KGgo=',
      'https://evil.example/me.png',
      `https://evil.example/files/${foreignKey}`,
      `${origin}/files/${foreignKey}`,
      someoneElses,
      otherKind,
      `${someoneElses}?x=1`,
    ]) {
      const res = await call('PUT', 'account/', { first_name: 'Bo', last_name: 'Buddy', profile_image: bad }, 'buddy');
      expect(res.status, bad).toBe(400);
      expect(res.body.error!.fields).toEqual({ profile_image: 'validation.uploadedImage' });
    }
    const own = await uploaded('user_profile_picture', 'buddy');
    expect((await call('PUT', 'account/', { first_name: 'Bo', last_name: 'Buddy', profile_image: own }, 'buddy')).body.data.profile_image).toBe(own);
    expect((await call('PUT', 'account/', { first_name: 'Bo', last_name: 'Buddy', profile_image: null }, 'buddy')).body.data.profile_image).toBeNull();
  });

  it('lets an admin set a picture they or the user uploaded, refuses anything else, and never blocks the stored value', async () => {
    await freshQuota();
    const user = (await call('GET', `users/${ids.shop}/`)).body.data;
    const form = (over: Record<string, unknown>) => ({
      first_name: user.first_name,
      last_name: user.last_name,
      is_active: true,
      user_type: user.user_type,
      version: user.version,
      ...over,
    });
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AAAA', 'http://evil.example/x.png']) {
      const res = await call('PUT', `users/${ids.shop}/`, form({ profile_image: bad }));
      expect(res).toMatchObject({ status: 400, body: { error: { fields: { profile_image: 'validation.uploadedImage' } } } });
    }
    const byAdmin = await uploaded('user_profile_picture', 'admin');
    const saved = await call('PUT', `users/${ids.shop}/`, form({ profile_image: byAdmin }));
    expect(saved.body.data.profile_image).toBe(byAdmin);
    // Another user's picture (the buddy's own upload) is not the shop's.
    const buddys = await uploaded('user_profile_picture', 'buddy');
    expect((await call('PUT', `users/${ids.shop}/`, form({ version: saved.body.data.version, profile_image: buddys }))).status).toBe(400);

    // A value stored before the rule (our origin, an upload row long gone) may be sent back unchanged.
    const legacy = `${new URL(up.url).origin}/files/user_profile_picture/11111111-2222-4333-8444-555555555555.png`;
    await up.db.query('update users set profile_image = $2 where id = $1', [ids.shop, legacy]);
    const current = (await call('GET', `users/${ids.shop}/`)).body.data;
    const kept = await call('PUT', `users/${ids.shop}/`, form({ version: current.version, first_name: 'Samuel', profile_image: legacy }));
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.data).toMatchObject({ first_name: 'Samuel', profile_image: legacy });
  });

  it('removes pictures that are not our uploads when migrating an existing database (migration 066)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bo-migrations-'));
    const db = await openDatabase();
    try {
      for (const file of readdirSync(migrationsDir()).filter((f) => f < '066')) cpSync(join(migrationsDir(), file), join(dir, file));
      await migrate(db, dir);
      const good = 'user_profile_picture/0f8fad5b-d9cb-469f-a165-70867728950e.png';
      await db.query("insert into uploads (key, kind, content_type, size, uploaded_at) values ($1, 'user_profile_picture', 'image/png', 10, now())", [good]);
      const pictures = [
        'javascript:alert(1)',
        'data:image/png;base64,AAAA',
        'https://evil.example/x.png',
        `http://127.0.0.1:4010/files/${good}`,
        'http://127.0.0.1:4010/files/user_profile_picture/11111111-2222-4333-8444-555555555555.png',
        null,
      ];
      for (const [i, picture] of pictures.entries()) await db.query('insert into users (email, profile_image) values ($1, $2)', [`p${i}@example.com`, picture]);
      await migrate(db);
      const { rows } = await db.query<{ email: string; profile_image: string | null }>("select email, profile_image from users where email like 'p_@example.com' order by email");
      expect(rows.map((r) => r.profile_image)).toEqual([null, null, null, `http://127.0.0.1:4010/files/${good}`, null, null]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('signed upload addresses (issue 12 L4)', () => {
  it('stores a file once when several PUTs race with the same address', async () => {
    await freshQuota();
    const signed = (await sign('bicycle')).body.data;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => put(signed.url, Buffer.concat([PNG, Buffer.alloc(i + 1, i)]))));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403, 403]);
    const { rows } = await up.db.query<{ size: number }>('select size from uploads where key = $1', [signed.key]);
    const served = Buffer.from(await (await fetch(signed.access_url)).arrayBuffer());
    expect(served.length).toBe(Number(rows[0]!.size));
    // Files are private to the browser that fetched them: no shared cache keeps them.
    expect((await fetch(signed.access_url)).headers.get('cache-control')).toMatch(/^private\b/);
  });

  it('limits signed addresses per hour and bytes per day for each user, with codes the screen translates', async () => {
    await freshQuota();
    const answers = [];
    for (let i = 0; i < 9; i++) answers.push(await sign('user_profile_picture', 'shop'));
    expect(answers.slice(0, 8).map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers[8]).toMatchObject({ status: 429, body: { error: { message: 'upload_quota' } } });
    // Another person's quota is their own.
    expect((await sign('bicycle', 'admin')).status).toBe(200);

    await freshQuota();
    const big = Buffer.concat([PNG, Buffer.alloc(1500, 7)]);
    const first = (await sign('user_profile_picture', 'shop')).body.data;
    const second = (await sign('user_profile_picture', 'shop')).body.data;
    const third = (await sign('user_profile_picture', 'shop')).body.data;
    expect((await put(first.url, big)).status).toBe(200);
    expect((await put(second.url, big)).status).toBe(200);
    const over = await put(third.url, big);
    expect(over.status).toBe(413);
    expect(((await over.json()) as Answer['body']).error!.message).toBe('upload_quota_bytes');
    expect((await sign('user_profile_picture', 'shop')).body.error?.message ?? 'signed').toBe('signed');
    // Nothing of the refused file was kept, and its address is still unused.
    expect((await up.db.query<{ used_at: Date | null }>('select used_at from uploads where key = $1', [third.key])).rows[0]!.used_at).toBeNull();
    // A file over the size limit is refused before the route runs; the page can still read why (CORS).
    const tooBig = await fetch(third.url, {
      method: 'PUT',
      body: new Uint8Array(Buffer.concat([PNG, Buffer.alloc(20 * 1024)])),
      headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read', origin: 'http://backoffice.test' },
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.headers.get('access-control-allow-origin')).toBe('http://backoffice.test');
    expect(((await tooBig.json()) as Answer['body']).error!.message).toBe('upload_too_large');
  });

  it('sweeps uploads no record refers to once they are older than the configured age, files and rows (issue 12 L4)', async () => {
    await freshQuota();
    const neverPut = (await sign('bicycle')).body.data.key as string;
    const unattached = await uploaded('bicycle');
    const picture = await uploaded('user_profile_picture', 'buddy');
    const defect = await uploaded('bicycle');
    const logo = await uploaded('event_logo');
    await call('PUT', 'account/', { first_name: 'Bo', last_name: 'Buddy', profile_image: picture }, 'buddy');
    expect((await call('POST', 'bicycles/1/images/', { url: defect, kind: 'defect' })).status).toBe(201);
    const event = (await call('GET', 'events/1/')).body.data;
    const { id: _id, version, created_at: _c, updated_at: _u, ...fields } = event;
    const saved = await call('PUT', 'events/1/', { ...Object.fromEntries(Object.entries(fields).filter(([k]) => !k.endsWith('_label') && k !== 'event_status')), version, logo });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const keyOf = (url: string) => new URL(url).pathname.replace('/files/', '');
    const file = (url: string) => join(up.config.uploadDir, keyOf(url));
    expect(existsSync(file(unattached))).toBe(true);

    // Younger than the age: nothing goes, not even what nobody uses.
    expect(await sweepUnusedUploads(up.db, up.config)).not.toContain(keyOf(unattached));
    await new Promise((resolve) => setTimeout(resolve, (SWEEP_AGE_SECONDS + 0.5) * 1000));
    const fresh = await uploaded('bicycle');
    const removed = await sweepUnusedUploads(up.db, up.config);
    expect(removed).toEqual(expect.arrayContaining([neverPut, keyOf(unattached)]));
    for (const kept of [picture, defect, logo, fresh]) expect(removed).not.toContain(keyOf(kept));
    expect(existsSync(file(unattached))).toBe(false);
    expect((await fetch(unattached)).status).toBe(404);
    expect((await up.db.query('select 1 from uploads where key = any($1)', [[neverPut, keyOf(unattached)]])).rows).toEqual([]);
    for (const kept of [picture, defect, logo, fresh]) expect((await fetch(kept)).status).toBe(200);
  });
});
