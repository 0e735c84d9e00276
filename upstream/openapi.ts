import { z } from 'zod';
import { statusFieldOf, writeRoles, type EntityDef } from '../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, listParamsSchema } from '../shared/entity/schemas.ts';

/**
 * The routes that are not generic entity resources, each with what it does (spec §7 and ADRs 002, 009,
 * 012, 014, 016). The document lists every registered route; a test fails when one has no entry here.
 */
export const HAND_WRITTEN_ROUTES: Record<string, string> = {
  'POST /api/account/login': 'Sign in: {email, password} → {token, refresh_token} (§7); one answer for every failure, throttled per client and account (ADR 018)',
  'POST /api/account/refresh-token': 'Rotate a refresh token: {refresh_token} → a new pair; the old one repeats it for a grace window (ADR 004)',
  'POST /api/account/logout': 'Revoke a refresh token and its family: the session ends, its access tokens too (ADR 017)',
  'POST /api/account/invite': 'Invite one user (Admin): pending account, mailed link (§7)',
  'POST /api/account/bulk-invite': 'Invite several: {invites: [...]} → a result per address (§7)',
  'POST /api/account/resend-invite': 'Mail a new invitation link; the old one stops working; re-opens a canceled invitation of an active account (Admin)',
  'POST /api/account/cancel-invite': 'Cancel a pending invitation: its links stop working and it can no longer be accepted (Admin, ADR 018)',
  'POST /api/account/forgot-password': 'Mail a reset link when the address has an account; answers the same either way, limited per address and client (§7, ADR 018)',
  'POST /api/account/reset-password': 'Set a new password with a mailed token (§7)',
  'POST /api/account/accept-invite': 'Choose a password with an invitation token (§7)',
  'POST /api/account/change-email': 'Ask to change the signed-in user’s address; mails a confirmation link to the new one',
  'POST /api/account/confirm-email': 'Confirm an address (the account’s own or a requested change) with a mailed token (§7)',
  'GET /api/account/': 'The signed-in user’s profile (§7)',
  'PUT /api/account/': 'Update the signed-in user’s profile fields (§7)',
  'POST /api/auth/google': 'Sign in with a verified Google ID token (§7)',
  'GET /api/upload/': 'A signed upload address for {kind, content_type} and the file’s public address (§7)',
  'PUT /files/upload/*': 'The signed upload target: JPEG or PNG body with its content type and x-amz-acl: public-read',
  'GET /files/*': 'An uploaded file',
  'GET /api/users/': 'Users list with search, role, type and status filters (Admin, Shop)',
  'GET /api/buddies/': 'Active users holding the Buddy role (§3)',
  'GET /api/users/:id/': 'A user with languages and competencies (Admin)',
  'PUT /api/users/:id/': 'Update a user’s fields, guarded by version (Admin)',
  'PUT /api/users/:id/operational-range/': 'Set or clear a user’s operational range (Admin)',
  'POST /api/users/:id/roles/': 'Assign a role {role} (Admin)',
  'DELETE /api/users/:id/roles/:target/': 'Remove a role (Admin)',
  'POST /api/users/:id/languages/': 'Add a language {language_id} (Admin)',
  'DELETE /api/users/:id/languages/:target/': 'Remove a language (Admin)',
  'POST /api/users/:id/competencies/': 'Add a competence {competence_id} (Admin)',
  'DELETE /api/users/:id/competencies/:target/': 'Remove a competence (Admin)',
  'POST /api/bicycles/:id/activate/': 'Activate a bicycle (the owner’s limit applies)',
  'POST /api/bicycles/:id/deactivate/': 'Deactivate a bicycle',
  'GET /api/bicycles/:id/services/': 'A bicycle’s service history, newest first, paged (?page, ?page_size; 10 by default): type, status, buddy, notes, rating and the checklist in two counts (ADR 023)',
  'GET /api/dispatch/': 'The dispatch board of a day (?date=YYYY-MM-DD, Admin): every active buddy’s work and not-working slots, places held per slot and day, and the day’s services, in one snapshot (ADR 022)',
  'GET /api/bicycles/:id/images/': 'A bicycle’s images and defect images',
  'POST /api/bicycles/:id/images/': 'Attach an uploaded image {url, kind: image | defect}',
  'DELETE /api/bicycles/:id/images/:imageId/': 'Remove an image',
  'GET /api/promo-codes/:id/users/': 'Users who used a promo code',
  'GET /api/services/:id/details/': 'A service’s details, one per service item (§3)',
  'PUT /api/services/:id/details/:itemId/': 'Record a service item’s check status, needs-repair flag and notes',
  'POST /api/services/:id/details/:itemId/images/': 'Attach an uploaded image to a service detail',
  'DELETE /api/services/:id/details/:itemId/images/:imageId/': 'Remove a service detail image',
  'POST /api/subscriptions/:id/activate/': 'Activate a subscription; idempotent, `changed: false` when it already was (ADR 012, 019)',
  'POST /api/subscriptions/:id/cancel/': 'Cancel now (pro-rata refund of what was paid for the period) or at the period end {at_period_end}; idempotent (ADR 012, 019)',
  'GET /api/subscriptions/:id/refunds/': 'The refunds a subscription paid out, newest first, with who cancelled (ADR 019)',
  'GET /api/public/subscription-plans/:slug/': 'A plan for the public plan page; no token needed',
  'GET /api/trial-groups/:id/users/': 'A trial group’s members',
  'POST /api/trial-groups/:id/users/': 'Add an existing user to a trial group',
  'DELETE /api/trial-groups/:id/users/:userId/': 'Remove a member',
  'GET /api/trial-groups/:id/invites/': 'A trial group’s invitations and their states (ADR 014)',
  'POST /api/trial-groups/:id/invites/': 'Invite by e-mail through the account invitation (ADR 014)',
  'POST /api/trial-groups/:id/reinvite/': 'Re-send invitations to those who have not registered',
  'GET /api/trial-groups/:id/statistics/': 'Invited, registered and member counts',
  'GET /api/dashboard/': 'The §1 counters and last-30-day series (Admin), or a Buddy’s own figures (ADR 016)',
  'GET /api/statistics/': 'Services per status and week, members per month (Admin, ADR 016)',
};

