import { describe, expect, it } from 'vitest';
import { buddyWorkSlotsEntity } from '../../shared/entities/buddy-work-slots.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { SERVICE_STATUS_FLOW, servicesEntity } from '../../shared/entities/services.ts';
import { rolesEntity } from '../../shared/entities/roles.ts';
import { checkDefinition } from '../../shared/entity/define-checks.ts';
import { defineEntity, filterKeys, isFinalStatus, isOwnerScoped, mayTransition, mayWrite, nextStatuses, type EntityDef } from '../../shared/entity/define.ts';
import { calendarParamsSchema, createSchema, listParamsSchema } from '../../shared/entity/schemas.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { DEFAULT_OPERATION_RANGE, destinationPoint, distanceMetres, isWithinRange } from '../../shared/geo.ts';
import { optionRoles, upstreamReadScopes, writeProcedureRoles } from '../../shared/entity/access-roles.ts';
import { entityTableSql } from '../../upstream/resources/entity-sql.ts';
import { loadEnv } from '../../server/env.ts';
import { tileOrigin } from '../../server/map-config.ts';
import { daysOf, isValidIsoDate, startOfWeek } from '../../client/components/calendar-dates.ts';

const errorsOf = (def: EntityDef, input: unknown) => {
  const result = createSchema(def).safeParse(input);
  return result.success ? {} : fieldErrorsOf(result.error);
};

describe('access rules (ADR 009)', () => {
  it('default to Admin-only writes and leave other entities unscoped', () => {
    for (const action of ['create', 'update', 'delete'] as const) {
      expect(mayWrite(rolesEntity, action, ['Admin'])).toBe(true);
      expect(mayWrite(rolesEntity, action, ['Buddy'])).toBe(false);
    }
    expect(isOwnerScoped(rolesEntity, ['Buddy'])).toBe(false);
  });

  it('let a Buddy write their own scheduler records and move, but not book, services', () => {
    expect(mayWrite(buddyWorkSlotsEntity, 'create', ['Buddy'])).toBe(true);
    expect(isOwnerScoped(buddyWorkSlotsEntity, ['Buddy'])).toBe(true);
    expect(isOwnerScoped(buddyWorkSlotsEntity, ['Buddy', 'Admin'])).toBe(false);
    expect(mayWrite(servicesEntity, 'create', ['Buddy', 'Shop', 'BuddyShop'])).toBe(false);
    expect(mayWrite(servicesEntity, 'transition', ['Buddy'])).toBe(true);
  });

  it('give tRPC procedures the route roles the access allows, and choice lists to whoever fills or filters the field', () => {
    expect(writeProcedureRoles(servicesEntity, 'create')).toEqual(['Admin']);
    expect(writeProcedureRoles(servicesEntity, 'transition')).toEqual(['Admin', 'Buddy']);
    const byName = (name: string) => (ENTITIES as readonly EntityDef[]).find((e) => e.name === name)!;
    expect(optionRoles(byName('service-slots'))).toEqual(['Admin', 'Buddy']);
    expect(optionRoles(byName('bicycles'))).toEqual(['Admin']);
    // The users list (Admin, BuddyShop) filters by role name; the upstream reads as Shop for BuddyShop.
    expect(optionRoles(byName('roles'))).toEqual(['Admin', 'BuddyShop']);
    expect(upstreamReadScopes(byName('roles'))).toEqual(['Admin', 'Shop']);
    expect(upstreamReadScopes(byName('service-slots'))).toEqual(['Admin', 'Buddy']);
    expect(upstreamReadScopes(byName('companies'))).toEqual(['Admin']);
  });

  it('refuse a definition naming a field it does not have', () => {
    expect(() => checkDefinition(defineEntity({ ...rolesEntity, access: { ownerField: 'nobody' } }))).toThrow(/unknown field nobody/);
  });
});

