import type { FastifyRequest } from 'fastify';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userUpdateFields } from '../../shared/schemas/users.ts';
import { verifyChain } from '../../upstream/lib/audit.ts';
import { erasePerson } from '../../upstream/lib/person-data.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';
import { upstreamCall } from '../support/upstream-call.ts';

/**
 * A person's export and erasure (GDPR Art. 15, 17, 20: ADR 076). A person with values in every place the API
 * keeps them — an invitation and its mail, a sign-in and a failed one, an uploaded picture with its file, edits
 * by themselves and by an Admin, an e-mail change waiting with its mail, a language link — is exported (every
 * value in the JSON and the CSV), then erased: no column of any table and no file under the upload directory
 * holds any of their values afterwards, the history still verifies and the erasure is its newest entry. On PGlite,
 * and on PostgreSQL when TEST_DATABASE_URL is set.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
const adminUrl = process.env.TEST_DATABASE_URL;
const PASSWORD = 'erasure-password-1';

describe.each([['PGlite', null], ...(adminUrl ? [['PostgreSQL', adminUrl]] : [])] as [string, string | null][])('a person erased (%s)', (backend, serverUrl) => {
  let up: Upstream;
  let server: { admin: pg.Client; name: string } | undefined;
  let uploadDir: string;
  const tokens: Record<string, string> = {};
  const tag = `zq${Math.random().toString(36).slice(2, 8)}`;
  const values = {
    email: `erasee.${tag}@example.com`,
    first_name: `Firstname${tag}`,
    last_name: `Lastname${tag}`,
    phone_number: `+46 70 ${tag}`,
    state: `State${tag}`,
    area: `Area${tag}`,
    city: `City${tag}`,
    post_code: `PC${tag}`,
    // A cell a spreadsheet would run: the CSV writes it escaped.
    biography: `=HYPERLINK("http://${tag}.example")`,
    social_security_number: `SSN${tag}`,
    pending_email: `pending.${tag}@example.com`,
  };
  let personId = 0;
  let uploadKey = '';

  const call = (path: string, init: { method?: string; body?: unknown; as?: string } = {}) =>
    upstreamCall(up.url, path, { method: init.method, body: init.body, token: init.as === '' ? undefined : tokens[init.as ?? 'admin'] });
  const login = async (email: string, password: string) => {
    const res = await call('account/login', { body: { email, password }, as: '' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.token as string;
  };

  beforeAll(async () => {
    uploadDir = mkdtempSync(join(tmpdir(), 'erasure-uploads-'));
    let databaseUrl: string | undefined;
    if (serverUrl) {
      const name = `up_erasure_${process.pid}_${Date.now()}`;
      const created = await createTestDatabase(serverUrl, name);
      server = { admin: created.admin, name };
      databaseUrl = created.url;
    }
    up = await startUpstream({
      port: 0,
      ...(databaseUrl ? { databaseUrl, seedDemo: true } : {}),
      demoPassword: DEMO_PASSWORD,
      logger: testLogger(`upstream-erasure-${backend}`),
      config: { scryptCost: 1024, uploadDir, logMailLinks: false },
      backgroundJobs: false,
    });
    tokens.admin = await login('admin@example.com', DEMO_PASSWORD);
    tokens.buddy = await login('buddy@example.com', DEMO_PASSWORD);
    await seedPerson();
  }, 60_000);
  afterAll(async () => {
    await up?.close();
    rmSync(uploadDir, { recursive: true, force: true });
    if (server) {
      await server.admin.query(`drop database ${server.name}`);
      await server.admin.end();
    }
  });

  /** The person, through the API as they and an Admin would make them. */
  async function seedPerson() {
    const invited = await call('users/invite/', { body: { email: values.email, first_name: values.first_name, last_name: values.last_name, roles: ['Buddy'], user_type: 2 } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    personId = invited.body.data.id;
    const { rows: mail } = await up.db.query<{ link: string }>("select link from outbox where lower(to_email) = lower($1) and kind = 'invite'", [values.email]);
    const accepted = await call('account/accept-invite', { body: { token: mail[0]!.link.split('/').pop(), password: PASSWORD, password_confirm: PASSWORD }, as: '' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    // A failed sign-in (a throttle row keyed by the address, an entry naming it), then a real one.
    expect((await call('account/login', { body: { email: values.email, password: 'wrong-password' }, as: '' })).body.success).toBe(false);
    tokens.person = await login(values.email, PASSWORD);
    // Their picture: a file under the upload directory holding one of their values.
    const signed = await call('upload/?kind=user_profile_picture&content_type=image%2Fpng', { as: 'person' });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`tEXt ${values.first_name} `), Buffer.alloc(64, 1)]);
    const put = await fetch(signed.body.data.url, { method: 'PUT', body: new Uint8Array(png), headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } });
    expect(put.status).toBe(200);
    uploadKey = signed.body.data.key;
    const own = await call('account/', {
      method: 'PUT',
      as: 'person',
      body: { first_name: values.first_name, last_name: values.last_name, phone_number: values.phone_number, city: values.city, profile_image: signed.body.data.access_url },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // PUT sends the whole record, as the back office does.
    const user = (await call(`users/${personId}/`)).body.data as Record<string, unknown>;
    const fields = Object.fromEntries(Object.keys(userUpdateFields.shape).map((k) => [k, user[k]]));
    const edited = await call(`users/${personId}/`, {
      method: 'PUT',
      body: {
        ...fields,
        version: user.version,
        state: values.state,
        area: values.area,
        post_code: values.post_code,
        biography: values.biography,
        social_security_number: values.social_security_number,
      },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect((await call('account/change-email', { as: 'person', body: { email: values.pending_email } })).status).toBe(200);
    expect((await call(`users/${personId}/languages/`, { body: { language_id: 1 } })).status).toBe(200);
  }

  /** Every column of every table, cast to text, that holds one of the person's values (or the upload's key): one scan per table. */
  async function columnsHoldingThem(): Promise<string[]> {
    const { rows: columns } = await up.db.query<{ table_name: string; column_name: string }>(
      "select c.table_name, c.column_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name) where c.table_schema = 'public' and t.table_type = 'BASE TABLE' order by 1, 2",
    );
    const patterns = [...Object.values(values), uploadKey, tag].map((v) => `%${v.replace(/[\\%_]/g, '\\$&')}%`);
    const tables = new Map<string, string[]>();
    for (const { table_name, column_name } of columns) tables.set(table_name, [...(tables.get(table_name) ?? []), column_name]);
    const found: string[] = [];
    for (const [table, names] of tables) {
      const checks = names.map((name, i) => `coalesce(bool_or("${name}"::text ilike any ($1::text[])), false) as c${i}`).join(', ');
      const { rows } = await up.db.query<Record<string, boolean>>(`select ${checks} from "${table}"`, [patterns]);
      names.forEach((name, i) => rows[0]![`c${i}`] && found.push(`${table}.${name}`));
    }
    return found;
  }

  const filesUnder = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));

  it('keeps their values in the history sealed, and shows them opened', async () => {
    const { rows } = await up.db.query<{ changes: string }>('select changes::text as changes from audit_log');
    expect(rows.filter((row) => row.changes.includes('"$p"')).length).toBeGreaterThan(4);
    for (const row of rows) expect(row.changes).not.toContain(tag);
    const history = JSON.stringify((await call(`audit/?entity=users&record_id=${personId}&page_size=100`)).body.data.results);
    for (const value of [values.email, values.phone_number, values.city, values.state, values.pending_email]) expect(history).toContain(JSON.stringify(value).slice(1, -1));
    // The invitation, made on the collection, is sealed under the person it created and opens in the Activity list.
    const invites = (await call('audit/?entity=users&action=invite&page_size=100')).body.data.results as { changes: Record<string, unknown[]> }[];
    expect(invites.map((e) => e.changes.first_name)).toContainEqual([null, values.first_name]);
  });

  it('exports everything stored about them as JSON and as CSV, formula cells escaped, and records the export', async () => {
    const json = await fetch(`${up.url}users/${personId}/export/?format=json`, { headers: { authorization: `Bearer ${tokens.admin}` } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toMatch(/attachment; filename="person-\d+-[\d-]+\.json"/);
    const text = await json.text();
    const data = JSON.parse(text) as { person: Record<string, unknown>; tables: Record<string, unknown[]>; history: { action: string; changes: Record<string, unknown> }[] };
    expect(data.person).toMatchObject(values);
    expect(data.person).not.toHaveProperty('password_hash');
    expect(Object.keys(data.tables)).toEqual(expect.arrayContaining(['sessions', 'refresh_tokens', 'user_roles', 'user_languages', 'uploads', 'outbox', 'account_tokens']));
    expect(data.history.map((e) => e.action)).toEqual(expect.arrayContaining(['invite', 'sign_in', 'sign_in_failed', 'profile_update', 'update', 'email_change_requested']));
    const failed = data.history.find((e) => e.action === 'sign_in_failed')!;
    expect(failed.changes.email).toEqual([null, values.email]);
    for (const value of [...Object.values(values), uploadKey]) expect(text).toContain(JSON.stringify(value).slice(1, -1));
    const csv = await (await fetch(`${up.url}users/${personId}/export/?format=csv`, { headers: { authorization: `Bearer ${tokens.admin}` } })).text();
    expect(csv.split('\r\n')[0]).toBe('table,row,column,value');
    for (const value of [...Object.values(values), uploadKey]) expect(csv).toContain(value.replace(/"/g, '""'));
    expect(csv).toContain(`users,1,biography,"'${values.biography.replace(/"/g, '""')}"`);
    const { rows } = await up.db.query<{ action: string; changes: unknown }>('select action, changes from audit_log order by id desc limit 2');
    expect(rows.map((r) => r.action)).toEqual(['person_exported', 'person_exported']);
    expect(rows[0]!.changes).toEqual({ format: [null, 'csv'] });
  });

  it('refuses a caller who is not an Admin, the caller themself, and the last active Admin', async () => {
    expect((await call(`users/${personId}/erase/`, { as: 'buddy', body: {} })).status).toBe(403);
    expect((await call(`users/${personId}/export/?format=json`, { as: 'buddy' })).status).toBe(403);
    const { rows: admin } = await up.db.query<{ id: number }>("select id from users where email = 'admin@example.com'");
    const adminId = Number(admin[0]!.id);
    expect(await call(`users/${adminId}/erase/`, { body: {} })).toMatchObject({ status: 409, body: { error: { message: 'erase_self' } } });
    // The only active Admin, asked by someone else (a caller the route would not let through): refused all the same.
    const { rows: buddy } = await up.db.query<{ id: number }>("select id from users where email = 'buddy@example.com'");
    const asBuddy = { user: { id: Number(buddy[0]!.id), roles: ['Admin'] }, ip: '127.0.0.1', id: 'test', log: { warn: () => undefined } } as unknown as FastifyRequest;
    await expect(erasePerson(up.db, up.config, asBuddy, adminId)).rejects.toMatchObject({ code: 'last_admin' });
    expect((await up.db.query<{ email: string }>('select email from users where id = $1', [adminId])).rows[0]!.email).toBe('admin@example.com');
  });

  it('erases them: no table and no upload file holds any of their values, and the history still verifies', async () => {
    expect(await columnsHoldingThem()).not.toEqual([]);
    const res = await call(`users/${personId}/erase/`, { body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ id: personId, email: `erased+${personId}@invalid`, first_name: null, is_active: false, roles: [], languages: [] });
    expect(await columnsHoldingThem()).toEqual([]);
    for (const file of filesUnder(uploadDir)) expect(readFileSync(file).toString('latin1')).not.toContain(tag);
    expect(filesUnder(uploadDir).some((file) => file.endsWith(uploadKey.split('/').pop()!))).toBe(false);
    // Their token no longer works, and the history holds: no hashed byte changed.
    expect((await call('account/', { as: 'person' })).status).toBe(401);
    expect(await verifyChain(up.db, up.config.auditKey)).toMatchObject({ ok: true });
    const { rows: newest } = await up.db.query<{ action: string; record_id: number; changes: unknown }>(
      'select action, record_id, changes from audit_log order by id desc limit 1',
    );
    expect(newest[0]).toMatchObject({ action: 'person_erased', record_id: personId, changes: {} });
    // The history reads "erased" where their values were.
    const history = (await call(`audit/?entity=users&record_id=${personId}&page_size=100`)).body.data.results as { action: string; changes: Record<string, unknown[]> }[];
    expect(history.find((e) => e.action === 'sign_in_failed')!.changes.email).toEqual([null, { $erased: true }]);
    expect(history.find((e) => e.action === 'update')!.changes.state).toEqual([null, { $erased: true }]);
    expect(JSON.stringify(history)).not.toContain(tag);
    expect((await call(`users/${personId}/erase/`, { body: {} })).body.error.message).toBe('already_erased');
  });
});
