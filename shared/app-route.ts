import type { Role } from './roles.ts';

/**
 * A route pattern. Entity routes come from the definitions, so paths are checked when the table is
 * built and by `rolesOf` (tests/unit/route-table.test.ts checks every literal the code names), not by a
 * union of literals.
 */
export type AppPath = `/${string}`;

/**
 * The sidebar's groups, in the order they are drawn (issue 33): a route or an entity's screen declares
 * which one its entry belongs to; the shell draws each group under its heading (`shell.navGroups.<group>`).
 */
export const SIDEBAR_GROUPS = ['daily', 'people', 'catalogues', 'settings'] as const;
export type SidebarGroup = (typeof SIDEBAR_GROUPS)[number];

/** A sidebar entry as a route or an entity's screen declares it: its group, position (ascending within the group) and octicon. */
export interface SidebarDeclaration {
  group: SidebarGroup;
  order: number;
  icon: string;
}

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
  sidebar?: SidebarDeclaration & { counts?: { entity: string; action: string } };
  /**
   * The page works through a dead spot (ADR 042): its HTML lists every chunk its on-demand parts may load
   * (dialogs, panels opened later), and the service worker keeps them with the page, off the main thread
   * (ADR 048). The worker's own rules for the page and its data are in client/public/sw.js.
   */
  offline?: true;
  /** A screen of an entity (derived from its definition): the generic list or record screen, or `page`. */
  screen?: { entity: string; kind: 'list' | 'detail'; page?: string };
}
