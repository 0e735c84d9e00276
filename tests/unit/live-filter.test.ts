import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { optionRoles } from '../../shared/entity/access-roles.ts';
import { routerKey, type EntityDef } from '../../shared/entity/define.ts';
import { ROLE, type Role } from '../../shared/roles.ts';
import { browserEventOf, mayReceive, type LiveNotice } from '../../server/live/filter.ts';
import { ownersOf } from '../../upstream/lib/audit.ts';
import { ACCOUNT_ENTITY, ACCOUNT_EVENTS } from '../../shared/live.ts';
import { routerOf } from '../../client/shell/live-updates.ts';

/** Who hears of which change (ADR 037): the per-viewer filter over generated viewers and changes. */

const defs = ENTITIES as readonly EntityDef[];
const owned = defs.filter((def) => def.access?.ownerField);
const roleSets: Role[][] = [[ROLE.Admin], [ROLE.Buddy], [ROLE.Shop], [ROLE.Buddy, ROLE.Shop, ROLE.BuddyShop], [ROLE.Admin, ROLE.Buddy], []];

const viewer = fc.record({ userId: fc.integer({ min: 1, max: 20 }), roles: fc.constantFrom(...roleSets) });
const notice = fc.record({
  id: fc.integer({ min: 1, max: 1e6 }),
  entity: fc.oneof(fc.constantFrom(...defs.map((def) => def.name)), fc.constant('no-such-entity')),
  record_id: fc.integer({ min: 1, max: 1000 }),
  action: fc.constantFrom('create', 'update', 'delete', 'transition'),
  user_id: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
  owner: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { maxLength: 2 }), { nil: null }),
}) as fc.Arbitrary<LiveNotice>;

describe('live updates: who hears of a change', () => {
  it('an Admin hears of every change', () => {
    fc.assert(fc.property(viewer, notice, (v, n) => !v.roles.includes(ROLE.Admin) || mayReceive(v, n)));
  });

  it('anyone else only of entities their roles may read, and of an owned entity only when they own the record', () => {
    fc.assert(
      fc.property(viewer, notice, (v, n) => {
        if (v.roles.includes(ROLE.Admin)) return true;
        const def = defs.find((d) => d.name === n.entity);
        const expected = def !== undefined && optionRoles(def).some((role) => v.roles.includes(role)) && (!def.access?.ownerField || (n.owner ?? []).includes(v.userId));
        return mayReceive(v, n) === expected;
      }),
      { numRuns: 2000 },
    );
  });

  it('a buddy never hears of another buddy’s service (or any owned record)', () => {
    expect(owned.map((def) => def.name)).toContain('services');
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { maxLength: 2 }),
        fc.constantFrom(...owned),
        fc.constantFrom<Role[]>([ROLE.Buddy], [ROLE.Buddy, ROLE.Shop, ROLE.BuddyShop]),
        (me, owners, def, roles) => {
          fc.pre(!owners.includes(me));
          return !mayReceive({ userId: me, roles }, { id: 1, entity: def.name, record_id: 1, action: 'update', user_id: me, owner: owners });
        },
      ),
    );
  });

  it('a record handed from one buddy to another concerns both; the browser is never told whose it is', () => {
    expect(ownersOf({ buddy_id: 3 }, { buddy_id: 5 }, 'buddy_id')).toEqual([3, 5]);
    expect(ownersOf({ buddy_id: 3 }, { buddy_id: 3 }, 'buddy_id')).toEqual([3]);
    expect(ownersOf(null, { buddy_id: null }, 'buddy_id')).toEqual([]);
    const handed: LiveNotice = { id: 9, entity: 'services', record_id: 1, action: 'update', user_id: 1, owner: ownersOf({ buddy_id: 3 }, { buddy_id: 5 }, 'buddy_id') };
    for (const userId of [3, 5]) expect(mayReceive({ userId, roles: [ROLE.Buddy] }, handed)).toBe(true);
    expect(mayReceive({ userId: 4, roles: [ROLE.Buddy] }, handed)).toBe(false);
    expect(browserEventOf(handed)).toEqual({ id: 9, entity: 'services', record_id: 1, action: 'update', user_id: 1 });
  });

  it('account events (sign-ins, failed sign-ins, sign-outs, resets) reach Admins only, never a buddy who reads the accounts (ADR 058)', () => {
    const users = defs.find((def) => def.name === ACCOUNT_ENTITY)!;
    // Buddies may read the accounts (they fill buddy references): the reason they used to hear of every sign-in.
    expect(optionRoles(users)).toEqual(expect.arrayContaining([ROLE.Buddy, ROLE.BuddyShop]));
    for (const action of ACCOUNT_EVENTS)
      for (const record_id of [7, null]) {
        const event: LiveNotice = { id: 1, entity: ACCOUNT_ENTITY, record_id, action, user_id: record_id, owner: null };
        for (const roles of roleSets.filter((set) => !set.includes(ROLE.Admin))) expect(mayReceive({ userId: 3, roles }, event), `${action} to ${roles.join()}`).toBe(false);
        expect(mayReceive({ userId: 3, roles: [ROLE.Admin] }, event)).toBe(true);
      }
    // A write of an account (a name a buddy reference shows) still reaches whoever reads the accounts.
    expect(mayReceive({ userId: 3, roles: [ROLE.Buddy] }, { id: 2, entity: ACCOUNT_ENTITY, record_id: 7, action: 'update', user_id: 1, owner: null })).toBe(true);
  });

  it('marks stale the queries of the entity’s own tRPC router (the browser’s copy of routerKey)', () => {
    for (const def of defs) expect(routerOf(def.name)).toBe(routerKey(def));
  });
});