describe('service status flow', () => {
  it('is the transition table of ADR 009', () => {
    const table = Object.fromEntries(
      [1, 2, 3, 4, 5].map((s) => [s, { admin: nextStatuses(SERVICE_STATUS_FLOW, s, ['Admin']), buddy: nextStatuses(SERVICE_STATUS_FLOW, s, ['Buddy']) }]),
    );
    expect(table).toEqual({
      1: { admin: [2, 3, 5], buddy: [2, 3] },
      2: { admin: [4, 1, 3, 5], buddy: [4, 3] },
      3: { admin: [], buddy: [] },
      4: { admin: [], buddy: [] },
      5: { admin: [], buddy: [] },
    });
    expect([3, 4, 5].every((s) => isFinalStatus(SERVICE_STATUS_FLOW, s))).toBe(true);
    expect(mayTransition(SERVICE_STATUS_FLOW, 4, 4, ['Buddy'])).toBe(true);
    expect(SERVICE_STATUS_FLOW.colors).toEqual({ 1: 'attention', 2: 'accent', 3: 'severe', 4: 'success', 5: 'danger' });
  });
});

describe('service form rules (§5)', () => {
  it('requires status, buddy, bicycle, slot, date, origin type and a location, with their own messages', () => {
    expect(errorsOf(servicesEntity, {})).toEqual({
      service_date: 'validation.required',
      service_slot_id: 'validation.required',
      status: 'validation.required',
      buddy_id: 'validation.buddyRequired',
      bicycle_id: 'validation.required',
      origin_type: 'validation.required',
      latitude: 'validation.locationRequired',
      longitude: 'validation.locationRequired',
    });
  });

  it('keeps origin types as stored, subscriber_ with its underscore', () => {
    expect(servicesEntity.fields.origin_type.options).toEqual(['one_off', 'subscriber_', 'e_commerce', 'b2b', 'benefit_bike']);
    expect(errorsOf(servicesEntity, { origin_type: 'subscriber' }).origin_type).toBe('validation.option');
  });

  it('requires max services per day greater than zero in the scheduler', () => {
    expect(errorsOf(buddyWorkSlotsEntity, { buddy_id: 2, service_date: '2026-01-01', service_slot_id: 1, max_services_per_day: 0 })).toEqual({
      max_services_per_day: 'validation.min:1',
    });
  });
});

describe('engine additions', () => {
  it('turn range filters into from/to parameters and bound calendar queries', () => {
    expect(filterKeys(servicesEntity)).toEqual(expect.arrayContaining(['service_date_from', 'service_date_to', 'status', 'buddy_id', 'owner_id', 'bicycle_id']));
    expect(listParamsSchema(servicesEntity).safeParse({ filters: { service_date: '2026-01-01' } }).success).toBe(false);
    const calendar = calendarParamsSchema(servicesEntity);
    expect(calendar.safeParse({ from: '2026-01-01', to: '2026-03-04' }).success).toBe(true);
    expect(calendar.safeParse({ from: '2026-01-01', to: '2026-03-05' }).success).toBe(false);
    expect(calendar.safeParse({ from: '2026-02-01', to: '2026-01-01' }).success).toBe(false);
  });

  it('generate unique groups and coordinate precision into the table', () => {
    expect(entityTableSql(buddyWorkSlotsEntity)).toContain(
      'create unique index buddy_work_slots_buddy_day_slot_key on buddy_work_slots (buddy_id, service_date, service_slot_id);',
    );
    expect(entityTableSql(servicesEntity)).toContain('  latitude numeric(19,7) not null,');
    expect(entityTableSql(servicesEntity)).toContain('  finished_at timestamptz,');
    expect(entityTableSql(servicesEntity)).toContain('  status smallint not null default 2,');
  });
});

