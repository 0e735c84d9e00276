import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writableFields, type EntityDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { routerKey } from '../../client/entity/entity-api.ts';
import { readOnlyRoundTrip, writableRoundTrip } from '../support/entity-round-trip.ts';
import { sampleInput } from '../support/entity-samples.ts';
import { agent, mutate, query, signIn, startAdminStack, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, openApiDocument, type Stack } from '../support/stack.ts';

let stack: Stack;
let admin: Agent;
beforeAll(async () => {
  ({ stack, admin } = await startAdminStack());
});
afterAll(async () => stack?.close());

describe.each((ENTITIES as readonly EntityDef[]).filter((d) => d.readOnly))('$name (read-only) through tRPC and the real upstream', (def) => {
  it('lists and reads the seeded records, and offers no writes here or upstream', async () => {
    const first = await readOnlyRoundTrip(admin, def);
    const login = await (
      await fetch(stack.upstream.url + 'account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
      })
    ).json();
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${login.data.token}` };
    expect((await fetch(`${stack.upstream.url}${def.name}/`, { method: 'POST', headers, body: '{}' })).status).toBe(404);
    expect((await fetch(`${stack.upstream.url}${def.name}/${first.id}/`, { method: 'DELETE', headers: { authorization: headers.authorization } })).status).toBe(404);
  });
});

// Update-only entities (users) are created by their own actions: tests/integration/users-and-bicycles.test.ts.
describe.each((ENTITIES as readonly EntityDef[]).filter((d) => !d.readOnly && !d.updateOnly))('$name through tRPC and the real upstream', (def) => {
  const key = routerKey(def);

  it('create → list finds it → update → stale update is 409 → delete', () => writableRoundTrip(admin, def));

  it('random input to create and update gives validation errors, never a 5xx', async () => {
    const fieldNames = writableFields(def).map(([name]) => name);
    const value = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    const record = fc.dictionary(fc.constantFrom(...fieldNames, 'id', 'version', '__proto__', 'password'), value, { maxKeys: fieldNames.length + 2 });
    await fc.assert(
      fc.asyncProperty(record, fc.boolean(), async (data, asUpdate) => {
        const res = asUpdate ? await mutate(admin, `${key}.update`, { id: 1, version: 999, data }) : await mutate(admin, `${key}.create`, data);
        expect(res.status).toBeLessThan(500);
        if (res.status === 400) expect(res.body.error.data.appCode).toBe('validation_error');
        if (res.status === 200 && !asUpdate) await mutate(admin, `${key}.delete`, { id: res.body.result.data.id });
      }),
      { numRuns: 40 },
    );
  });
});

describe('entity rules enforced by the upstream', () => {
  it('refuses a duplicate promo code with a message on the code field', async () => {
    const res = await mutate(admin, 'promoCodes.create', { code: 'spring26', max_uses: 5, starts_at: '2026-01-01', expires_at: '2026-02-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fieldErrors).toEqual({ code: 'validation.unique' });
  });

  it('N1: keeps the built-in roles; a rename gets a message on the name field the form shows, a delete its reason (ADR 028)', async () => {
    const roles = (await query(admin, 'roles.list', { page: 1, page_size: 100, filters: {} })).body.result.data.results as {
      id: number;
      name: string;
      description: string | null;
      version: number;
    }[];
    const adminRole = roles.find((r) => r.name === 'Admin')!;
    const renamed = await mutate(admin, 'roles.update', { id: adminRole.id, version: adminRole.version, data: { name: 'Administrators', description: adminRole.description } });
    expect(renamed.status).toBe(409);
    expect(renamed.body.error.data).toMatchObject({ appCode: 'built_in_role', fieldErrors: { name: 'validation.builtInRole' } });
    const deleted = await mutate(admin, 'roles.delete', { id: roles.find((r) => r.name === 'Buddy')!.id });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.data.appCode).toBe('built_in_role');
    // The Admin still signs in as Admin.
    expect((await query(admin, 'session.me')).body.result.data.roles).toContain('Admin');
  });

  it('refuses deleting a company other companies belong to', async () => {
    const res = await mutate(admin, 'companies.delete', { id: 1 });
    expect(res.status).toBe(409);
    expect(res.body.error.data.appCode).toBe('in_use');
  });

  it('lists the users who used a promo code', async () => {
    const res = await query(admin, 'promoCodes.users.list', { id: 1 });
    expect(res.body.result.data.map((u: { email: string }) => u.email).sort()).toEqual(['buddy@example.com', 'user@example.com']);
  });

  it('keeps catalogues for admins: a buddy is refused by the back office and by the upstream', async () => {
    const buddy = agent(stack);
    await signIn(buddy, 'buddy@example.com', DEMO_PASSWORD);
    expect((await query(buddy, 'roles.list', {})).status).toBe(403);
    const token = await (
      await fetch(stack.upstream.url + 'account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'buddy@example.com', password: DEMO_PASSWORD }),
      })
    ).json();
    const direct = await fetch(stack.upstream.url + 'roles/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token.data.token}` },
      body: JSON.stringify({ name: 'Hacker' }),
    });
    expect(direct.status).toBe(403);
    // Reads too: the upstream lets read what the back office lets read or choose (upstreamReadScopes).
    const read = (path: string) => fetch(stack.upstream.url + path, { headers: { authorization: `Bearer ${token.data.token}` } }).then((r) => r.status);
    expect(await read('companies/')).toBe(403);
    expect(await read('promo-codes/1/')).toBe(403);
    expect(await read('bicycles/export/')).toBe(403);
    expect(await read('service-slots/')).toBe(200); // a buddy chooses a slot for their work slots
    expect(await read('services/')).toBe(200);
  });

  it('sorts, filters and pages on the server', async () => {
    const res = await query(admin, 'serviceSlots.list', { ordering: '-start_time', filters: { is_active: 'true' }, page_size: 10 });
    const rows = res.body.result.data.results as { start_time: string; is_active: boolean }[];
    expect(rows.every((r) => r.is_active)).toBe(true);
    expect(rows.map((r) => r.start_time)).toEqual([...rows.map((r) => r.start_time)].sort().reverse());
    const second = await query(admin, 'companies.list', { page: 2, page_size: 10 });
    expect(second.body.result.data).toMatchObject({ results: [], paginator: { page: 2, count: 3, total_pages: 1 } });
  });

  it('serves an OpenAPI document generated from the schemas', async () => {
    const doc = await openApiDocument<{ paths: Record<string, unknown>; components: { schemas: Record<string, { required?: string[] }> } }>(stack.upstream);
    expect(Object.keys(doc.paths)).toContain('/api/promo-codes/{id}/');
    expect(doc.components.schemas.PromoCodesInput!.required).toEqual(expect.arrayContaining(['code', 'max_uses', 'starts_at', 'expires_at']));
    expect(Object.keys(doc.paths['/api/event-bookings/'] as object)).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/events/{id}/'] as object)).toEqual(['get', 'put', 'patch', 'delete']);
    // Every route of the API is in the document, and every one says what it does.
    const undocumented = Object.entries(doc.paths as Record<string, Record<string, { summary?: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.summary === 'undocumented')
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undocumented).toEqual([]);
    expect((doc.paths['/api/dashboard/'] as { get: { summary: string } }).get.summary).toMatch(/§1 counters/);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/account/login', '/api/upload/', '/api/users/{id}/roles/', '/api/bicycles/export/']));
  });
});

