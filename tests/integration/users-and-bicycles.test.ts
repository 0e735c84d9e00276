import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, mutate, query, signIn, startAdminStack, type Agent, exportCsv as exportCsvOf } from '../support/http.ts';
import { DEMO_PASSWORD, latestMail, linkPath, type Stack } from '../support/stack.ts';

let stack: Stack;
let admin: Agent;
beforeAll(async () => {
  ({ stack, admin } = await startAdminStack());
});
afterAll(async () => stack?.close());

const bicycle = (overrides: Record<string, unknown> = {}) => ({
  brand_and_model: 'Crescent Elsa',
  serial_number: 'WTU-1',
  groupset: 'Shimano Nexus',
  drivetrain: 'chain',
  front_brake: 'rim',
  lock_model: 'Abus',
  tyre_size: '40',
  tyre_diameter: '622',
  valve_type: 'dunlop',
  age_and_condition: 'good',
  purchase_date: '2024-04-01',
  ...overrides,
});

describe('users', () => {
  it('lists with search and filters; BuddyShop may list, not open or change', async () => {
    const buddies = await query(admin, 'users.list', { role: 'Buddy', page_size: 100 });
    expect(buddies.status).toBe(200);
    expect(buddies.body.result.data.results.every((u: { roles: string[] }) => u.roles.includes('Buddy'))).toBe(true);
    const found = await query(admin, 'users.list', { search: 'sam' });
    expect(found.body.result.data.results.map((u: { email: string }) => u.email)).toContain('shop@example.com');

    const shop = agent(stack);
    await signIn(shop, 'shop@example.com', DEMO_PASSWORD);
    const listed = await query(shop, 'users.list', { page_size: 100 });
    expect(listed.status).toBe(200);
    // The list carries its columns only: nothing private reaches a BuddyShop browser (or the SSR state).
    for (const user of listed.body.result.data.results) {
      for (const secret of ['social_security_number', 'biography', 'post_code', 'city', 'state', 'area']) expect(user).not.toHaveProperty(secret);
    }
    expect((await query(shop, 'users.get', { id: 1 })).status).toBe(403);
    expect((await mutate(shop, 'users.invite', { email: 'x@example.com' })).status).toBe(403);
  });

  it('invites, bulk invites per address, and resends through the outbox', async () => {
    const one = await mutate(admin, 'users.invite', { email: 'solo@example.com', roles: ['Buddy'] });
    expect(one.status).toBe(200);
    const firstLink = (await latestMail(stack.upstream, 'solo@example.com')).link;

    const bulk = await mutate(admin, 'users.bulkInvite', { emails: 'b1@example.com, not-an-address, solo@example.com,b2@example.com' });
    expect(bulk.body.result.data.results).toEqual([
      { email: 'b1@example.com', success: true, user_id: expect.any(Number) },
      { email: 'not-an-address', success: false, error: { message: 'validation_error', cause: 'Provided value is not Email.', fields: { email: 'validation.email' } } },
      { email: 'solo@example.com', success: false, error: { message: 'user_exists', cause: 'User already exists' } },
      { email: 'b2@example.com', success: true, user_id: expect.any(Number) },
    ]);
    expect((await latestMail(stack.upstream, 'b2@example.com')).kind).toBe('invite');

    const resent = await mutate(admin, 'users.resendInvite', { id: one.body.result.data.id });
    expect(resent.status).toBe(200);
    const secondLink = (await latestMail(stack.upstream, 'solo@example.com')).link;
    expect(secondLink).not.toBe(firstLink);
    const token = (link: string) => linkPath(link).split('/').pop();
    const old = await mutate(agent(stack), 'auth.acceptInvite', { token: token(firstLink), password: 'abc', password_confirm: 'abc' });
    expect(old.body.error.message).toBe('Provided token does not exist');
    expect((await mutate(agent(stack), 'auth.acceptInvite', { token: token(secondLink), password: 'abc', password_confirm: 'abc' })).status).toBe(200);
  });

  it('assigns and removes roles, languages and competencies, and edits fields with a version check', async () => {
    const user = (await query(admin, 'users.list', { search: 'buddy@example.com' })).body.result.data.results[0];
    const withShop = await mutate(admin, 'users.roles.add', { id: user.id, role: 'Shop' });
    expect(withShop.body.result.data.roles).toEqual(['Buddy', 'Shop']);
    const without = await mutate(admin, 'users.roles.remove', { id: user.id, key: 'Shop' });
    expect(without.body.result.data.roles).toEqual(['Buddy']);
    const lang = await mutate(admin, 'users.languages.add', { id: user.id, language_id: 2 });
    expect(lang.body.result.data.languages).toEqual([{ id: 2, name: 'Swedish' }]);
    const comp = await mutate(admin, 'users.competencies.add', { id: user.id, competence_id: 1 });
    expect(comp.body.result.data.competencies).toEqual([{ id: 1, name: 'Brakes' }]);

    const range = await mutate(admin, 'users.setOperationalRange', { id: user.id, operational_range_id: 2 });
    expect(range.body.result.data.operational_range_id).toBe(2);
    expect((await mutate(admin, 'users.setOperationalRange', { id: user.id, operational_range_id: 9999 })).body.error.data.fieldErrors).toEqual({
      operational_range_id: 'validation.option',
    });

    const current = (await query(admin, 'users.get', { id: user.id })).body.result.data;
    const data = { first_name: 'Bo', last_name: 'Buddy', is_active: true, user_type: 2, city: 'Solna' };
    const saved = await mutate(admin, 'users.update', { id: user.id, version: current.version, data });
    // The form's save leaves the range (set on its own) as it was.
    expect(saved.body.result.data).toMatchObject({ city: 'Solna', operational_range_id: 2, version: current.version + 1 });
    const stale = await mutate(admin, 'users.update', { id: user.id, version: current.version, data });
    expect(stale.status).toBe(409);
    expect((await mutate(admin, 'users.setOperationalRange', { id: user.id, operational_range_id: null })).body.result.data.operational_range_id).toBeNull();
  });

  it('lists buddies: active users holding the Buddy role', async () => {
    const res = await query(admin, 'users.buddies', {});
    const emails = res.body.result.data.results.map((u: { email: string }) => u.email);
    expect(emails).toContain('buddy@example.com');
    expect(emails).not.toContain('admin@example.com');
  });
});