describe('values that would only fail in SQL are refused by the schema', () => {
  it('impossible dates, ids beyond a bigint and integers beyond the column', () => {
    expect(errorsOf(buddyWorkSlotsEntity, { buddy_id: 2, service_date: '2026-02-31', service_slot_id: 1, max_services_per_day: 1 })).toEqual({ service_date: 'validation.date' });
    expect(errorsOf(buddyWorkSlotsEntity, { buddy_id: 1e20, service_date: '2026-02-28', service_slot_id: 1, max_services_per_day: 1 })).toEqual({ buddy_id: 'validation.integer' });
    const counter = defineEntity({ ...rolesEntity, name: 'counters', label: '{n}', fields: { n: { kind: 'integer' } } });
    expect(errorsOf(counter, { n: 2 ** 40 })).toEqual({ n: 'validation.max:2147483647' });
    expect(errorsOf(counter, { n: -(2 ** 40) })).toEqual({ n: 'validation.min:-2147483648' });
    const promo = ENTITIES.find((e) => e.name === 'promo-codes')!;
    expect(errorsOf(promo, { code: 'X', max_uses: 1, starts_at: '2026-01-01', expires_at: '2026-02-01', discount_percent: 5, duration_days: 3e9 })).toEqual({
      duration_days: 'validation.max:3650',
    });
    const slots = ENTITIES.find((e) => e.name === 'service-slots')!;
    expect(errorsOf(slots, { name: 'X', start_time: '08:00', end_time: '09:00', max: 1 })).toEqual({});
  });
});

describe('operation range geometry', () => {
  it('measures great-circle distances in metres', () => {
    // One degree of the equator on the IUGG mean sphere: 2πR / 360.
    expect(distanceMetres({ lat: 0, lng: 0 }, { lat: 0, lng: 1 })).toBeCloseTo(111_195.08, 1);
    // Stockholm Central to Uppsala Central: about 63 km as the crow flies.
    const uppsala = distanceMetres({ lat: 59.3303, lng: 18.0586 }, { lat: 59.8586, lng: 17.6454 }) / 1000;
    expect(uppsala).toBeGreaterThan(62);
    expect(uppsala).toBeLessThan(64);
    expect(distanceMetres(DEFAULT_OPERATION_RANGE.centre, DEFAULT_OPERATION_RANGE.centre)).toBe(0);
  });

  it('puts the edge of the range between 3699 and 3701 metres', () => {
    for (const bearing of [0, 77, 180, 301]) {
      expect(isWithinRange(DEFAULT_OPERATION_RANGE, destinationPoint(DEFAULT_OPERATION_RANGE.centre, bearing, 3699))).toBe(true);
      expect(isWithinRange(DEFAULT_OPERATION_RANGE, destinationPoint(DEFAULT_OPERATION_RANGE.centre, bearing, 3701))).toBe(false);
    }
  });
});

describe('map configuration', () => {
  it('validates the environment and defaults to central Stockholm and 3700 m', () => {
    const env = loadEnv({});
    expect([env.OPERATION_CENTRE_LAT, env.OPERATION_CENTRE_LNG, env.OPERATION_RADIUS_METRES]).toEqual([59.33258, 18.0649, 3700]);
    expect(env.MAP_TILE_URL).toBe('https://tile.openstreetmap.org/{z}/{x}/{y}.png');
    expect(loadEnv({ MAP_TILE_URL: 'none' }).MAP_TILE_URL).toBe('none');
    expect(() => loadEnv({ MAP_TILE_URL: 'javascript:alert(1)' })).toThrow(/MAP_TILE_URL/);
    expect(() => loadEnv({ OPERATION_RADIUS_METRES: '-5' })).toThrow(/OPERATION_RADIUS_METRES/);
    expect(() => loadEnv({ GEOCODER_URL: 'ftp://geo.example' })).toThrow(/GEOCODER_URL/);
  });

  it('allows exactly the tile origin in the CSP', () => {
    expect(tileOrigin('https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png')).toBe('https://*.tile.openstreetmap.org');
    expect(tileOrigin('http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png')).toBe('http://127.0.0.1:8080');
  });
});

describe('calendar dates', () => {
  it('shows months as whole Monday-first weeks, and weeks from Monday', () => {
    const november = daysOf('month', '2026-11-22');
    expect(november[0]).toBe('2026-10-26');
    expect(november).toHaveLength(42);
    expect(daysOf('month', '2027-02-10')).toHaveLength(28);
    expect(startOfWeek('2026-11-22')).toBe('2026-11-16');
    expect(daysOf('week', '2026-11-22')).toEqual(['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22']);
    expect(isValidIsoDate('2026-02-31')).toBe(false);
  });
});
