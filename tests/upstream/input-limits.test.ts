import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writableFields, type EntityDef, type FieldDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { startUpstream } from '../../upstream/start.ts';
import { sampleInput } from '../support/entity-samples.ts';
import { testLogger } from '../support/run-log.ts';

/**
 * Issue 12 L2: no input reaches PostgreSQL only to fail there. Integers beyond int/bigint, dates outside
 * 1900–2200 (year 0000 does not exist in PostgreSQL), money beyond its column and text with a NUL character
 * are a 400 naming the field, on the REST API itself, for every entity's create and update and for the
 * account and user endpoints; and nothing anyone sends is ever answered 5xx.
 */
type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Answer = { status: number; body: { success: boolean; data: any; error: { message: string; cause: string; fields?: Record<string, string> } | null } };

const PASSWORD = 'limits-password-1';
let up: Upstream;
let admin = '';
let userToken = '';

async function call(method: string, path: string, body?: unknown, token = admin): Promise<Answer> {
  const res = await up.app.inject({
    method: method as 'GET',
    url: `/api/${path}`,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json() };
}

/** A 400 whose field messages name `field`. */
function expectFieldError(answer: Answer, field: string, context: string) {
  expect(answer.status, `${context}: ${JSON.stringify(answer.body)}`).toBe(400);
  expect(answer.body.error?.fields?.[field], `${context}: ${JSON.stringify(answer.body)}`).toEqual(expect.stringMatching(/^validation\./));
}

const NUL = 'a\u0000b';
const BAD: Record<FieldDef['kind'], unknown[]> = {
  text: [NUL, '\u0000'],
  phone: [NUL],
  email: ['a\u0000@example.com'],
  url: ['https://example.com/\u0000.png'],
  image: ['https://example.com/\u0000.png'],
  integer: [2 ** 31, -(2 ** 31) - 1, 2 ** 63, 1e300],
  reference: [2 ** 63, 1e300, -1],
  decimal: [1e12, -1e12, 1e300],
  money: [1e10, 10_000_000_000.5, 1e300, -1],
  boolean: ['\u0000', 2 ** 31],
  date: ['0000-01-01', '1899-12-31', '2201-01-01', '99999-01-01', '2026-01-01\u0000'],
  time: ['24:00', '\u0000'],
  datetime: ['0000-01-01T00:00:00Z', '2201-01-01T00:00:00Z', '-000001-01-01T00:00:00Z'],
  enum: [2 ** 31, '\u0000'],
};

beforeAll(async () => {
  up = await startUpstream({ port: 0, demoPassword: PASSWORD, logger: testLogger('upstream-limits', 'warn'), config: { scryptCost: 1024, logMailLinks: false } });
  const login = async (email: string) => (await up.app.inject({ method: 'POST', url: '/api/account/login', payload: { email, password: PASSWORD } })).json().data.token as string;
  [admin, userToken] = await Promise.all([login('admin@example.com'), login('buddy@example.com')]);
});
afterAll(async () => up?.close());

// Update-only entities (users) have no create; their update's limits are checked below with the account endpoints.
const writable = (ENTITIES as readonly EntityDef[]).filter((def) => !def.readOnly && !def.updateOnly);

describe.each(writable.map((def) => ({ name: def.name, def })))('$name: create and update refuse what PostgreSQL cannot store', ({ def }) => {
  it('answers 400 on the field, never 5xx', async () => {
    const base = sampleInput(def, `limits${def.name.length}`);
    const created = await call('POST', `${def.name}/`, base);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, version } = created.body.data;
    for (const [field, spec] of writableFields(def)) {
      for (const bad of BAD[spec.kind]) {
        const context = `${def.name}.${field} = ${JSON.stringify(bad)}`;
        expectFieldError(await call('POST', `${def.name}/`, { ...base, [field]: bad }), field, `create ${context}`);
        expectFieldError(await call('PUT', `${def.name}/${id}/`, { ...base, version, [field]: bad }), field, `update ${context}`);
        expectFieldError(await call('PATCH', `${def.name}/${id}/`, { version, [field]: bad }), field, `patch ${context}`);
      }
    }
    // List filters and search take the same values through the query string.
    expectFieldError(await call('GET', `${def.name}/?search=${encodeURIComponent(NUL)}`), 'search', `${def.name} search`);
    for (const [field, spec] of Object.entries(def.fields).filter(([, f]) => f.filter)) {
      const bad = spec.kind === 'date' ? '0000-01-01' : spec.kind === 'integer' ? String(2 ** 31) : NUL;
      const key = spec.filter === 'range' ? `${field}_from` : field;
      expectFieldError(await call('GET', `${def.name}/?${key}=${encodeURIComponent(bad)}`), key, `${def.name} filter ${key}=${JSON.stringify(bad)}`);
    }
  });
});

