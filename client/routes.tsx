import { lazy, Suspense, useEffect, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import type { createServerSideHelpers } from '@trpc/react-query/server';
import { APP_ROUTES, guardRoute, type AppPath, type AppRoute } from '../shared/route-table.ts';
import { PageSpinner } from './components/page-spinner.tsx';
import { ErrorState } from './components/error-state.tsx';
import { useSession } from './session.ts';
import type { AppRouter } from '../server/trpc/router.ts';
import { isEmbedded, type EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import { routerKey } from './entity/entity-api.ts';
import { parseListParams } from './entity/list-state.ts';
import { parseUserListParams } from './pages/users-list-params.ts';
import { daysOf, isValidIsoDate, todayIso, type CalendarView } from './components/calendar-dates.ts';
import { USERS_TABS, usersTabOf } from './pages/users-tabs.ts';
import { todayQuery } from './pages/today-query.ts';
import { historyParams } from './components/bicycle-history-params.ts';

export type PrefetchHelpers = ReturnType<typeof createServerSideHelpers<AppRouter>>;

interface PageModule {
  default: ComponentType;
}
interface PageDef {
  load: () => Promise<PageModule>;
  /** Source path of the module `load` imports: the server links its chunk (and CSS) from the manifest. */
  module: string;
  /** Data the server fetches before rendering, so the page arrives complete. */
  prefetch?: (helpers: PrefetchHelpers, params: Record<string, string>, search: URLSearchParams) => Promise<void>;
}

/** Screens load on demand (§2); routes without a screen yet show an honest placeholder. */
const PAGES: Partial<Record<AppPath, PageDef>> = {
  '/login': { module: 'client/pages/login-page.tsx', load: () => import('./pages/login-page.tsx') },
  '/forgot-password': { module: 'client/pages/forgot-password-page.tsx', load: () => import('./pages/forgot-password-page.tsx') },
  '/reset-password/:token': { module: 'client/pages/reset-password-page.tsx', load: () => import('./pages/reset-password-page.tsx') },
  '/accept-invitation/:token': { module: 'client/pages/accept-invitation-page.tsx', load: () => import('./pages/accept-invitation-page.tsx') },
  '/confirm-email/:token/:email': { module: 'client/pages/confirm-email-page.tsx', load: () => import('./pages/confirm-email-page.tsx') },
  '/forbidden': { module: 'client/pages/forbidden-page.tsx', load: () => import('./pages/forbidden-page.tsx') },
  '/privacy-policy': { module: 'client/pages/legal-pages.tsx', load: () => import('./pages/legal-pages.tsx') },
  '/terms-and-conditions/:lang': { module: 'client/pages/legal-pages.tsx', load: () => import('./pages/legal-pages.tsx').then((m) => ({ default: m.TermsPage })) },
  '/subscriptions/:plan/:language?': {
    module: 'client/pages/subscription-plan-page.tsx',
    load: () => import('./pages/subscription-plan-page.tsx'),
    prefetch: async (h, params) => {
      if (/^[A-Za-z0-9-]{1,40}$/.test(params.plan ?? '')) await h.subscriptionPlans.public.prefetch({ slug: params.plan! });
    },
  },
  '/profile': { module: 'client/pages/profile-page.tsx', load: () => import('./pages/profile-page.tsx'), prefetch: (h) => h.account.get.prefetch() },
  '/': { module: 'client/pages/home-page.tsx', load: () => import('./pages/home-page.tsx'), prefetch: (h) => h.dashboard.get.prefetch() },
  '/users': {
    module: 'client/pages/users-page.tsx',
    load: () => import('./pages/users-page.tsx'),
    prefetch: async (h, _p, search) => {
      // The Admin-only tabs (subscriptions, plans) are generic entity lists (ADR 012).
      const tab = USERS_TABS[usersTabOf(search)];
      if (tab) await (h as unknown as ListPrefetch)[routerKey(tab)]!.list.prefetch(parseListParams(tab, search));
      else await h.users.list.prefetch(parseUserListParams(search));
    },
  },
  '/users/:id': {
    module: 'client/pages/user-page.tsx',
    load: () => import('./pages/user-page.tsx'),
    prefetch: async (h, params) => {
      const id = Number(params.id);
      if (!(Number.isInteger(id) && id > 0)) return;
      // The choice lists too: a select without its options would read "Not set" until they load.
      await Promise.all([
        h.users.get.prefetch({ id }),
        h.users.roleNames.prefetch(),
        h.operationalRanges.options.prefetch({}),
        h.languages.options.prefetch({}),
        h.competencies.options.prefetch({}),
      ]);
    },
  },
};

type ListPrefetch = Record<string, { list: { prefetch(input: unknown): Promise<void> }; get: { prefetch(input: unknown): Promise<void> } }>;

/** Generic list screen of an entity; its first page is prefetched on the server from the URL state. */
function entityListPage(def: EntityDef): PageDef {
  return {
    module: 'client/entity/resource-list-page.tsx',
    load: () => import('./entity/resource-list-page.tsx').then((m) => ({ default: () => <m.ResourceListPage def={def} /> })),
    prefetch: (h, _params, search) => (h as unknown as ListPrefetch)[routerKey(def)]!.list.prefetch(parseListParams(def, search)),
  };
}

function entityDetailPage(def: EntityDef, custom?: Pick<PageDef, 'load' | 'module'>): PageDef {
  return {
    module: custom?.module ?? 'client/entity/resource-detail-page.tsx',
    load: custom?.load ?? (() => import('./entity/resource-detail-page.tsx').then((m) => ({ default: () => <m.ResourceDetailPage def={def} /> }))),
    prefetch: async (h, params) => {
      const id = Number(params.id);
      if (Number.isInteger(id) && id > 0) await (h as unknown as ListPrefetch)[routerKey(def)]!.get.prefetch({ id });
    },
  };
}

for (const def of ENTITIES as readonly EntityDef[]) {
  if (isEmbedded(def)) continue;
  PAGES[def.route] ??= entityListPage(def);
  if (def.detailRoute) PAGES[def.detailRoute] ??= entityDetailPage(def);
}
PAGES['/promo-codes/:id'] = entityDetailPage(ENTITIES.find((e) => e.name === 'promo-codes')!, { module: 'client/pages/promo-code-page.tsx', load: () => import('./pages/promo-code-page.tsx') });
const bicyclePage = entityDetailPage(ENTITIES.find((e) => e.name === 'bicycles')!, { module: 'client/pages/bicycle-page.tsx', load: () => import('./pages/bicycle-page.tsx') });
PAGES['/bicycles/:id'] = {
  ...bicyclePage,
  prefetch: async (h, params, search) => {
    const id = Number(params.id);
    await Promise.all([bicyclePage.prefetch!(h, params, search), Number.isInteger(id) && id > 0 ? h.bicycles.history.prefetch({ id, ...historyParams(search) }) : undefined]);
  },
};
PAGES['/trial-groups/:id'] = entityDetailPage(ENTITIES.find((e) => e.name === 'trial-groups')!, { module: 'client/pages/trial-group-page.tsx', load: () => import('./pages/trial-group-page.tsx') });
const entity = (name: string) => (ENTITIES as readonly EntityDef[]).find((e) => e.name === name)!;
PAGES['/services'] = { ...entityListPage(entity('services')), module: 'client/pages/services-page.tsx', load: () => import('./pages/services-page.tsx') };
PAGES['/services/:id'] = {
  module: 'client/pages/service-page.tsx',
  load: () => import('./pages/service-page.tsx'),
  prefetch: async (h, params) => {
    const id = Number(params.id);
    if (Number.isInteger(id) && id > 0) await Promise.all([h.services.get.prefetch({ id }), h.services.details.prefetch({ id })]);
  },
};
PAGES['/today'] = {
  module: 'client/pages/today-page.tsx',
  load: () => import('./pages/today-page.tsx'),
  // The role is not known here: a buddy's `buddy` parameter (ignored by the page) costs a refetch, nothing more.
  prefetch: (h, _params, search) => h.services.calendar.prefetch(todayQuery(search, false)),
};
PAGES['/expert'] = { ...entityListPage(entity('expert-requests')), module: 'client/pages/expert-page.tsx', load: () => import('./pages/expert-page.tsx') };
PAGES['/bike-buddy-scheduler'] = {
  module: 'client/pages/scheduler-page.tsx',
  load: () => import('./pages/scheduler-page.tsx'),
  prefetch: (h, _params, search) => {
    const def = entity(search.get('tab') === 'away' ? 'not-working-slots' : 'buddy-work-slots');
    return (h as unknown as ListPrefetch)[routerKey(def)]!.list.prefetch(parseListParams(def, search));
  },
};

PAGES['/dispatch'] = {
  module: 'client/pages/dispatch-page.tsx',
  load: () => import('./pages/dispatch-page.tsx'),
  prefetch: async (h, _params, search) => {
    const date = search.get('date') ?? '';
    await h.dispatch.board.prefetch({ date: isValidIsoDate(date) ? date : todayIso() });
  },
};

/** The range a calendar URL shows, for the server's prefetch (the page computes the same). */
function calendarRange(search: URLSearchParams) {
  const view = (['month', 'week', 'day'] as const).find((v) => v === search.get('view')) ?? ('week' satisfies CalendarView);
  const date = isValidIsoDate(search.get('date') ?? '') ? search.get('date')! : todayIso();
  const days = daysOf(view, date);
  return { from: days[0]!, to: days[days.length - 1]! };
}
PAGES['/services/calendar'] = {
  module: 'client/pages/services-calendar-page.tsx',
  load: () => import('./pages/services-calendar-page.tsx'),
  prefetch: async (h, _params, search) => {
    const buddy = search.get('buddy');
    await Promise.all([h.serviceSlots.options.prefetch({}), h.services.calendar.prefetch({ ...calendarRange(search), filters: buddy ? { buddy_id: buddy } : {} })]);
  },
};
PAGES['/bike-buddy-scheduler/calendar'] = {
  module: 'client/pages/scheduler-calendar-page.tsx',
  load: () => import('./pages/scheduler-calendar-page.tsx'),
  prefetch: async (h) => {
    await h.serviceSlots.options.prefetch({});
  },
};

/**
 * The signed-in shell (header, sidebar, account menu) and the placeholder of unbuilt screens are code
 * of their own: public pages such as /login do not download them.
 */
const SHELL_MODULE = 'client/shell/app-shell.tsx';
const loadShell = () => import('./shell/app-shell.tsx').then((m) => ({ default: m.AppShell }));
const AppShell = lazy(loadShell);
const PENDING_MODULE = 'client/pages/pending-page.tsx';
const loadPending = () => import('./pages/pending-page.tsx').then((m) => ({ default: m.PendingPage }));
const PendingPage = lazy(loadPending);

/** The lazily loaded modules a route renders (its layout and page), as source paths of the client manifest. */
const ALL_ROUTES: readonly AppRoute[] = APP_ROUTES;

export function routeModules(path: string): string[] {
  const route = ALL_ROUTES.find((r) => r.path === path);
  const page = pageDef(path)?.module ?? (route ? PENDING_MODULE : 'client/pages/not-found-page.tsx');
  return route?.roles ? [SHELL_MODULE, page] : [page];
}

/**
 * Loads a route's code before rendering (server) or hydrating (browser), so lazy() resolves at once and
 * the server's HTML is adopted, not replaced by a spinner.
 */
export async function preloadRoute(path: string | undefined): Promise<void> {
  const route = path ? ALL_ROUTES.find((r) => r.path === path) : undefined;
  const def = path ? pageDef(path) : undefined;
  await Promise.all([route?.roles ? loadShell() : undefined, def ? def.load() : route ? loadPending() : undefined]);
}

const lazyCache = new Map<string, LazyExoticComponent<ComponentType>>();
function lazyPage(path: string, def: PageDef) {
  let component = lazyCache.get(path);
  if (!component) {
    component = lazy(def.load);
    lazyCache.set(path, component);
  }
  return component;
}

export function pageDef(path: string): PageDef | undefined {
  return PAGES[path as AppPath];
}

const NotFound = lazy(() => import('./pages/not-found-page.tsx'));

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

function element(route: AppRoute) {
  const def = pageDef(route.path);
  const Page = def ? lazyPage(route.path, def) : null;
  const content = (
    <>
      {Page ? <Page /> : <PendingPage titleKey={route.titleKey} />}
      <PageReady />
    </>
  );
  return route.roles ? <RequireRoute route={route}>{content}</RequireRoute> : <Suspense fallback={<PageSpinner />}>{content}</Suspense>;
}

export function AppRoutes() {
  const routes: readonly AppRoute[] = APP_ROUTES;
  const publicRoutes = routes.filter((r) => !r.roles);
  const privateRoutes = routes.filter((r) => r.roles);
  return (
    <Routes>
      {publicRoutes.map((route) => (
        <Route key={route.path} path={route.path} element={element(route)} />
      ))}
      <Route
        element={
          <Suspense fallback={<PageSpinner />}>
            <AppShell />
          </Suspense>
        }
      >
        {privateRoutes.map((route) => (
          <Route key={route.path} path={route.path} element={element(route)} />
        ))}
      </Route>
      <Route
        path="*"
        element={
          <Suspense fallback={<PageSpinner />}>
            <NotFound />
            <PageReady />
          </Suspense>
        }
      />
    </Routes>
  );
}