/** OpenAPI 3.1 document of the API: generic resources generated from the zod schemas that validate them, the others from their routes. */
export function openApiDocument(entities: readonly EntityDef[], routes: readonly { method: string; url: string }[] = []) {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  const envelope = (ref: unknown) => ({
    type: 'object',
    required: ['success', 'data', 'error'],
    properties: { success: { type: 'boolean' }, data: ref, error: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Error' }] } },
  });
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
  schemas.Error = {
    type: 'object',
    properties: { message: { type: 'string', description: 'error code' }, cause: { type: 'string' }, fields: { type: 'object', additionalProperties: { type: 'string' } } },
  };
  schemas.Paginator = { type: 'object', properties: { page: { type: 'integer' }, page_size: { type: 'integer' }, count: { type: 'integer' }, total_pages: { type: 'integer' } } };
  for (const def of entities) {
    const name = def.name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
    const input = z.toJSONSchema(createSchema(def), { io: 'input', unrepresentable: 'any' });
    schemas[`${name}Input`] = input;
    schemas[name] = {
      allOf: [
        { $ref: `#/components/schemas/${name}Input` },
        { type: 'object', properties: { id: { type: 'integer' }, version: { type: 'integer' }, created_at: { type: 'string' }, updated_at: { type: 'string' } } },
      ],
    };
    const ref = { $ref: `#/components/schemas/${name}` };
    const params = z.toJSONSchema(listParamsSchema(def), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    const query = Object.entries(params.properties ?? {})
      .filter(([key]) => key !== 'filters')
      .map(([key, schema]) => ({ name: key, in: 'query', schema }));
    const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
    paths[`/api/${def.name}/`] = {
      get: { summary: `List ${def.name}`, parameters: query, responses: { 200: json(envelope({ type: 'object', properties: { results: { type: 'array', items: ref }, paginator: { $ref: '#/components/schemas/Paginator' } } })) } },
      post: { summary: `Create`, requestBody: json({ $ref: `#/components/schemas/${name}Input` }), responses: { 201: json(envelope(ref)), 400: json(envelope({ type: 'null' })) } },
    };
    if (def.exportable) {
      paths[`/api/${def.name}/export/`] = {
        get: { summary: 'The list as CSV (same search and filters, every row), streamed', parameters: query, responses: { 200: { content: { 'text/csv': { schema: { type: 'string' } } } } } },
      };
    }
    // Read-only entities (ADR 013) are written elsewhere in the marketplace: reads only.
    if (def.readOnly) {
      paths[`/api/${def.name}/`] = { get: (paths[`/api/${def.name}/`] as { get: unknown }).get };
      paths[`/api/${def.name}/{id}/`] = { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: json(envelope(ref)), 404: json(envelope({ type: 'null' })) } } };
      continue;
    }
    paths[`/api/${def.name}/{id}/`] = {
      get: { parameters: id, responses: { 200: json(envelope(ref)), 404: json(envelope({ type: 'null' })) } },
      put: { parameters: id, requestBody: json({ allOf: [{ $ref: `#/components/schemas/${name}Input` }, { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } }] }), responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) } },
      patch: { parameters: id, responses: { 200: json(envelope(ref)), 409: json(envelope({ type: 'null' })) } },
      delete: { parameters: id, responses: { 200: json(envelope({ type: 'object' })), 409: json(envelope({ type: 'null' })) } },
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
  }
  // Every other registered route, with its summary (`:param` → `{param}`).
  for (const route of routes) {
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const method = route.method.toLowerCase();
    if (method === 'head' || method === 'options' || !/^\/(api|files)\//.test(route.url)) continue;
    const existing = (paths[path] ??= {}) as Record<string, unknown>;
    if (existing[method]) continue;
    existing[method] = { summary: HAND_WRITTEN_ROUTES[`${route.method} ${route.url}`] ?? 'undocumented', responses: { 200: json(envelope({})) } };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Bike Buddy marketplace API (reference implementation)', version: '1.0.0' },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
