import { ENTITIES } from './entities/registry.ts';
import { entityScreenRoutes } from './entity/screen-routes.ts';
import type { AppRoute } from './app-route.ts';

/**
 * The routes of the entities' screens, derived from their definitions (ADR 031). The server imports this
 * module as it is; the client build replaces it with the same rows as plain data (vite.config.ts
 * `entityRoutes`), so the route table of the first load does not carry every definition (ADR 024).
 */
export const ENTITY_ROUTES: readonly AppRoute[] = entityScreenRoutes(ENTITIES);
