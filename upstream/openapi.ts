import { z } from 'zod';
import { actionRoles, isRecordAction, ownActions, segmentOf, statusFieldOf, subResourceKey, subResourceWriteRoles, writeRoles, type EntityDef } from '../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, inputFieldsSchema, listParamsSchema, subResourceSetManySchema } from '../shared/entity/schemas.ts';
import { readThroughRoles, upstreamReadScopes } from '../shared/entity/access-roles.ts';

/** Who reads one record: the entity's readers, and those reading it through a record they own (ADR 044). */
function readersOf(def: EntityDef): string {
  const through = readThroughRoles(def);
  return `${upstreamReadScopes(def).join(', ')}${through.length ? `; ${through.join(', ')} for a record one of their own ${def.access!.readThrough!.map((r) => r.entity).join(' or ')} names` : ''}`;
}

/**
 * The routes that are neither generic entity resources nor declared actions and sub-resources (those are
 * derived from the definitions, ADR 032), each with what it does (spec §7 and ADRs 002, 014, 016). The
 * document lists every registered route; a test fails when one has no entry here.
 */
export const HAND_WRITTEN_ROUTES: Record<string, string> = {
  'POST /api/account/login': 'Sign in: {email, password} → {token, refresh_token} (§7); one answer for every failure, throttled per client and account (ADR 018)',
  'POST /api/account/refresh-token': 'Rotate a refresh token: {refresh_token} → a new pair; the old one repeats it for a grace window (ADR 004)',
  'POST /api/account/logout': 'Revoke a refresh token and its family: the session ends, its access tokens too (ADR 017)',
  'POST /api/account/forgot-password': 'Mail a reset link when the address has an account; answers the same either way, limited per address and client (§7, ADR 018)',
  'POST /api/account/reset-password': 'Set a new password with a mailed token (§7)',
  'POST /api/account/accept-invite': 'Choose a password with an invitation token (§7)',
  'POST /api/account/change-email': 'Ask to change the signed-in user’s address; mails a confirmation link to the new one',
  'POST /api/account/confirm-email': 'Confirm an address (the account’s own or a requested change) with a mailed token (§7)',
  'GET /api/account/': 'The signed-in user’s profile (§7)',
  'PUT /api/account/': 'Update the signed-in user’s profile fields (§7)',
  'POST /api/auth/google': 'Sign in with a verified Google ID token (§7)',
  'POST /api/account/login/second-factor':
    'The second step of a sign-in (ADR 068): {challenge, code} with an authenticator app code or a recovery code → {token, refresh_token}; each code once, wrong codes slowed per address and account',
  'GET /api/account/factors': 'The signed-in user’s second factors: the authenticator app (whether set up), recovery codes left, whether their roles require one (ADR 068)',
  'POST /api/account/factors/totp': 'Start setting up an authenticator app: a new secret and its otpauth address, shown once (ADR 068)',
  'POST /api/account/factors/totp/confirm': 'Confirm the authenticator app with a code: the factor is on, ten recovery codes shown once, the user’s other sessions end (ADR 068)',
  'POST /api/account/factors/totp/remove':
    'Remove the authenticator app, with fresh proof in the request ({code}, {password} or {passkey}); refused for the last factor where the policy requires one (ADR 068, 075)',
  'POST /api/account/factors/recovery-codes': 'Ten new recovery codes, shown once; the old ones stop working and the user’s other sessions end (ADR 068)',
  'POST /api/account/factors/passkey/options':
    'Options for registering a passkey (ADR 075): a sealed challenge (five minutes, used once), the relying party, the passkeys the user has',
  'POST /api/account/factors/passkey':
    'Register a passkey: {name, response} with the browser’s attestation, user verification required; the user’s other sessions end; a first factor answers ten recovery codes (ADR 075)',
  'POST /api/account/factors/passkey/confirm-options':
    'Options for confirming it is the signed-in user with one of their passkeys: a sealed challenge bound to the user (five minutes, used once), their passkeys allowed (ADR 075)',
  'POST /api/account/factors/passkey/:id/remove':
    'Remove one of the signed-in user’s passkeys, with fresh proof in the request ({password}, {code} or {passkey}: an answer to a confirm challenge); without it 400 fresh_proof_required; refused for the last factor where the policy requires one (ADR 075)',
  'POST /api/account/login/passkey/options':
    'Options for signing in with a passkey: a sealed challenge, any discoverable passkey of this site, user verification required (ADR 075)',
  'POST /api/account/login/passkey':
    'Sign in with a passkey: {response} with the browser’s assertion → {token, refresh_token}; the challenge once, the counter moved on, the user verified (ADR 075)',
  'GET /api/account/sessions': 'The signed-in user’s sessions: browser, address, signed in, last used, which is this one (ADR 068)',
  'POST /api/account/sessions/:id/end': 'End one of the signed-in user’s sessions (ADR 068)',
  'GET /api/second-factor-policy': 'The roles that must have a second factor (Admin, ADR 068)',
  'PUT /api/second-factor-policy': 'Set the roles that must have a second factor: {roles} (Admin, ADR 068)',
  'GET /api/upload/': 'A signed upload address for {kind, content_type} and the file’s public address (§7)',
  'PUT /files/upload/*': 'The signed upload target: JPEG or PNG body with its content type and x-amz-acl: public-read',
  'GET /files/*': 'An uploaded file',
  'GET /api/users/': 'Users list with search, role, type and status filters (Admin, Shop)',
  'GET /api/users/:id/export/':
    'Everything stored about a person (ADR 076): ?format=json (the users row, every table that refers to them, their history with personal values opened) or csv (table, row, column, value; formula cells escaped); Admin; recorded as person_exported',
  'GET /api/buddies/': 'Active users holding the Buddy role (§3)',
  'GET /api/dispatch/':
    'The dispatch board of a day (?date=YYYY-MM-DD, Admin): every active buddy’s work and not-working slots, places held per slot and day, and the day’s services, in one snapshot (ADR 022)',
  'POST /api/services/:id/details/:key/images/': 'Attach an uploaded image to a service detail',
  'DELETE /api/services/:id/details/:key/images/:imageId/': 'Remove a service detail image',
  'GET /api/public/subscription-plans/:slug/': 'A plan for the public plan page; no token needed',
  'GET /api/trial-groups/:id/statistics/': 'Invited, registered and member counts',
  'GET /api/audit/':
    'The change history, newest first, paged (?page=&page_size=) and filtered by entity, record_id, user_id, action and an inclusive from/to day range: each entry with its author’s name (Admin; anyone else one record of an entity with an owner field that is theirs, ADR 036)',
  'GET /api/audit/export/': 'The change history of the same filters as CSV, streamed, oldest first (Admin, ADR 036)',
  'GET /api/audit/verify/':
    'The change history’s hash chain checked end to end (Admin): {ok, count} or the first entry edited, removed or reordered {ok: false, firstBadId, reason} (ADR 035)',
  'GET /api/audit/events/':
    'The change history’s entries as Server-Sent Events, live (PostgreSQL NOTIFY) and, after Last-Event-ID, replayed within the last 1000 entries and 10 minutes: {id, entity, record_id, action, user_id, owner} (the back office’s X-Forwarded-Secret, or Admin; ADR 037)',
  'GET /api/dashboard/': 'The §1 counters and last-30-day series (Admin), or a Buddy’s own figures (ADR 016)',
  'GET /api/statistics/': 'Services per status and week, members per month (Admin, ADR 016)',
};

