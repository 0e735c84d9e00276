import { PUBLIC_PAGE } from './bundles.ts';

/**
 * The lazily loaded modules (page, entity definition) of the app routes that have bundle budgets,
 * as source paths in Vite's client manifest; public routes are served by the public entry (ADR 024).
 * Plain data so Node can read it without the client's TSX; the budget test checks that it agrees with
 * client/routes.tsx (`routeModules`), which the server uses to link a route's chunks.
 */
export const BUDGET_ROUTE_MODULES: Record<string, readonly string[] | typeof PUBLIC_PAGE> = {
  '/login': PUBLIC_PAGE,
  '/login/second-factor': PUBLIC_PAGE,
  '/forgot-password': PUBLIC_PAGE,
  '/reset-password/:token': PUBLIC_PAGE,
  '/accept-invitation/:token': PUBLIC_PAGE,
  '/confirm-email/:token/:email': PUBLIC_PAGE,
  '/forbidden': PUBLIC_PAGE,
  '/privacy-policy': PUBLIC_PAGE,
  '/terms-and-conditions/:lang': PUBLIC_PAGE,
  '/subscriptions/:plan/:language?': PUBLIC_PAGE,
  '/bicycles': ['client/entity/resource-list-page.tsx', 'shared/entities/bicycles.ts'],
  '/today': ['client/pages/today-page.tsx'],
};

/**
 * The English translations a route loads before hydrating (client/i18n.ts `languageModules`; the budget
 * test checks they agree): a list, the first-load part and its entity's labels; Today, the pages' texts and the
 * services' labels; any other page, all of them.
 */
const ENGLISH_MODULES: Record<string, readonly string[]> = {
  '/bicycles': ['virtual:translations/en/core', 'virtual:translations/en/resources/bicycles'],
  '/today': ['virtual:translations/en/core', 'virtual:translations/en/more', 'virtual:translations/en/resources/services'],
};

/** What the budget counts for a route: the public entry, or its lazy modules and the English translations. */
export function budgetRouteModules(route: string): readonly string[] | typeof PUBLIC_PAGE {
  const modules = BUDGET_ROUTE_MODULES[route];
  if (!modules) throw new Error(`no modules listed for ${route} in bench/route-modules.ts`);
  return modules === PUBLIC_PAGE ? PUBLIC_PAGE : [...modules, ...(ENGLISH_MODULES[route] ?? [])];
}
