import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_RANGE, destinationPoint } from '../../shared/geo.ts';
import { agent, mutate, query, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, openApiDocument, startStack, type Stack } from '../support/stack.ts';

/**
 * Services through the back office: tRPC roles follow the entity access (ADR 009), the geocoder is
 * called server-side through a fake Nominatim (the only thing faked: a third party), the map's
 * configuration reaches the browser through the public whitelist and the tile origin the CSP (ADR 011).
 */
let stack: Stack;
let nominatim: Server;
let nominatimUrl = '';
const geocoderRequests: IncomingMessage[] = [];
let geocoderDown = false;
let admin: Agent;
let buddy: Agent;
let buddyId = 0;

const centre = DEFAULT_OPERATION_RANGE.centre;
const near = destinationPoint(centre, 30, 800);
const far = destinationPoint(centre, 200, 12_000);

beforeAll(async () => {
  nominatim = createServer((req, res) => {
    geocoderRequests.push(req);
    if (geocoderDown) return void res.writeHead(503).end('busy');
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/search') {
      res.end(
        JSON.stringify([
          { display_name: 'Drottninggatan 50, Norrmalm, Stockholm', lat: String(near.lat), lon: String(near.lng) },
          { display_name: 'Drottninggatan 5, Uppsala', lat: String(far.lat), lon: String(far.lng) },
          { display_name: 'broken', lat: 'north', lon: '' },
        ]),
      );
    } else if (url.pathname === '/reverse') {
      res.end(JSON.stringify({ display_name: 'Sergels torg, Stockholm', lat: url.searchParams.get('lat'), lon: url.searchParams.get('lon') }));
    } else res.end('[]');
  });
  await new Promise<void>((resolve) => nominatim.listen(0, '127.0.0.1', resolve));
  nominatimUrl = `http://127.0.0.1:${(nominatim.address() as { port: number }).port}/`;
  stack = await startStack({
    app: { geocoderUrl: nominatimUrl, map: { tileUrl: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png', tileAttribution: '© Example' }, version: 'test' },
  });
  admin = agent(stack);
  buddy = agent(stack);
  await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
  await signIn(buddy, 'buddy@example.com', DEMO_PASSWORD);
  buddyId = (await query(buddy, 'session.me')).body.result.data.user.id;
});
afterAll(async () => {
  await stack?.close();
  nominatim?.close();
});

describe('geocoding through a Nominatim-compatible service', () => {
  it('searches server-side, biased to the operation range, and says which results lie inside it', async () => {
    geocoderRequests.length = 0;
    const res = await query(buddy, 'geo.search', { query: 'Drottninggatan' });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual([
      { label: 'Drottninggatan 50, Norrmalm, Stockholm', lat: near.lat, lng: near.lng, inRange: true },
      { label: 'Drottninggatan 5, Uppsala', lat: far.lat, lng: far.lng, inRange: false },
    ]);
    const sent = new URL(geocoderRequests[0]!.url!, 'http://x');
    expect(sent.searchParams.get('q')).toBe('Drottninggatan');
    expect(sent.searchParams.get('format')).toBe('jsonv2');
    expect(sent.searchParams.get('viewbox')!.split(',').map(Number)[0]).toBeLessThan(centre.lng);
    expect(geocoderRequests[0]!.headers['user-agent']).toMatch(/^bike-backoffice\//);
  });

  it("names a picked point, in the caller's language", async () => {
    geocoderRequests.length = 0;
    // An admin who has switched to Swedish (the sign-in set the cookie to the profile's English, ADR 023).
    const swedish = agent(stack);
    await signIn(swedish, 'admin@example.com', DEMO_PASSWORD);
    swedish.jar.setCookie('lang=sv', '127.0.0.1', '/');
    const res = await query(swedish, 'geo.reverse', { lat: 59.33, lng: 18.06 }).set('accept-language', 'sv-SE,sv;q=0.9');
    expect(res.body.result.data).toEqual({ label: 'Sergels torg, Stockholm', lat: 59.33, lng: 18.06 });
    expect(new URL(geocoderRequests[0]!.url!, 'http://x').searchParams.get('accept-language')).toBe('sv');
  });

  it('answers a clear, retryable error when the geocoder is down, and validates the query', async () => {
    geocoderDown = true;
    try {
      const res = await query(buddy, 'geo.search', { query: 'Götgatan' });
      expect(res.status).toBe(502);
      expect(res.body.error.data).toMatchObject({ appCode: 'geocoder_unavailable', retryable: true });
    } finally {
      geocoderDown = false;
    }
    expect((await query(buddy, 'geo.search', { query: 'ab' })).body.error.data.fieldErrors).toEqual({ query: 'validation.searchTooShort' });
  });

  it('says so when no geocoder is configured', async () => {
    const plain = await startStack({ upstream: stack.upstream });
    try {
      const client = agent(plain);
      await signIn(client, 'admin@example.com', DEMO_PASSWORD);
      const res = await query(client, 'geo.search', { query: 'Drottninggatan' });
      expect(res.status).toBe(412);
      expect(res.body.error.data.appCode).toBe('geocoder_not_configured');
    } finally {
      await plain.close();
    }
  });
});

describe('map configuration', () => {
  it('reaches the browser through the public whitelist, and the tile origin is allowed by the CSP', async () => {
    const page = await admin.get('/services/new');
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/img-src [^;]*https:\/\/\*\.tiles\.example\.org/);
    const state = JSON.parse(/<script id="__BO_STATE__"[^>]*>([\s\S]*?)<\/script>/.exec(page.text)![1]!);
    expect(state.config.map).toEqual({
      centre: DEFAULT_OPERATION_RANGE.centre,
      radiusMetres: DEFAULT_OPERATION_RANGE.radiusMetres,
      tileUrl: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png',
      tileAttribution: '© Example',
      geocoding: true,
    });
    // The geocoder's address stays on the server.
    expect(page.text).not.toContain(nominatimUrl);
  });
});

describe('services through tRPC', () => {
  const date = '2096-05-05';
  const booking = (overrides: Record<string, unknown> = {}) => ({
    buddy_id: buddyId,
    bicycle_id: 2,
    service_slot_id: 2,
    service_date: date,
    status: 2,
    origin_type: 'e_commerce',
    latitude: near.lat,
    longitude: near.lng,
    address: 'Drottninggatan 50',
    ...overrides,
  });

  it('lets a buddy schedule themselves, and an admin book them; the buddy sees and moves only their own', async () => {
    const slot = await mutate(buddy, 'buddyWorkSlots.create', { buddy_id: buddyId, service_date: date, service_slot_id: 2, max_services_per_day: 1, is_working_day: true });
    expect(slot.status, slot.text).toBe(200);
    expect((await mutate(buddy, 'services.create', booking())).status).toBe(403);
    const created = await mutate(admin, 'services.create', booking());
    expect(created.status, created.text).toBe(200);
    const service = created.body.result.data;
    expect(service).toMatchObject({ status: 2, owner_id: expect.any(Number), buddy_id_label: 'Bo Buddy' });

    const mine = await query(buddy, 'services.calendar', { from: date, to: date });
    expect(mine.body.result.data.results.map((s: { id: number }) => s.id)).toEqual([service.id]);
    const full = await mutate(admin, 'services.create', booking({ bicycle_id: 3 }));
    expect(full.status).toBe(409);
    expect(full.body.error.data).toMatchObject({ appCode: 'day_full', fieldErrors: { service_date: 'validation.dayFull' } });

    // Not before its date (ADR 028): the buddy is refused with a translated field message; an Admin may
    // override explicitly, a buddy may not.
    const early = await mutate(buddy, 'services.transition', { id: service.id, to: 4, version: service.version });
    expect(early.status).toBe(409);
    expect(early.body.error.data).toMatchObject({ appCode: 'finish_before_date', fieldErrors: { status: 'validation.finishBeforeDate' } });
    expect((await mutate(buddy, 'services.transition', { id: service.id, to: 4, force: true })).body.error.data.appCode).toBe('forbidden');
    // Not with required check items open (ADR 043): the refusal names them, readable as it comes.
    const open = await mutate(admin, 'services.transition', { id: service.id, to: 4, version: service.version, force: true });
    expect(open.status).toBe(409);
    expect(open.body.error.data).toMatchObject({ appCode: 'checklist_incomplete', fieldErrors: { status: 'validation.checklistIncomplete' } });
    expect(open.body.error.message).toBe('Answer the required check items before finishing the service: Brakes, Lights, Tyres.');
    // The checklist as one form: every required item in one call, answered with the checklist as it now is.
    const rows = (await query(buddy, 'services.details.list', { id: service.id })).body.result.data as { service_item_id: number; is_required: boolean }[];
    const items = rows.filter((r) => r.is_required).map((r) => ({ key: r.service_item_id, check_status: 2 }));
    const saved = await mutate(buddy, 'services.details.setMany', { id: service.id, items });
    expect(saved.status, saved.text).toBe(200);
    expect(
      (saved.body.result.data as { is_required: boolean; detail: { check_status: number } | null }[]).filter((r) => r.is_required).every((r) => r.detail?.check_status === 2),
    ).toBe(true);
    const finished = await mutate(admin, 'services.transition', { id: service.id, to: 4, version: service.version, force: true });
    expect(finished.body.result.data).toMatchObject({ status: 4, finished_at: expect.any(String) });
    // Finished, it stays where it was done: a dispatch move is refused with the API's field message.
    const moved = await mutate(admin, 'dispatch.move', { id: service.id, version: finished.body.result.data.version, buddy_id: buddyId, service_slot_id: 1 });
    expect(moved.status).toBe(409);
    expect(moved.body.error.data).toMatchObject({ appCode: 'final_service_fixed', fieldErrors: { service_slot_id: 'validation.finalKeepsBuddyAndSlot' } });
    const cancelAsAdmin = await mutate(buddy, 'services.transition', { id: service.id, to: 5 });
    expect(cancelAsAdmin.body.error.data.appCode).toBe('invalid_transition');
  });

  it('refuses a place outside the operation range with the §5 message', async () => {
    const res = await mutate(admin, 'services.create', booking({ latitude: far.lat, longitude: far.lng, service_date: '2096-05-06' }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Please enter a valid address.');
    expect(res.body.error.data).toMatchObject({ appCode: 'invalid_address', fieldErrors: { address: 'validation.invalidAddress' } });
  });

  it('gives a buddy the choices of the fields they fill or filter by, and no more', async () => {
    expect((await query(buddy, 'serviceSlots.options', {})).status).toBe(200);
    expect((await query(buddy, 'operationalRanges.options', {})).status).toBe(200);
    expect((await query(buddy, 'bicycles.options', {})).status).toBe(403);
    expect((await query(buddy, 'serviceSlots.list', {})).status).toBe(403);
    expect((await query(buddy, 'expertRequests.list', {})).status).toBe(403);
  });

  it('bounds calendar ranges', async () => {
    const res = await query(admin, 'services.calendar', { from: '2026-01-01', to: '2026-06-01' });
    expect(res.status).toBe(400);
    expect(res.body.error.data.fieldErrors).toEqual({ to: 'validation.dateRange' });
  });

  it('documents the transition and calendar actions in the OpenAPI document', async () => {
    const doc = await openApiDocument<{ paths: Record<string, { post?: { summary: string } }> }>(stack.upstream);
    expect(doc.paths['/api/services/{id}/transition/']!.post!.summary).toContain('1→5 (Admin)');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/services/calendar/', '/api/buddy-work-slots/calendar/', '/api/expert-requests/{id}/transition/']));
  });

  it('filters lists by a date range', async () => {
    const res = await query(admin, 'services.list', { filters: { service_date_from: date, service_date_to: date }, page_size: 10 });
    expect(res.status).toBe(200);
    const dates = res.body.result.data.results.map((s: { service_date: string }) => s.service_date);
    expect(dates.length).toBeGreaterThan(0);
    expect(dates.every((d: string) => d === date)).toBe(true);
    expect((await query(admin, 'services.list', { filters: { service_date_from: 'yesterday' } })).body.error.data.fieldErrors).toEqual({ service_date_from: 'validation.date' });
  });
});