const envelope = (ref: unknown) => ({
  type: 'object',
  required: ['success', 'data', 'error'],
  properties: { success: { type: 'boolean' }, data: ref, error: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Error' }] } },
});
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

/** OpenAPI 3.1 document of the API: generic resources generated from the zod schemas that validate them, the others from their routes. */
export function openApiDocument(entities: readonly EntityDef[], routes: readonly { method: string; url: string }[] = []) {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  schemas.Error = {
    type: 'object',
    properties: { message: { type: 'string', description: 'error code' }, cause: { type: 'string' }, fields: { type: 'object', additionalProperties: { type: 'string' } } },
  };
  schemas.Paginator = {
    type: 'object',
    properties: {
      page: { type: 'integer' },
      page_size: { type: 'integer' },
      count: { type: 'integer', description: 'Exact up to the threshold; past it the database’s estimate, with `estimated` (ADR 040).' },
      total_pages: { type: 'integer' },
      estimated: { type: 'boolean' },
      has_next: { type: 'boolean' },
    },
  };
  for (const def of entities) {
    const name = def.name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
    Object.assign(schemas, entitySchemas(def, name));
    Object.assign(paths, genericPaths(def, name));
  }
  for (const def of entities) for (const [path, methods] of Object.entries(declaredPaths(def))) paths[path] = { ...(paths[path] as object), ...methods };
  addRegisteredRoutes(paths, routes);
  return {
    openapi: '3.1.0',
    info: { title: 'Bike Buddy marketplace API (reference implementation)', version: '1.0.0' },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

/** An entity's schemas: its input, as creating a record validates it, and the record with its id, version and timestamps. */
function entitySchemas(def: EntityDef, name: string): Record<string, unknown> {
  return {
    [`${name}Input`]: z.toJSONSchema(createSchema(def), { io: 'input', unrepresentable: 'any' }),
    [name]: {
      allOf: [
        { $ref: `#/components/schemas/${name}Input` },
        { type: 'object', properties: { id: { type: 'integer' }, version: { type: 'integer' }, created_at: { type: 'string' }, updated_at: { type: 'string' } } },
      ],
    },
  };
}

/** The paths of an entity's generic resource: list and create, export, one record, its transition and the calendar. */
function genericPaths(def: EntityDef, name: string): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const ref = { $ref: `#/components/schemas/${name}` };
  const params = z.toJSONSchema(listParamsSchema(def), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
  const query = Object.entries(params.properties ?? {})
    .filter(([key]) => key !== 'filters')
    .map(([key, schema]) => ({ name: key, in: 'query', schema }));
  const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
  paths[`/api/${def.name}/`] = {
    get: {
      summary: `List ${def.name}`,
      parameters: query,
      responses: { 200: json(envelope({ type: 'object', properties: { results: { type: 'array', items: ref }, paginator: { $ref: '#/components/schemas/Paginator' } } })) },
    },
    ...(def.updateOnly
      ? {}
      : {
          post: {
            summary: `Create`,
            requestBody: json({ $ref: `#/components/schemas/${name}Input` }),
            responses: { 201: json(envelope(ref)), 400: json(envelope({ type: 'null' })) },
          },
        }),
  };
  if (def.exportable) {
    paths[`/api/${def.name}/export/`] = {
      get: {
        summary: 'The list as CSV (same search and filters, every row), streamed',
        parameters: query,
        responses: { 200: { content: { 'text/csv': { schema: { type: 'string' } } } } },
      },
    };
  }
  // Read-only entities (ADR 013) are written elsewhere in the marketplace: reads only.
  if (def.readOnly) {
    paths[`/api/${def.name}/`] = { get: (paths[`/api/${def.name}/`] as { get: unknown }).get };
    paths[`/api/${def.name}/{id}/`] = {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { 200: json(envelope(ref)), 404: json(envelope({ type: 'null' })) },
      },
    };
    return paths;
  }
  paths[`/api/${def.name}/{id}/`] = {
    get: { parameters: id, responses: { 200: json(envelope(ref)), 404: json(envelope({ type: 'null' })) } },
    put: {
      parameters: id,
      requestBody: json({ allOf: [{ $ref: `#/components/schemas/${name}Input` }, { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } }] }),
      responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) },
    },
    patch: { parameters: id, responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) } },
    ...(def.updateOnly ? {} : { delete: { parameters: id, responses: { 200: json(envelope({ type: 'object' })), 409: json(envelope({ type: 'null' })) } } }),
  };
  const status = statusFieldOf(def);
  if (status) {
    const steps = status[1].status.transitions.map((t) => `${t.from}→${t.to}${t.roles ? ` (${t.roles.join(', ')})` : ''}`).join(', ');
    paths[`/api/${def.name}/{id}/transition/`] = {
      post: {
        summary: `Change the ${status[0]}: ${steps}; new records start in ${status[1].status.initial.join(' or ')}. Roles: ${writeRoles(def, 'transition').join(', ')}.`,
        parameters: id,
        requestBody: json({ type: 'object', required: ['to'], properties: { to: { type: 'integer', enum: status[1].options }, version: { type: 'integer' } } }),
        responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) },
      },
    };
  }
  if (def.calendarField) {
    const calendar = z.toJSONSchema(calendarParamsSchema(def), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    paths[`/api/${def.name}/calendar/`] = {
      get: {
        summary: `Every record with ${def.calendarField} in [from, to] (at most 62 days), filtered like the list`,
        parameters: Object.entries(calendar.properties ?? {})
          .filter(([key]) => key !== 'filters')
          .map(([key, schema]) => ({ name: key, in: 'query', required: true, schema })),
        responses: { 200: json(envelope({ type: 'object', properties: { results: { type: 'array', items: ref }, truncated: { type: 'boolean' } } })) },
      },
    };
  }
  return paths;
}

