import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { APP_ROUTES, SIDEBAR, guardRoute, matchRoute, rolesOf, routeOf, safeRedirectPath, visibleSidebar } from '../../shared/route-table.ts';
import { screenTitleKeys, type EntityDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { UPLOAD_KIND_ROUTE } from '../../shared/schemas/uploads.ts';
import { SPRITE_ICON_OCTICONS } from '../../client/components/sprite-icon-names.ts';
import enCommon from '../../locales/en/common.json';
import svCommon from '../../locales/sv/common.json';
import { ROLE, rolesFromScope } from '../../shared/roles.ts';
import { ASSET_DIR } from '../../shared/static-assets.ts';

const root = join(import.meta.dirname, '..', '..');
function sources(dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : /\.tsx?$/.test(name) ? [path] : [];
    });
  return dirs.flatMap((dir) => walk(join(root, dir)));
}

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
    expect(APP_ROUTES.filter((r) => !r.roles).map((r) => r.path)).toHaveLength(10); // with the sign-in's code step (ADR 068)
    expect(rolesOf('/today')).toEqual([ROLE.Admin, ROLE.Buddy]);
    expect(rolesOf('/dispatch')).toEqual([ROLE.Admin]);
    expect(rolesOf('/assets/:id')).toEqual([ROLE.Admin]);
  });

  it('checks the routes procedures name when asked: unknown and public ones throw', () => {
    expect(() => rolesOf('/nowhere')).toThrow(/not in the route table/);
    expect(() => rolesOf('/login')).toThrow(/public/);
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

describe("entities' screens in the route table (ADR 031)", () => {
  const defs = ENTITIES as readonly EntityDef[];
  const withScreen = defs.filter((def) => def.screen);
  const titles = (locale: { routes: Record<string, string> }) => new Set(Object.keys(locale.routes).map((key) => `routes.${key}`));

  it('has the list and record routes of every entity that declares a screen, with its roles, title and page', () => {
    expect(withScreen.length).toBeGreaterThan(15);
    for (const def of withScreen) {
      const screen = def.screen!;
      expect(def.route, def.name).toBe(screen.list);
      expect(def.detailRoute, def.name).toBe(screen.detail);
      const page = (kind: 'list' | 'detail', module: string | undefined) => ({ entity: def.name, kind, ...(module ? { page: module } : {}) });
      expect(routeOf(screen.list), def.name).toMatchObject({ titleKey: screenTitleKeys(def.name).list, roles: screen.roles });
      expect(routeOf(screen.list)!.screen, def.name).toEqual(page('list', screen.pages?.list));
      expect(rolesOf(screen.list), def.name).toEqual(screen.roles);
      if (!screen.detail) continue;
      expect(routeOf(screen.detail), def.name).toMatchObject({ titleKey: screenTitleKeys(def.name).detail, roles: screen.detailRoles ?? screen.roles });
      expect(routeOf(screen.detail)!.screen, def.name).toEqual(page('detail', screen.pages?.detail));
    }
  });

  it('gives every route the table holds beyond the hand-kept ones to an entity, and no route twice', () => {
    const derived = withScreen.flatMap((def) => [def.screen!.list, ...(def.screen!.detail ? [def.screen!.detail] : [])]);
    expect(
      APP_ROUTES.filter((route) => route.screen)
        .map((route) => route.path)
        .sort(),
    ).toEqual([...derived].sort());
    expect(new Set(APP_ROUTES.map((route) => route.path)).size).toBe(APP_ROUTES.length);
  });

  it('puts every declared sidebar entry in the sidebar, in order, with an icon of the sprite', () => {
    for (const def of withScreen.filter((d) => d.screen!.sidebar)) {
      expect(
        SIDEBAR.find((entry) => entry.path === def.screen!.list),
        def.name,
      ).toMatchObject({ icon: def.screen!.sidebar!.icon, roles: def.screen!.roles, titleKey: screenTitleKeys(def.name).list });
    }
    const orders = APP_ROUTES.filter((route) => route.sidebar).map((route) => route.sidebar!.order);
    expect(new Set(orders).size, 'sidebar orders are distinct').toBe(orders.length);
    expect(SIDEBAR.filter((entry) => !SPRITE_ICON_OCTICONS[entry.icon]).map((entry) => entry.path)).toEqual([]);
  });

  it('has every title in English and Swedish, in the first-load group `routes`', () => {
    for (const locale of [enCommon, svCommon]) {
      const known = titles(locale);
      expect(APP_ROUTES.filter((route) => !known.has(route.titleKey)).map((route) => `${route.path}: ${route.titleKey}`)).toEqual([]);
    }
  });

  it('knows the route of every entity shown inside another screen, and every route the code names', () => {
    expect(defs.filter((def) => !routeOf(def.route)).map((def) => `${def.name}: ${def.route}`)).toEqual([]);
    const named = sources(['server', 'shared', 'client']).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/rolesOf\('([^']+)'\)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((path) => !routeOf(path))).toEqual([]);
    expect(Object.values(UPLOAD_KIND_ROUTE).filter((path) => !routeOf(path))).toEqual([]);
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
