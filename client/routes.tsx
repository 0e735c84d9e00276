import { lazy, useEffect, useMemo, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { APP_ROUTES, guardRoute, matchRoute, routeOf, type AppRoute } from '../shared/route-table.ts';
import type { EntityDef } from '../shared/entity/define.ts';
import { PageSpinner } from './components/page-spinner.tsx';
import { ErrorState } from './components/error-state.tsx';
import { useSession } from './session.ts';
import { AppShell } from './shell/app-shell.tsx';
import { withAllTranslations, type TranslationNeed } from './i18n.ts';
import { markHydrated } from './shell/idle.ts';

interface PageModule {
  default: ComponentType;
}
export interface PageDef {
  load: () => Promise<PageModule>;
  /** Source paths of the modules `load` imports: the server links their chunks (and CSS) from the manifest. */
  modules: readonly string[];
  /** The entity whose screen this is (checked against the registry by tests/unit/entity-pages.test.ts). */
  entity?: string;
  /** Texts the first render needs: the first-load part and one entity's labels for generic lists, every text otherwise (ADR 024). */
  translations?: TranslationNeed;
}

/**
 * Entity definitions, each loaded with the screens that show it: a page downloads its own definition
 * (and, through i18n, its own labels), not every entity's (ADR 024). `shared/entities/<name>.ts` defines
 * the entity `<name>`; its screens are rows of the route table, derived from the definition (ADR 031).
 */
// Not the registry: it imports every definition.
const DEFINITION_MODULES = import.meta.glob<Record<string, unknown>>(['../shared/entities/*.ts', '!../shared/entities/registry.ts']);
/** The pages (`client/pages/<name>-page.tsx`, a default export): those of the routes below and those entities' screens name. */
const PAGE_MODULES = import.meta.glob<PageModule>('./pages/*-page.tsx');

function page(module: string, entity?: string): PageDef {
  const load = PAGE_MODULES[`./${module.slice('client/'.length)}`];
  if (!load) throw new Error(`no page module ${module} (client/pages/<name>-page.tsx)`);
  return { ...(entity && { entity }), modules: [module], load };
}

const definitionModule = (name: string) => `shared/entities/${name}.ts`;
const isDefinitionOf =
  (name: string) =>
  (value: unknown): value is EntityDef =>
    typeof value === 'object' && value !== null && 'fields' in value && (value as EntityDef).name === name;

/** The definition the screens of `name` load (undefined: no definition module of that name). */
export function loadEntityDef(name: string): Promise<EntityDef> | undefined {
  const load = DEFINITION_MODULES[`../${definitionModule(name)}`];
  return load?.().then((m) => {
    const def = Object.values(m).find(isDefinitionOf(name));
    if (!def) throw new Error(`${definitionModule(name)} exports no definition named ${name}`);
    return def;
  });
}

const LIST_SCREEN = 'client/entity/resource-list-page.tsx';
const DETAIL_SCREEN = 'client/entity/resource-detail-page.tsx';

/** The page of an entity's screen: the custom page its definition names, or the generic list (its first page prefetched on the server: route-data.ts) or record screen. */
function screenPage({ entity, kind, page: custom }: NonNullable<AppRoute['screen']>): PageDef {
  if (custom) return page(custom, entity);
  const load = () => loadEntityDef(entity) ?? Promise.reject(new Error(`no definition module for ${entity}`));
  if (kind === 'list') {
    return {
      entity,
      modules: [LIST_SCREEN, definitionModule(entity)],
      translations: { list: entity },
      load: () => Promise.all([import('./entity/resource-list-page.tsx'), load()]).then(([m, d]) => ({ default: () => <m.ResourceListPage def={d} /> })),
    };
  }
  return {
    entity,
    modules: [DETAIL_SCREEN, definitionModule(entity)],
    load: () => Promise.all([import('./entity/resource-detail-page.tsx'), load()]).then(([m, d]) => ({ default: () => <m.ResourceDetailPage def={d} /> })),
  };
}

/** Screens load on demand (§2): the pages of the routes that are no entity's screens, and the entities' screens. Public routes are not here: ADR 024. */
const PAGES: Record<string, PageDef> = {
  '/profile': page('client/pages/profile-page.tsx'),
  '/security': page('client/pages/security-page.tsx'),
  '/': page('client/pages/home-page.tsx'),
  '/bike-buddy-scheduler': page('client/pages/scheduler-page.tsx'),
  '/services/calendar': page('client/pages/services-calendar-page.tsx'),
  '/bike-buddy-scheduler/calendar': page('client/pages/scheduler-calendar-page.tsx'),
  // A buddy's day on the phone loads the pages' texts and the services' labels first (its budget, ADR 024).
  '/today': { ...page('client/pages/today-page.tsx'), translations: { page: 'services' } },
  '/dispatch': page('client/pages/dispatch-page.tsx'),
  '/activity': page('client/pages/activity-page.tsx'),
  ...Object.fromEntries(APP_ROUTES.flatMap((route) => (route.screen ? [[route.path, screenPage(route.screen)]] : []))),
};

/** The placeholder of unbuilt screens is code of its own, loaded when one is opened. */
const PENDING_MODULE = 'client/pages/pending-page.tsx';
const loadPending = () => import('./pages/pending-page.tsx').then((m) => ({ default: m.PendingPage }));
const PendingPage = lazy(loadPending);

/**
 * The lazily loaded modules of a signed-in route (its page and definition), as source paths of the client
 * manifest. The shell is not among them: every page the app serves has it (the public pages are not the
 * app's: ADR 024), so it is part of the entry.
 */
export function routeModules(path: string): string[] {
  const route = routeOf(path);
  if (!route?.roles) return [];
  return [...(pageDef(path)?.modules ?? [PENDING_MODULE])];
}

/**
 * Loads a route's code before rendering (server) or hydrating (browser), so lazy() resolves at once and
 * the server's HTML is adopted, not replaced by a spinner.
 */
export async function preloadRoute(path: string | undefined): Promise<void> {
  const route = path ? routeOf(path) : undefined;
  if (!route?.roles || preloaded.has(route.path)) return;
  const def = pageDef(route.path);
  await (def ? def.load() : loadPending());
  preloaded.add(route.path);
}

/**
 * Routes whose code is loaded. `import()` of a module already loaded still walks the module loader (~0.1 ms
 * each time: a visible part of a server render, which preloads its route for every page).
 */
const preloaded = new Set<string>();

const lazyCache = new Map<string, LazyExoticComponent<ComponentType>>();
function lazyPage(path: string, def: PageDef) {
  let component = lazyCache.get(path);
  if (!component) {
    // Reached by navigating in the browser: a page beyond the lists brings the rest of the texts along; a page that
    // names its own need (Today) the pages' texts and every entity's labels, not the screens that load all theirs.
    const need = def.translations;
    component = lazy(need && need !== 'all' && 'list' in need ? def.load : () => withAllTranslations(def.load(), need && need !== 'all' ? ['more', 'resources'] : undefined));
    lazyCache.set(path, component);
  }
  return component;
}

export function pageDef(path: string): PageDef | undefined {
  return PAGES[path];
}

/** What a route's first render needs of the translations. */
export function routeTranslations(path: string | undefined): TranslationNeed {
  return (path ? pageDef(path)?.translations : undefined) ?? 'all';
}

function RequireRoute({ route, children }: { route: AppRoute; children: ReactNode }) {
  const { authenticated, roles, isLoading, error, retry } = useSession();
  const location = useLocation();
  if (isLoading) return <PageSpinner />;
  // The API is down or slow: say so (and offer a retry) rather than treating the user as signed out.
  if (error && !authenticated) return <ErrorState error={error} onRetry={retry} />;
  const guard = guardRoute(route, authenticated ? { roles } : null, location.pathname + location.search);
  if (guard.kind === 'login') return <Navigate to={guard.redirectTo} replace />;
  if (guard.kind === 'forbidden') return <Navigate to="/forbidden" replace />;
  return <>{children}</>;
}

/**
 * Marks the page interactive (tests and monitoring wait for it; effects never run on the server). It
 * sits beside the lazy page in the same Suspense boundary, so it fires only once the page's own
 * server HTML has been hydrated; input typed before then would be lost.
 */
function PageReady() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
    markHydrated();
  }, []);
  return null;
}

/**
 * A public page (sign-in, password flows, legal, plans) or an unknown address reached from inside the
 * app: those are served by the server with their own small script (ADR 024), so the browser loads them.
 */
function LoadFromServer() {
  const location = useLocation();
  useEffect(() => {
    window.location.replace(location.pathname + location.search + location.hash);
  }, [location]);
  return <PageSpinner />;
}

function element(route: AppRoute) {
  const def = pageDef(route.path);
  const Page = def ? lazyPage(route.path, def) : null;
  return (
    <RequireRoute route={route}>
      {Page ? <Page /> : <PendingPage titleKey={route.titleKey} />}
      <PageReady />
    </RequireRoute>
  );
}

export function AppRoutes() {
  const { pathname } = useLocation();
  // React Router flattens and ranks every route it is given on every render (some forty: a visible part
  // of a server render's time); it is given the one the route table matches (ADR 024).
  const route = useMemo(() => matchRoute(pathname)?.route, [pathname]);
  return (
    <Routes>
      {route?.roles && (
        <Route element={<AppShell />}>
          <Route path={route.path} element={element(route)} />
        </Route>
      )}
      <Route path="*" element={<LoadFromServer />} />
    </Routes>
  );
}
