/**
 * The lazily loaded modules (layout, page) of the routes that have bundle budgets, as source paths in
 * Vite's client manifest. Plain data so Node can read it without the client's TSX; the budget test checks
 * that it agrees with client/routes.tsx (`routeModules`), which the server uses to link a route's chunks.
 */
export const BUDGET_ROUTE_MODULES: Record<string, readonly string[]> = {
  '/login': ['client/pages/login-page.tsx'],
  '/bicycles': ['client/shell/app-shell.tsx', 'client/entity/resource-list-page.tsx'],
  '/today': ['client/shell/app-shell.tsx', 'client/pages/today-page.tsx'],
};

/** Loaded before hydrating on every page in English (client/i18n.ts, languageModules('en')). */
export const ENGLISH_MODULES = ['locales/en/common.json', 'locales/en/resources.json'];

/** What the budget counts for a route: its lazy modules and the English translations. */
export function budgetRouteModules(route: string): readonly string[] {
  const modules = BUDGET_ROUTE_MODULES[route];
  if (!modules) throw new Error(`no modules listed for ${route} in bench/route-modules.ts`);
  return [...modules, ...ENGLISH_MODULES];
}