describe('reference choices', () => {
  const userId = async (email: string) => (await query(admin, 'users.list', { search: email })).body.result.data.results[0].id as number;

  it('a reference naming a role takes only users holding it, on every entity that has one', async () => {
    const customer = await userId('user@example.com');
    const buddy = await userId('buddy@example.com');
    const withRole = (ENTITIES as readonly EntityDef[]).flatMap((def) =>
      Object.entries(def.fields)
        .filter(([, f]) => f.kind === 'reference' && f.reference?.role === 'Buddy' && !f.readOnly && !def.readOnly)
        .map(([name]) => [def, name] as const),
    );
    expect(withRole.map(([def, name]) => `${def.name}.${name}`)).toEqual(expect.arrayContaining(['services.buddy_id', 'events.buddy_id', 'buddy-work-slots.buddy_id']));
    for (const [def, name] of withRole) {
      const input = { ...sampleInput(def, `r${Date.now().toString(36)}`), [name]: customer };
      const refused = await mutate(admin, `${routerKey(def)}.create`, input);
      expect(refused.status, `${def.name}.${name}: ${refused.text}`).toBe(400);
      expect(refused.body.error.data.fieldErrors).toMatchObject({ [name]: 'validation.option' });
      const accepted = await mutate(admin, `${routerKey(def)}.create`, { ...input, [name]: buddy });
      expect(accepted.status, `${def.name}.${name}: ${accepted.text}`).toBe(200);
      await mutate(admin, `${routerKey(def)}.delete`, { id: accepted.body.result.data.id });
    }
  });

  it('a choice list holds the chosen record even when the search or the page leaves it out', async () => {
    const plain = await query(admin, 'companies.options', { search: 'no company is called this' });
    expect(plain.body.result.data).toEqual([]);
    const withCurrent = await query(admin, 'companies.options', { search: 'no company is called this', include: 1 });
    expect(withCurrent.body.result.data).toEqual([{ id: 1, label: expect.any(String) }]);
    // Users (by role) the same way: a customer is no buddy, but stays shown where one was chosen.
    const customer = await userId('user@example.com');
    const buddies = (await query(admin, 'users.options', { role: 'Buddy' })).body.result.data as { id: number }[];
    expect(buddies.map((b) => b.id)).not.toContain(customer);
    const kept = (await query(admin, 'users.options', { role: 'Buddy', include: customer })).body.result.data as { id: number; label: string }[];
    expect(kept[0]).toEqual({ id: customer, label: 'Una User <user@example.com>' });
    // A record that no longer exists is left out, not an error.
    expect((await query(admin, 'companies.options', { include: 999999 })).status).toBe(200);
  });

  it('a choice list for a new value leaves inactive catalogue entries out, but the one a record has (ADR 041)', async () => {
    const declaring = (ENTITIES as readonly EntityDef[]).filter((d) => d.activeField).map((d) => d.name);
    expect(declaring).toEqual(expect.arrayContaining(['service-types', 'service-slots', 'subscription-plans', 'products']));
    type Choice = { id: number; label: string; inactive?: boolean };
    const choices = async (input: Record<string, unknown>) => (await query(admin, 'serviceTypes.options', input)).body.result.data as Choice[];
    // The seeded "Winter tyres fitted" is inactive: filters and calendars still see it, a form's new choice does not.
    const all = await choices({});
    const winter = all.find((c) => c.label === 'Winter tyres fitted')!;
    expect(winter).toEqual({ id: expect.any(Number), label: 'Winter tyres fitted', inactive: true });
    const offered = await choices({ activeOnly: true });
    expect(offered.map((c) => c.label)).toEqual(expect.arrayContaining(['Repair', 'E-bike check']));
    expect(offered.map((c) => c.id)).not.toContain(winter.id);
    expect(offered.every((c) => !c.inactive)).toBe(true);
    // A service that has it: still among its form's choices, marked inactive.
    const kept = await choices({ activeOnly: true, include: winter.id });
    expect(kept[0]).toEqual({ id: winter.id, label: 'Winter tyres fitted', inactive: true });
    expect(kept.slice(1)).toEqual(offered);
    // The same rule on another catalogue: the paused service slot.
    const slots = (await query(admin, 'serviceSlots.options', { activeOnly: true })).body.result.data as Choice[];
    expect(slots.map((c) => c.label).some((l) => l.startsWith('Night'))).toBe(false);
  });
});