/** Every other registered route, with its summary (`:param` → `{param}`). */
function addRegisteredRoutes(paths: Record<string, unknown>, routes: readonly { method: string; url: string }[]) {
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const method = route.method.toLowerCase();
    if (method === 'head' || method === 'options' || !/^\/(api|files)\//.test(route.url)) continue;
    const existing = (paths[path] ??= {}) as Record<string, unknown>;
    if (existing[method]) continue;
    existing[method] = { summary: HAND_WRITTEN_ROUTES[`${route.method} ${route.url}`] ?? 'undocumented', responses: { 200: json(envelope({})) } };
  }
}

/** The OpenAPI entries of an entity's declared actions and sub-resources (ADR 032), bodies from their input fields. */
function declaredPaths(def: EntityDef): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemaOf = (fields: Parameters<typeof inputFieldsSchema>[0]) => z.toJSONSchema(inputFieldsSchema(fields), { io: 'input', unrepresentable: 'any' });
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };
  const refused = { 403: json(envelope({ type: 'null' })), 404: json(envelope({ type: 'null' })), 409: json(envelope({ type: 'null' })) };
  for (const [key, action] of ownActions(def)) {
    const record = isRecordAction(action);
    const path = record ? `/api/${def.name}/{id}/${segmentOf(key, action.path)}/` : `/api/${def.name}/${segmentOf(key, action.path)}/`;
    const result =
      action.result === 'none' ? {} : typeof action.result === 'object' ? { type: 'object', properties: { [action.result.recordKey]: { type: 'object' } } } : { type: 'object' };
    (paths[path] ??= {}).post = {
      summary: `${key}: an action on ${record ? 'one record' : 'the collection'} of ${def.name}. Roles: ${actionRoles(def, action).join(', ')}.${action.versioned ? ' Send the version you saw (409 when stale).' : ''}`,
      parameters: record ? [id] : [],
      requestBody: json(schemaOf(action.input)),
      responses: { 200: json(envelope(result)), ...refused },
    };
  }
  for (const [key, sub] of Object.entries(def.subResources ?? {})) {
    const at = `/api/${def.name}/{id}/${segmentOf(key, sub.path)}/`;
    const item = schemaOf(sub.item);
    const writers = subResourceWriteRoles(def, sub).join(', ');
    const paging = sub.paged
      ? [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'page_size', in: 'query', schema: { type: 'integer', enum: [10, 25, 50, 100] } },
        ]
      : [];
    const list = sub.paged
      ? { type: 'object', properties: { results: { type: 'array', items: item }, paginator: { $ref: '#/components/schemas/Paginator' } } }
      : { type: 'array', items: item };
    paths[at] = {
      ...paths[at],
      get: {
        summary: `${key} of one ${def.name} record${sub.paged ? ', paged, newest first' : ''}. Roles: ${sub.readRoles ? sub.readRoles.join(', ') : readersOf(def)}.`,
        parameters: [id, ...paging],
        responses: { 200: json(envelope(list)), ...refused },
      },
      ...(sub.setMany
        ? {
            put: {
              summary: `Set many ${key} items at their keys, all or none (ADR 043). Roles: ${writers}.`,
              parameters: [id],
              requestBody: json(z.toJSONSchema(subResourceSetManySchema(sub), { io: 'input', unrepresentable: 'any' })),
              responses: { 200: json(envelope(list)), ...refused },
            },
          }
        : {}),
      ...(sub.add
        ? { post: { summary: `Add to ${key}. Roles: ${writers}.`, parameters: [id], requestBody: json(schemaOf(sub.add)), responses: { 201: json(envelope({})), ...refused } } }
        : {}),
    };
    const keyParam = { name: 'key', in: 'path', required: true, description: `the item's ${subResourceKey(sub)}`, schema: { type: 'string' } };
    if (sub.set || sub.remove) {
      paths[`${at}{key}/`] = {
        ...paths[`${at}{key}/`],
        ...(sub.set
          ? {
              put: {
                summary: `Set the ${key} item at a key. Roles: ${writers}.`,
                parameters: [id, keyParam],
                requestBody: json(schemaOf(sub.set)),
                responses: { 200: json(envelope(item)), ...refused },
              },
            }
          : {}),
        ...(sub.remove ? { delete: { summary: `Remove a ${key} item. Roles: ${writers}.`, parameters: [id, keyParam], responses: { 200: json(envelope({})), ...refused } } } : {}),
      };
    }
  }
  return paths;
}