describe('bicycles', () => {
  it('enforces §5 required fields and maximum lengths', async () => {
    const res = await mutate(admin, 'bicycles.create', { groupset: 'x'.repeat(21), year: '20245', brand_and_model: 'y'.repeat(46) });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fieldErrors).toMatchObject({
      groupset: 'validation.tooLong',
      brand_and_model: 'validation.tooLong',
      year: 'validation.tooLong',
      serial_number: 'validation.required',
      lock_model: 'validation.required',
      drivetrain: 'validation.required',
      age_and_condition: 'validation.required',
      tyre_size: 'validation.required',
      tyre_diameter: 'validation.required',
      front_brake: 'validation.required',
      valve_type: 'validation.required',
      purchase_date: 'validation.required',
    });
  });

  it("refuses a bicycle over the owner's limit with §8's message", async () => {
    const user = (await query(admin, 'users.list', { search: 'user@example.com' })).body.result.data.results[0];
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await mutate(admin, 'bicycles.create', bicycle({ serial_number: `LIM-${i}`, owner_id: user.id })));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 400]);
    expect(statuses[3]!.body.error.message).toBe('User reached maximum number of bicycles');

    // The limit holds however a bicycle would take a place: created inactive then activated, or moved
    // to the owner by an update. Racing writes for one owner cannot both take the last place.
    const spare = (await mutate(admin, 'bicycles.create', bicycle({ serial_number: 'LIM-spare', owner_id: user.id, is_active: false }))).body.result.data;
    const activate = await mutate(admin, 'bicycles.activate', { id: spare.id });
    expect(activate.status).toBe(400);
    expect(activate.body.error.data.appCode).toBe('max_bicycles_added');
    const unowned = (await mutate(admin, 'bicycles.create', bicycle({ serial_number: 'LIM-move' }))).body.result.data;
    const { id, version, created_at: _c, updated_at: _u, owner_id_label: _l, bicycle_type_id_label: _t, ...data } = unowned;
    const moved = await mutate(admin, 'bicycles.update', { id, version, data: { ...data, owner_id: user.id } });
    expect(moved.status).toBe(400);
    expect(moved.body.error.data.appCode).toBe('max_bicycles_added');
    // Editing a bicycle that already counts is not refused.
    const counted = statuses[0]!.body.result.data;
    const { id: cid, version: cv, created_at: _c2, updated_at: _u2, owner_id_label: _l2, bicycle_type_id_label: _t2, ...cdata } = counted;
    expect((await mutate(admin, 'bicycles.update', { id: cid, version: cv, data: { ...cdata, groupset: 'Shimano Alfine' } })).status).toBe(200);
    const active = await query(admin, 'bicycles.list', { filters: { owner_id: String(user.id), is_active: 'true' }, page_size: 100 });
    expect(active.body.result.data.paginator.count).toBe(3);
  });

  it("searches by brand and model, Bicycle ID and the owner's e-mail; filters by type and active", async () => {
    const ids = async (input: unknown) => (await query(admin, 'bicycles.list', input)).body.result.data.results.map((b: { id: number }) => b.id);
    const byOwner = await query(admin, 'bicycles.list', { search: 'alva.andersson0@' });
    expect(byOwner.body.result.data.results.length).toBeGreaterThan(0);
    expect(byOwner.body.result.data.results.every((b: { owner_id_label: string }) => b.owner_id_label === 'alva.andersson0@example.com')).toBe(true);
    expect((await ids({ search: 'WTU100000' })).length).toBe(1);
    expect((await ids({ search: 'monark' })).length).toBeGreaterThan(0);
    const inactive = await query(admin, 'bicycles.list', { filters: { is_active: 'false' }, page_size: 100 });
    expect(inactive.body.result.data.results.every((b: { is_active: boolean }) => !b.is_active)).toBe(true);
    const typed = await query(admin, 'bicycles.list', { filters: { bicycle_type_id: '2' }, page_size: 100 });
    expect(typed.body.result.data.results.every((b: { bicycle_type_id: number }) => b.bicycle_type_id === 2)).toBe(true);
  });

  it('activates and deactivates', async () => {
    const created = (await mutate(admin, 'bicycles.create', bicycle({ serial_number: 'ACT-1' }))).body.result.data;
    const off = await mutate(admin, 'bicycles.deactivate', { id: created.id });
    expect(off.body.result.data).toMatchObject({ is_active: false, version: 2 });
    const on = await mutate(admin, 'bicycles.activate', { id: created.id });
    expect(on.body.result.data).toMatchObject({ is_active: true, version: 3 });
  });

  it('attaches only images stored through our signed uploads', async () => {
    const created = (await mutate(admin, 'bicycles.create', bicycle({ serial_number: 'IMG-1' }))).body.result.data;
    const foreign = await mutate(admin, 'bicycles.images.add', { id: created.id, url: 'https://evil.example/x.png', kind: 'defect' });
    expect(foreign.status).toBe(400);
    // An address of ours whose upload never happened is not a stored file either (issue 12 M6).
    const unknown = await mutate(admin, 'bicycles.images.add', {
      id: created.id,
      url: `${stack.upstream.origin}/files/bicycle/00000000-0000-4000-8000-000000000000.png`,
      kind: 'defect',
    });
    expect(unknown.status).toBe(400);
    const signed = (await mutate(admin, 'upload.sign', { kind: 'bicycle', contentType: 'image/png' })).body.result.data;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
    expect((await fetch(signed.url, { method: 'PUT', body: new Uint8Array(png), headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' } })).status).toBe(200);
    const ours = await mutate(admin, 'bicycles.images.add', { id: created.id, url: signed.accessUrl, kind: 'defect' });
    expect(ours.status).toBe(200);
    expect((await query(admin, 'bicycles.images.list', { id: created.id })).body.result.data).toEqual([expect.objectContaining({ kind: 'defect' })]);
  });
});

describe('CSV export', () => {
  const exportCsv = (client: Agent, qs = '') => exportCsvOf(client, 'bicycles', qs);

  it('streams RFC 4180 rows with formulas neutralised and a safe file name, respecting filters', async () => {
    await mutate(
      admin,
      'bicycles.create',
      bicycle({ brand_and_model: '=HYPERLINK("http://x")', serial_number: '+SUM(A1)', age_and_condition: 'scratched, "loved"\nline two', insurance_company: '@evil' }),
    );
    const res = await exportCsv(admin, '?search=hyperlink');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="bicycles-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = res.body as string;
    const lines = text.split('\r\n');
    expect(lines[0]!.startsWith('id,brand_and_model,serial_number')).toBe(true);
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(text).toContain(`'+SUM(A1)`);
    expect(text).toContain(`"scratched, ""loved""\nline two"`);
    expect(text).toContain(`'@evil`);
    expect(lines.filter(Boolean)).toHaveLength(2);
  });

  it('needs the custom header and a signed-in admin', async () => {
    expect((await agent(stack).get('/export/bicycles.csv').set('x-backoffice-csrf', '1')).status).toBe(401);
    expect((await admin.get('/export/bicycles.csv')).status).toBe(403);
    expect((await admin.get('/export/bicycles.csv').set('x-backoffice-csrf', '1').set('sec-fetch-site', 'cross-site')).status).toBe(403);
    const buddy = agent(stack);
    await signIn(buddy, 'buddy@example.com', DEMO_PASSWORD);
    expect((await buddy.get('/export/bicycles.csv').set('x-backoffice-csrf', '1')).status).toBe(403);
    expect((await admin.get('/export/users.csv').set('x-backoffice-csrf', '1')).status).toBe(404);
  });

  it('streams 10 000 rows without a cap', async () => {
    await stack.upstream.db.exec(`
      insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date)
      select 'Bulk ' || g, 'BULK-' || g, 'g', 'chain', 'disc', 'lock', '35', '622', 'presta', 'ok', date '2024-01-01' from generate_series(1, 10000) g`);
    const res = await exportCsv(admin, '?search=bulk');
    const lines = (res.body as string).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(10_001);
    const total = (await query(admin, 'bicycles.list', { search: 'bulk' })).body.result.data.paginator.count;
    expect(lines.length - 1).toBe(total);
  });
});
