import { lazy, useEffect, useMemo, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { APP_ROUTES, guardRoute, matchRoute, type AppPath, type AppRoute } from '../shared/route-table.ts';
import type { EntityDef } from '../shared/entity/define.ts';
import { PageSpinner } from './components/page-spinner.tsx';
import { ErrorState } from './components/error-state.tsx';
import { useSession } from './session.ts';
import { AppShell } from './shell/app-shell.tsx';
import { withAllTranslations, type TranslationNeed } from './i18n.ts';

interface PageModule {
  default: ComponentType;
}
export interface PageDef {
  load: () => Promise<PageModule>;
  /** Source paths of the modules `load` imports: the server links their chunks (and CSS) from the manifest. */
  modules: readonly string[];
  /** The entity whose generic screen this is (checked against the registry by tests/unit/route-table.test.ts). */
  entity?: string;
  /** Texts the first render needs: the first-load part and one entity's labels for generic lists, every text otherwise (ADR 024). */
  translations?: TranslationNeed;
}

/**
 * Entity definitions, each loaded with the screens that show it: a page downloads its own definition
 * (and, through i18n, its own labels), not every entity's (ADR 024). One line per entity with a screen.
 */
const ENTITY_DEFS: Record<string, { module: string; load: () => Promise<EntityDef> }> = {
  roles: { module: 'shared/entities/roles.ts', load: () => import('../shared/entities/roles.ts').then((m) => m.rolesEntity) },
  'bicycle-types': { module: 'shared/entities/bicycle-types.ts', load: () => import('../shared/entities/bicycle-types.ts').then((m) => m.bicycleTypesEntity) },
  languages: { module: 'shared/entities/languages.ts', load: () => import('../shared/entities/languages.ts').then((m) => m.languagesEntity) },
  competencies: { module: 'shared/entities/competencies.ts', load: () => import('../shared/entities/competencies.ts').then((m) => m.competenciesEntity) },
  'operational-ranges': {
    module: 'shared/entities/operational-ranges.ts',
    load: () => import('../shared/entities/operational-ranges.ts').then((m) => m.operationalRangesEntity),
  },
  'service-slots': { module: 'shared/entities/service-slots.ts', load: () => import('../shared/entities/service-slots.ts').then((m) => m.serviceSlotsEntity) },
  'service-items': { module: 'shared/entities/service-items.ts', load: () => import('../shared/entities/service-items.ts').then((m) => m.serviceItemsEntity) },
  products: { module: 'shared/entities/products.ts', load: () => import('../shared/entities/products.ts').then((m) => m.productsEntity) },
  companies: { module: 'shared/entities/companies.ts', load: () => import('../shared/entities/companies.ts').then((m) => m.companiesEntity) },
  'promo-codes': { module: 'shared/entities/promo-codes.ts', load: () => import('../shared/entities/promo-codes.ts').then((m) => m.promoCodesEntity) },
  bicycles: { module: 'shared/entities/bicycles.ts', load: () => import('../shared/entities/bicycles.ts').then((m) => m.bicyclesEntity) },
  events: { module: 'shared/entities/events.ts', load: () => import('../shared/entities/events.ts').then((m) => m.eventsEntity) },
  'event-bookings': { module: 'shared/entities/event-bookings.ts', load: () => import('../shared/entities/event-bookings.ts').then((m) => m.eventBookingsEntity) },
  'trial-groups': { module: 'shared/entities/trial-groups.ts', load: () => import('../shared/entities/trial-groups.ts').then((m) => m.trialGroupsEntity) },
  'service-types': { module: 'shared/entities/service-types.ts', load: () => import('../shared/entities/service-types.ts').then((m) => m.serviceTypesEntity) },
  assets: { module: 'shared/entities/assets.ts', load: () => import('../shared/entities/assets.ts').then((m) => m.assetsEntity) },
};

/** The definition the screens of `name` load (undefined: none has a generic screen). */
export function loadEntityDef(name: string): Promise<EntityDef> | undefined {
  return ENTITY_DEFS[name]?.load();
}

const LIST_SCREEN = 'client/entity/resource-list-page.tsx';
const DETAIL_SCREEN = 'client/entity/resource-detail-page.tsx';

/** The generic list screen of an entity (its first page is prefetched on the server: route-data.ts). */
function entityList(name: string): PageDef {
  const def = ENTITY_DEFS[name]!;
  return {
    entity: name,
    modules: [LIST_SCREEN, def.module],
    translations: { list: name },
    load: () => Promise.all([import('./entity/resource-list-page.tsx'), def.load()]).then(([m, d]) => ({ default: () => <m.ResourceListPage def={d} /> })),
  };
}

function entityDetail(name: string): PageDef {
  const def = ENTITY_DEFS[name]!;
  return {
    entity: name,
    modules: [DETAIL_SCREEN, def.module],
    load: () => Promise.all([import('./entity/resource-detail-page.tsx'), def.load()]).then(([m, d]) => ({ default: () => <m.ResourceDetailPage def={d} /> })),
  };
}

/** Screens load on demand (§2); routes without a screen yet show an honest placeholder. Public routes are not here: ADR 024. */
const PAGES: Partial<Record<AppPath, PageDef>> = {
  '/profile': { modules: ['client/pages/profile-page.tsx'], load: () => import('./pages/profile-page.tsx') },
  '/': { modules: ['client/pages/home-page.tsx'], load: () => import('./pages/home-page.tsx') },
  '/users': { modules: ['client/pages/users-page.tsx'], load: () => import('./pages/users-page.tsx') },
  '/users/:id': { modules: ['client/pages/user-page.tsx'], load: () => import('./pages/user-page.tsx') },
  '/roles': entityList('roles'),
  '/bicycle-types': entityList('bicycle-types'),
  '/languages': entityList('languages'),
  '/competencies': entityList('competencies'),
  '/operational-ranges': entityList('operational-ranges'),
  '/service-slots': entityList('service-slots'),
  '/service-items': entityList('service-items'),
  '/products': entityList('products'),
  '/companies': entityList('companies'),
  '/companies/:id': entityDetail('companies'),
  '/promo-codes': entityList('promo-codes'),
  '/promo-codes/:id': { entity: 'promo-codes', modules: ['client/pages/promo-code-page.tsx'], load: () => import('./pages/promo-code-page.tsx') },
  '/bicycles': entityList('bicycles'),
  '/bicycles/:id': { entity: 'bicycles', modules: ['client/pages/bicycle-page.tsx'], load: () => import('./pages/bicycle-page.tsx') },
  '/events': entityList('events'),
  '/events/:id': entityDetail('events'),
  '/event-bookings': entityList('event-bookings'),
  '/trial-groups': entityList('trial-groups'),
  '/trial-groups/:id': { entity: 'trial-groups', modules: ['client/pages/trial-group-page.tsx'], load: () => import('./pages/trial-group-page.tsx') },
  '/services': { entity: 'services', modules: ['client/pages/services-page.tsx'], load: () => import('./pages/services-page.tsx') },
  '/services/:id': { entity: 'services', modules: ['client/pages/service-page.tsx'], load: () => import('./pages/service-page.tsx') },
  '/expert': { entity: 'expert-requests', modules: ['client/pages/expert-page.tsx'], load: () => import('./pages/expert-page.tsx') },
  '/bike-buddy-scheduler': { modules: ['client/pages/scheduler-page.tsx'], load: () => import('./pages/scheduler-page.tsx') },
  '/services/calendar': { modules: ['client/pages/services-calendar-page.tsx'], load: () => import('./pages/services-calendar-page.tsx') },
  '/bike-buddy-scheduler/calendar': { modules: ['client/pages/scheduler-calendar-page.tsx'], load: () => import('./pages/scheduler-calendar-page.tsx') },
  '/today': { modules: ['client/pages/today-page.tsx'], load: () => import('./pages/today-page.tsx') },
  '/dispatch': { modules: ['client/pages/dispatch-page.tsx'], load: () => import('./pages/dispatch-page.tsx') },
  '/service-types': entityList('service-types'),
  '/assets': entityList('assets'),
  '/assets/:id': entityDetail('assets'),
};

/** The placeholder of unbuilt screens is code of its own, loaded when one is opened. */
const PENDING_MODULE = 'client/pages/pending-page.tsx';
const loadPending = () => import('./pages/pending-page.tsx').then((m) => ({ default: m.PendingPage }));
const PendingPage = lazy(loadPending);

const ALL_ROUTES: readonly AppRoute[] = APP_ROUTES;
const findRoute = (path: string) => ALL_ROUTES.find((r) => r.path === path);

/**
 * The lazily loaded modules of a signed-in route (its page and definition), as source paths of the client
 * manifest. The shell is not among them: every page the app serves has it (the public pages are not the
 * app's: ADR 024), so it is part of the entry.
 */
export function routeModules(path: string): string[] {
  const route = findRoute(path);
  if (!route?.roles) return [];
  return [...(pageDef(path)?.modules ?? [PENDING_MODULE])];
}

/**
 * Loads a route's code before rendering (server) or hydrating (browser), so lazy() resolves at once and
 * the server's HTML is adopted, not replaced by a spinner.
 */
export async function preloadRoute(path: string | undefined): Promise<void> {
  const route = path ? findRoute(path) : undefined;
  if (!route?.roles) return;
  const def = pageDef(route.path);
  await (def ? def.load() : loadPending());
}

const lazyCache = new Map<string, LazyExoticComponent<ComponentType>>();
function lazyPage(path: string, def: PageDef) {
  let component = lazyCache.get(path);
  if (!component) {
    // Reached by navigating in the browser: a page beyond the lists brings the rest of the texts along.
    component = lazy(def.translations ? def.load : () => withAllTranslations(def.load()));
    lazyCache.set(path, component);
  }
  return component;
}

export function pageDef(path: string): PageDef | undefined {
  return PAGES[path as AppPath];
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
