import { lazy, Suspense, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router-dom';
import type { createServerSideHelpers } from '@trpc/react-query/server';
import { APP_ROUTES, guardRoute, type AppPath, type AppRoute } from '../shared/route-table.ts';
import { PageSpinner } from './components/page-spinner.tsx';
import { ErrorState } from './components/error-state.tsx';
import { PendingPage } from './pages/pending-page.tsx';
import { useSession } from './session.ts';
import { AppShell } from './shell/app-shell.tsx';
import type { AppRouter } from '../server/trpc/router.ts';
import type { EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import { routerKey } from './entity/entity-api.ts';
import { parseListParams } from './entity/list-state.ts';
import { parseUserListParams } from './pages/users-list-params.ts';

export type PrefetchHelpers = ReturnType<typeof createServerSideHelpers<AppRouter>>;

interface PageModule {
  default: ComponentType;
}
interface PageDef {
  load: () => Promise<PageModule>;
  /** Data the server fetches before rendering, so the page arrives complete. */
  prefetch?: (helpers: PrefetchHelpers, params: Record<string, string>, search: URLSearchParams) => Promise<void>;
}

/** Screens load on demand (§2); routes without a screen yet show an honest placeholder. */
const PAGES: Partial<Record<AppPath, PageDef>> = {
  '/login': { load: () => import('./pages/login-page.tsx') },
  '/forgot-password': { load: () => import('./pages/forgot-password-page.tsx') },
  '/reset-password/:token': { load: () => import('./pages/reset-password-page.tsx') },
  '/accept-invitation/:token': { load: () => import('./pages/accept-invitation-page.tsx') },
  '/confirm-email/:token/:email': { load: () => import('./pages/confirm-email-page.tsx') },
  '/forbidden': { load: () => import('./pages/forbidden-page.tsx') },
  '/privacy-policy': { load: () => import('./pages/legal-pages.tsx') },
  '/terms-and-conditions/:lang': { load: () => import('./pages/legal-pages.tsx').then((m) => ({ default: m.TermsPage })) },
  '/subscriptions/:plan/:language?': { load: () => import('./pages/legal-pages.tsx').then((m) => ({ default: m.SubscriptionPlanPage })) },
  '/profile': { load: () => import('./pages/profile-page.tsx'), prefetch: (h) => h.account.get.prefetch() },
  '/': { load: () => import('./pages/home-page.tsx') },
  '/users': {
    load: () => import('./pages/users-page.tsx'),
    prefetch: async (h, _p, search) => h.users.list.prefetch(parseUserListParams(search)),
  },
  '/users/:id': {
    load: () => import('./pages/user-page.tsx'),
    prefetch: async (h, params) => {
      const id = Number(params.id);
      if (Number.isInteger(id) && id > 0) await h.users.get.prefetch({ id });
    },
  },
};

type ListPrefetch = Record<string, { list: { prefetch(input: unknown): Promise<void> }; get: { prefetch(input: unknown): Promise<void> } }>;

/** Generic list screen of an entity; its first page is prefetched on the server from the URL state. */
function entityListPage(def: EntityDef): PageDef {
  return {
    load: () => import('./entity/resource-list-page.tsx').then((m) => ({ default: () => <m.ResourceListPage def={def} /> })),
    prefetch: (h, _params, search) => (h as unknown as ListPrefetch)[routerKey(def)]!.list.prefetch(parseListParams(def, search)),
  };
}

function entityDetailPage(def: EntityDef, load?: () => Promise<PageModule>): PageDef {
  return {
    load: load ?? (() => import('./entity/resource-detail-page.tsx').then((m) => ({ default: () => <m.ResourceDetailPage def={def} /> }))),
    prefetch: async (h, params) => {
      const id = Number(params.id);
      if (Number.isInteger(id) && id > 0) await (h as unknown as ListPrefetch)[routerKey(def)]!.get.prefetch({ id });
    },
  };
}

for (const def of ENTITIES as readonly EntityDef[]) {
  PAGES[def.route] ??= entityListPage(def);
  if (def.detailRoute) PAGES[def.detailRoute] ??= entityDetailPage(def);
}
PAGES['/promo-codes/:id'] = entityDetailPage(ENTITIES.find((e) => e.name === 'promo-codes')!, () => import('./pages/promo-code-page.tsx'));
PAGES['/bicycles/:id'] = entityDetailPage(ENTITIES.find((e) => e.name === 'bicycles')!, () => import('./pages/bicycle-page.tsx'));

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

function element(route: AppRoute) {
  const def = pageDef(route.path);
  const Page = def ? lazyPage(route.path, def) : null;
  const content = Page ? <Page /> : <PendingPage titleKey={route.titleKey} />;
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
      <Route element={<AppShell />}>
        {privateRoutes.map((route) => (
          <Route key={route.path} path={route.path} element={element(route)} />
        ))}
      </Route>
      <Route
        path="*"
        element={
          <Suspense fallback={<PageSpinner />}>
            <NotFound />
          </Suspense>
        }
      />
    </Routes>
  );
}
