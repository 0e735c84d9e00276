import { describe, expect, it } from 'vitest';
import { APP_ROUTES, SIDEBAR, guardRoute, matchRoute, rolesOf, safeRedirectPath, visibleSidebar } from '../../shared/route-table.ts';
import { ROLE, rolesFromScope } from '../../shared/roles.ts';
import { ASSET_DIR } from '../../shared/static-assets.ts';

describe('route table', () => {
  it('leaves the built files’ folder to them: a missing chunk is a 404, never a page', () => {
    expect(matchRoute(`/${ASSET_DIR}/entry-client-0a1b2c3d.js`)).toBeNull();
    for (const route of APP_ROUTES) expect(route.path.split('/')[1], route.path).not.toBe(ASSET_DIR);
  });

  it('matches static segments before parameters', () => {
    expect(matchRoute('/services/calendar')?.route.path).toBe('/services/calendar');
    expect(matchRoute('/services/42')).toMatchObject({ route: { path: '/services/:id' }, params: { id: '42' } });
    expect(matchRoute('/bike-buddy-scheduler/calendar')?.route.path).toBe('/bike-buddy-scheduler/calendar');
  });

  it('handles the optional language of the subscription page and decodes parameters', () => {
    expect(matchRoute('/subscriptions/gold')).toMatchObject({ params: { plan: 'gold' } });
    expect(matchRoute('/subscriptions/gold/sv')).toMatchObject({ params: { plan: 'gold', language: 'sv' } });
    expect(matchRoute('/confirm-email/abc/a%40b.se')).toMatchObject({ params: { token: 'abc', email: 'a@b.se' } });
    expect(matchRoute('/nope/at/all')).toBeNull();
  });

  it('holds every §2 login route with its roles', () => {
    expect(rolesOf('/users')).toEqual([ROLE.Admin, ROLE.BuddyShop]);
    expect(rolesOf('/users/:id')).toEqual([ROLE.Admin]);
    expect(rolesOf('/services/:id')).toEqual([ROLE.Admin, ROLE.Buddy]);
    expect(APP_ROUTES.filter((r) => !('roles' in r)).map((r) => r.path)).toHaveLength(9);
    // §2's 29 login routes, plus issue 13's Today page, dispatch board, service types and assets (list and detail).
    expect(APP_ROUTES).toHaveLength(9 + 29 + 5);
    expect(rolesOf('/today')).toEqual([ROLE.Admin, ROLE.Buddy]);
    expect(rolesOf('/dispatch')).toEqual([ROLE.Admin]);
    expect(rolesOf('/assets/:id')).toEqual([ROLE.Admin]);
  });

  it('guards: anonymous to /login with the original location, no role to /forbidden', () => {
    const users = matchRoute('/users')!.route;
    expect(guardRoute(users, null, '/users?page=2')).toEqual({ kind: 'login', redirectTo: '/login?redirect=%2Fusers%3Fpage%3D2' });
    expect(guardRoute(users, { roles: [] }, '/users')).toEqual({ kind: 'forbidden' });
    expect(guardRoute(users, { roles: rolesFromScope(['Buddy']) }, '/users')).toEqual({ kind: 'forbidden' });
    expect(guardRoute(users, { roles: rolesFromScope(['Buddy', 'Shop']) }, '/users')).toEqual({ kind: 'allow' });
    expect(guardRoute(matchRoute('/login')!.route, null, '/login')).toEqual({ kind: 'allow' });
    expect(guardRoute(matchRoute('/')!.route, { roles: [] }, '/')).toEqual({ kind: 'forbidden' });
  });

  it('shows each role its sidebar', () => {
    const paths = (scope: string[]) => visibleSidebar(SIDEBAR, rolesFromScope(scope)).map((e) => e.path);
    expect(paths(['Buddy'])).toEqual(['/', '/today', '/bike-buddy-scheduler', '/services']);
    expect(paths(['Buddy', 'Shop'])).toEqual(['/', '/today', '/bike-buddy-scheduler', '/services', '/users']);
    expect(paths(['Shop'])).toEqual([]);
    expect(paths(['Admin'])).toHaveLength(SIDEBAR.length);
    expect(paths(['Customer'])).toEqual([]);
  });

  it('shows entries without roles to everyone and keeps children filtered', () => {
    const entries = [
      { path: 'https://help.example.com', titleKey: 'x', icon: 'external' },
      { path: '/a', titleKey: 'a', icon: 'home', roles: [ROLE.Admin], children: [{ path: '/a/b', titleKey: 'b', icon: 'home', roles: [ROLE.Buddy] }] },
    ];
    expect(visibleSidebar(entries, [ROLE.Buddy]).map((e) => e.path)).toEqual(['https://help.example.com']);
    expect(visibleSidebar(entries, [ROLE.Admin])[1]!.children).toEqual([]);
  });
});

describe('safeRedirectPath', () => {
  it.each([
    ['/users?page=2', '/users?page=2'],
    ['/bicycles/3#images', '/bicycles/3#images'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['%2F%2Fevil.example', '/'],
    ['/%2F%2Fevil.example', '/'],
    ['/%5Cevil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['http:evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/\tx', '/'],
    ['/%09/evil.example', '/'],
    ['', '/'],
    [undefined, '/'],
    // Issue 12 M1: dot segments and encodings that only become `//host` once the URL is normalised.
    ['/.//evil.example/x', '/'],
    ['/./evil.example/x', '/evil.example/x'],
    ['/a/..//evil.example', '/'],
    ['/%2e//evil.example', '/'],
    ['/%2e%2e//evil.example', '/'],
    ['/%2E%2E/%2E//evil.example', '/'],
    ['/a/%2e%2e//evil.example', '/'],
    ['/%252F%252Fevil.example', '/'],
    ['/.\\evil.example', '/'],
    ['/.%5C/evil.example', '/'],
    ['/.%09/evil.example', '/'],
    ['/users/../bicycles?page=2', '/bicycles?page=2'],
    ['/users?search=a%20b', '/users?search=a%20b'],
  ])('%s → %s', (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });
});

describe('roles', () => {
  it('keeps whitelisted roles only and derives BuddyShop', () => {
    expect(rolesFromScope(['Admin', 'Customer'])).toEqual(['Admin']);
    expect(rolesFromScope('Buddy Shop')).toEqual(['Buddy', 'Shop', 'BuddyShop']);
    expect(rolesFromScope(undefined)).toEqual([]);
  });
});
