import type { Role } from './roles.ts';

/**
 * A route pattern. Entity routes come from the definitions, so paths are checked when the table is
 * built and by `rolesOf` (tests/unit/route-table.test.ts checks every literal the code names), not by a
 * union of literals.
 */
export type AppPath = `/${string}`;

/** A row of the route table (shared/route-table.ts): a leaf module, so definitions and derivations can name it. */
export interface AppRoute {
  /** react-router pattern */
  path: string;
  /** i18n key of the page title / sidebar label */
  titleKey: string;
  /** undefined: public (no login). [] would mean "any whitelisted role". */
  roles?: readonly Role[];
  /**
   * `counts`: the sidebar shows how many changes of this kind (live updates, ADR 037) arrived since the
   * route was last open — the dispatch board counts new service requests.
   */
  sidebar?: { icon: string; order: number; counts?: { entity: string; action: string } };
  /**
   * The page works through a dead spot (ADR 042): its HTML lists every chunk its on-demand parts may load
   * (dialogs, panels opened later), and the service worker keeps them with the page, off the main thread
   * (ADR 048). The worker's own rules for the page and its data are in client/public/sw.js.
   */
  offline?: true;
  /** A screen of an entity (derived from its definition): the generic list or record screen, or `page`. */
  screen?: { entity: string; kind: 'list' | 'detail'; page?: string };
}