describe('account and user endpoints', () => {
  it('refuses user_type ≥ 2^31, year-0000 dates and NUL with a field message (the reported cases)', async () => {
    // The users list filter that answered 500: an integer column compared with 2^31.
    expectFieldError(await call('GET', `users/?user_type=${2 ** 31}`), 'user_type', 'users list user_type');
    expectFieldError(await call('GET', 'users/?user_type=3'), 'user_type', 'users list unknown user_type');
    expectFieldError(await call('GET', `users/?search=${encodeURIComponent(NUL)}`), 'search', 'users list search');
    expectFieldError(await call('GET', `buddies/?role=${encodeURIComponent(NUL)}`), 'role', 'buddies role');

    const user = (await call('GET', 'users/?search=klara')).body.data.results[0];
    const detail = (await call('GET', `users/${user.id}/`)).body.data;
    const form = { first_name: detail.first_name, last_name: detail.last_name, is_active: true, user_type: detail.user_type, version: detail.version };
    expectFieldError(await call('PUT', `users/${user.id}/`, { ...form, user_type: 2 ** 31 }), 'user_type', 'user update user_type');
    expectFieldError(await call('PUT', `users/${user.id}/`, { ...form, version: 2 ** 31 }), 'version', 'user update version');
    for (const field of ['first_name', 'last_name', 'biography', 'city', 'post_code', 'social_security_number', 'phone_number']) {
      expectFieldError(await call('PUT', `users/${user.id}/`, { ...form, [field]: NUL }), field, `user update ${field}`);
    }
    expectFieldError(await call('POST', `users/${user.id}/languages/`, { language_id: 1e300 }), 'language_id', 'user language');
    expectFieldError(await call('POST', `users/${user.id}/competencies/`, { competence_id: 2 ** 63 }), 'competence_id', 'user competence');
    expectFieldError(await call('POST', `users/${user.id}/operational-range/`, { operational_range_id: 2 ** 63 }), 'operational_range_id', 'operational range');
    expectFieldError(await call('POST', `users/${user.id}/roles/`, { role: NUL }), 'role', 'user role');

    expectFieldError(await call('PUT', 'account/', { first_name: NUL, last_name: 'Buddy' }, userToken), 'first_name', 'own profile first name');
    expectFieldError(await call('PUT', 'account/', { first_name: 'Bo', last_name: 'Buddy', biography: `bio ${NUL}` }, userToken), 'biography', 'own profile biography');
    expectFieldError(await call('POST', 'users/invite/', { email: 'limits@example.com', first_name: NUL }), 'first_name', 'invite first name');
    expectFieldError(await call('POST', 'users/invite/', { email: 'limits@example.com', user_type: 2 ** 31 }), 'user_type', 'invite user type');
    expectFieldError(await call('POST', `users/${2 ** 63}/resend-invite/`, {}), 'id', 'resend invite');
    expectFieldError(await call('POST', 'users/bulk-invite/', { emails: `limits2${NUL}@example.com` }), 'emails', 'bulk invite');
    expectFieldError(await call('POST', 'account/login', { email: 'admin@example.com', password: `x${NUL}` }), 'password', 'login');
    expectFieldError(await call('POST', 'trial-groups/1/invites/', { emails: `x${NUL}@example.com` }), 'emails', 'trial group invite');
    // Nothing half-written: the user is as they were.
    expect((await call('GET', `users/${user.id}/`)).body.data).toMatchObject({ first_name: detail.first_name, version: detail.version });
  });

  it('maps what a schema might still miss to 400, never 500: the data-exception backstop', async () => {
    // An id only the database can judge: a float where an integer column is compared.
    const answers = await Promise.all([
      call('GET', 'users/1.5/'),
      call('GET', `companies/${'9'.repeat(30)}/`),
      call('POST', `subscriptions/${2 ** 60}/cancel/`, {}),
      call('GET', `public/subscription-plans/${encodeURIComponent(NUL)}/`),
    ]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
  });

  it('never answers 5xx to generated bodies with out-of-range and unstorable values, on any write route', async () => {
    const doc = (await up.app.inject({ method: 'GET', url: '/openapi.json', headers: { authorization: `Bearer ${admin}` } })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ['post', 'put', 'patch'].includes(m) && path.startsWith('/api/') && !/logout|refresh-token/.test(path))
        .map((method) => ({ method: method.toUpperCase(), path: path.slice('/api/'.length).replace(/\{[^}]+\}/g, '1') })),
    );
    expect(routes.length).toBeGreaterThan(40);
    const nasty = fc.oneof(
      fc.constantFrom(NUL, '\u0000', 2 ** 31, -(2 ** 31) - 1, 2 ** 63, 1e300, -1e300, '0000-01-01', '0000-01-01T00:00:00Z', '2201-13-45', '24:61', 1e10, 'NaN', '1e400', ''),
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    );
    const keys = [
      'id',
      'version',
      'name',
      'email',
      'user_type',
      'first_name',
      'status',
      'date',
      'service_date',
      'start_date',
      'amount',
      'price_sek',
      'to',
      'url',
      'emails',
      'user_id',
      'language_id',
      'role',
      'invites',
      'at_period_end',
      'max_uses',
      'latitude',
    ];
    const body = fc.dictionary(fc.constantFrom(...keys), nasty, { maxKeys: 6 });
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(body, async (input) => {
          const answer = await call(route.method, route.path, input);
          expect(answer.status, `${route.method} ${route.path} ${JSON.stringify(input)} → ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        }),
        { numRuns: 15 },
      );
    }
  });
});
