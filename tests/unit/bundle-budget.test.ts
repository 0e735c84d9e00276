import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_BUDGETS, CLIENT_ENTRY, PUBLIC_ENTRY, PUBLIC_PAGE, kb, readClientBuild, routeBundle } from '../../bench/bundles.ts';
import { BUDGET_ROUTE_MODULES, budgetRouteModules } from '../../bench/route-modules.ts';
import { PUBLIC_PAGES } from '../../client/public-pages/public-routes.tsx';
import { languageModules } from '../../client/i18n.ts';
import { routeModules, routeTranslations } from '../../client/routes.tsx';
import { APP_ROUTES, type AppRoute } from '../../shared/route-table.ts';
import { loadClientAssets } from '../../server/ssr/assets.ts';
import { manifestKeyOf } from '../../server/ssr/manifest.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';

/**
 * Bundle budgets (issues 7 and 14), checked on the production build that `npm test` makes first. Sizes
 * only, never times, so the result does not depend on the machine: each route's initial JavaScript (the
 * app's entry, the route's lazy modules, the English translations and everything they import statically;
 * or, for a public page, the public entry and its imports) and its CSS, gzip level 6. Targets not met yet
 * are held at the size reached (bench/bundles.ts says which and why).
 */
const clientDir = join(import.meta.dirname, '..', '..', 'dist', 'client');
const routes: readonly AppRoute[] = APP_ROUTES;

describe('bundle budgets', () => {
  const build = readClientBuild(clientDir);

  it('finds the chunk of every lazily loaded module of every route, so the server links its CSS and preloads it', () => {
    const unresolved = routes.flatMap((route) => routeModules(route.path)).filter((module) => !manifestKeyOf(build.manifest, build.moduleChunks, module));
    expect(unresolved).toEqual([]);
  });

  it('counts the lazy modules the router loads for each route, and the public entry for each public route', () => {
    for (const [route, modules] of Object.entries(BUDGET_ROUTE_MODULES)) {
      expect(routeModules(route), route).toEqual(modules === PUBLIC_PAGE ? [] : modules);
      if (modules !== PUBLIC_PAGE) expect(budgetRouteModules(route), route).toEqual([...routeModules(route), ...languageModules(routeTranslations(route), 'en')]);
      const isPublic = !routes.find((r) => r.path === route)?.roles;
      expect(modules === PUBLIC_PAGE, `${route} is ${isPublic ? 'public' : 'signed in'}`).toBe(isPublic);
    }
    expect(build.manifest[CLIENT_ENTRY]?.isEntry).toBe(true);
    expect(build.publicManifest[PUBLIC_ENTRY]?.isEntry).toBe(true);
  });

  it('serves every public route with a server-rendered page of the public entry, and budgets each', () => {
    const publicRoutes = routes.filter((r) => !r.roles).map((r) => r.path);
    expect(Object.keys(PUBLIC_PAGES).sort()).toEqual([...publicRoutes].sort());
    expect(publicRoutes.filter((path) => !BUNDLE_BUDGETS[path])).toEqual([]);
  });

  it('gives the first load the entities’ screen routes as data, not their definitions (ADR 031)', () => {
    const entry = build.manifest[CLIENT_ENTRY]!.file;
    expect(build.moduleChunks['shared/route-table.ts']).toBe(entry);
    expect(build.moduleChunks['shared/entity-routes.ts']).toBe(entry);
    const inEntry = ['shared/entities/registry.ts', ...ENTITIES.map((def) => `shared/entities/${def.name}.ts`)].filter((module) => build.moduleChunks[module] === entry);
    expect(inEntry).toEqual([]);
  });

  it('keeps the app out of the public entry: no React, no classic zod, one file', () => {
    const files = Object.values(build.publicManifest).filter((chunk) => chunk.file.endsWith('.js'));
    expect(files.map((chunk) => chunk.src ?? chunk.file)).toEqual([PUBLIC_ENTRY]);
    const code = readFileSync(join(clientDir, files[0]!.file), 'utf8');
    expect(code).not.toContain('react.transitional.element');
  });

  for (const [route, budget] of Object.entries(BUNDLE_BUDGETS)) {
    it(`${route}: initial JS ≤ ${budget.js.enforced} KB (target ${budget.js.target}) and CSS ≤ ${budget.css.enforced} KB (gzip)`, () => {
      const bundle = routeBundle(clientDir, build, route, budgetRouteModules(route));
      const js = kb(bundle.js.gzipBytes);
      const css = kb(bundle.css.gzipBytes);
      expect.soft(js, `${route} initial JS (KB gzip)`).toBeLessThanOrEqual(budget.js.enforced);
      expect.soft(css, `${route} CSS (KB gzip)`).toBeLessThanOrEqual(budget.css.enforced);
      // A target once met is enforced as it stands: no ceiling above the budget then.
      if (js <= budget.js.target) expect.soft(budget.js.enforced, `${route}: JS target met, lower enforced to ${budget.js.target}`).toBeLessThanOrEqual(budget.js.target);
      expect(budget.css.enforced).toBeLessThanOrEqual(budget.css.target);
    });
  }

  it('lists for an offline route the chunks its page and the shell load on demand, and no other page (ADR 048)', () => {
    const assetsOf = loadClientAssets(clientDir);
    const fileOf = (module: string) => '/' + build.manifest[manifestKeyOf(build.manifest, build.moduleChunks, module)!]!.file;
    const offlineRoutes = routes.filter((route) => route.offline);
    expect(offlineRoutes.map((route) => route.path)).toEqual(['/today']);
    const today = assetsOf(routeModules('/today'), true);
    const listed = new Set(today.offline);
    // The step's confirm dialog (with its CSS), the queue, and the panels a stop card opens.
    for (const module of ['client/shell/confirm-dialog.tsx', 'client/pages/today-offline.tsx', 'client/components/bicycle-history.tsx', 'client/pages/today-route.tsx'])
      expect(listed.has(fileOf(module)), module).toBe(true);
    expect([...listed].some((file) => file.endsWith('.css'))).toBe(true);
    // Not what the page loads anyway, nor the other pages and languages.
    for (const file of [...today.styles, ...today.scripts, ...today.preloads]) expect(listed.has(file), file).toBe(false);
    for (const module of ['client/pages/dispatch-page.tsx', 'client/pages/users-page.tsx', 'client/entity/resource-detail-page.tsx'])
      expect(listed.has(fileOf(module)), module).toBe(false);
    expect([...listed].filter((file) => /\/(en|sv)[-/]/.test(file))).toEqual([]);
    // A route that does not work offline lists nothing.
    expect(assetsOf(routeModules('/bicycles')).offline).toBeUndefined();
  });
});
