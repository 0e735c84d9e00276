import type { AppRoute } from '../app-route.ts';
import { screenTitleKeys, type EntityDef } from './define.ts';

/**
 * The route-table rows of the entities' screens (ADR 031): a list row (with the sidebar entry) and a
 * record row per entity that declares a `screen`, carrying what the router needs to render them without
 * the definition (the entity, the screen kind, a custom page module). Plain data: the client build gets
 * it as a generated module (vite.config.ts `entityRoutes`), the server computes it from the registry.
 */
export function entityScreenRoutes(defs: readonly EntityDef[]): AppRoute[] {
  return defs.flatMap((def): AppRoute[] => {
    const screen = def.screen;
    if (!screen) return [];
    const titles = screenTitleKeys(def.name);
    const list: AppRoute = {
      path: screen.list,
      titleKey: titles.list,
      roles: screen.roles,
      ...(screen.sidebar && { sidebar: screen.sidebar }),
      screen: { entity: def.name, kind: 'list', ...(screen.pages?.list && { page: screen.pages.list }) },
    };
    if (!screen.detail) return [list];
    const detail: AppRoute = {
      path: screen.detail,
      titleKey: titles.detail,
      roles: screen.detailRoles ?? screen.roles,
      screen: { entity: def.name, kind: 'detail', ...(screen.pages?.detail && { page: screen.pages.detail }) },
    };
    return [list, detail];
  });
}
