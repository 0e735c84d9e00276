import { ROLE, type Role, hasAnyRole } from './roles.ts';
import { ENTITY_ROUTES } from './entity-routes.ts';
import { SIDEBAR_GROUPS, type AppPath, type AppRoute, type SidebarGroup } from './app-route.ts';

export type { AppPath, AppRoute, SidebarGroup };
export { SIDEBAR_GROUPS };

/**
 * The one route and permission table (spec §2). It drives the server's SSR guards, the tRPC
 * role checks (procedures name the route whose roles they share), the client router and the
 * sidebar. `icon` names an octicon; the client maps it to a component. The entities' screens are
 * declared in their definitions and derived (ADR 031); the other routes are listed here.
 */

const ADMIN = [ROLE.Admin] as const;
const STAFF = [ROLE.Admin, ROLE.Buddy] as const;

/** The routes that are not an entity's screens: public pages, the home and day pages, calendars, boards. */
const OTHER_ROUTES: readonly AppRoute[] = [
  // Public
  { path: '/login', titleKey: 'routes.login' },
  { path: '/login/second-factor', titleKey: 'routes.secondFactor' },
  { path: '/forgot-password', titleKey: 'routes.forgotPassword' },
  { path: '/reset-password/:token', titleKey: 'routes.resetPassword' },
  { path: '/accept-invitation/:token', titleKey: 'routes.acceptInvitation' },
  { path: '/confirm-email/:token/:email', titleKey: 'routes.confirmEmail' },
  { path: '/forbidden', titleKey: 'routes.forbidden' },
  { path: '/privacy-policy', titleKey: 'routes.privacyPolicy' },
  { path: '/terms-and-conditions/:lang', titleKey: 'routes.terms' },
  { path: '/subscriptions/:plan/:language?', titleKey: 'routes.subscriptionPlan' },
  // Login required
  { path: '/profile', titleKey: 'routes.profile', roles: STAFF },
  // Issue 32: second factors, passkeys and the user's sessions (ADR 068); the Admin's policy too.
  { path: '/security', titleKey: 'routes.security', roles: STAFF },
  { path: '/', titleKey: 'routes.home', roles: STAFF, sidebar: { group: 'daily', icon: 'home', order: 10 } },
  // Issue 13: a buddy's day on the phone (ADR 021); an Admin sees every buddy's, or picks one.
  { path: '/today', titleKey: 'routes.today', roles: STAFF, sidebar: { group: 'daily', icon: 'sun', order: 15 }, offline: true },
  { path: '/bike-buddy-scheduler', titleKey: 'routes.scheduler', roles: STAFF, sidebar: { group: 'daily', icon: 'calendar', order: 20 } },
  { path: '/bike-buddy-scheduler/calendar', titleKey: 'routes.schedulerCalendar', roles: STAFF },
  { path: '/services/calendar', titleKey: 'routes.servicesCalendar', roles: STAFF },
  { path: '/dispatch', titleKey: 'routes.dispatch', roles: ADMIN, sidebar: { group: 'daily', icon: 'project', order: 75, counts: { entity: 'services', action: 'create' } } },
  // Issue 20: every change, by whom and when (ADR 036); a record's own history is a tab of its page.
  { path: '/activity', titleKey: 'routes.activity', roles: ADMIN, sidebar: { group: 'settings', icon: 'history', order: 195 } },
];

export const APP_ROUTES: readonly AppRoute[] = [...OTHER_ROUTES, ...ENTITY_ROUTES];

const BY_PATH = new Map<string, AppRoute>();
for (const route of APP_ROUTES) {
  if (BY_PATH.has(route.path)) throw new Error(`Route ${route.path} is declared twice (route table or an entity's screen)`);
  BY_PATH.set(route.path, route);
}

/** The route of a pattern (`/bicycles/:id`), if the table has it. */
export function routeOf(path: string): AppRoute | undefined {
  return BY_PATH.get(path);
}

/** Roles of a route, for procedures that serve it: `roleProcedure(...rolesOf('/users'))`. Throws for an unknown or public route. */
export function rolesOf(path: AppPath): readonly Role[] {
  const route = BY_PATH.get(path);
  if (!route) throw new Error(`Route ${path} is not in the route table`);
  if (!route.roles) throw new Error(`Route ${path} is public`);
  return route.roles;
}

export interface RouteMatch {
  route: AppRoute;
  params: Record<string, string>;
}

const compiled = APP_ROUTES.map((route) => ({ route, ...compile(route.path) }));

function compile(pattern: string): { regex: RegExp; keys: string[]; score: number } {
  const keys: string[] = [];
  let score = 0;
  const body = pattern
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const optional = segment.endsWith('?');
      if (segment.startsWith(':')) {
        keys.push(segment.slice(1).replace(/\?$/, ''));
        score += 1;
        return optional ? '(?:/([^/]+))?' : '/([^/]+)';
      }
      score += 10;
      return '/' + segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { regex: new RegExp(`^${body || '/'}/?$`), keys, score };
}

/** Static segments win over parameters, as in react-router (`/services/calendar` before `/services/:id`). */
export function matchRoute(pathname: string): RouteMatch | null {
  let best: (RouteMatch & { score: number }) | null = null;
  for (const entry of compiled) {
    const m = entry.regex.exec(pathname);
    if (!m) continue;
    if (best && best.score >= entry.score) continue;
    const params: Record<string, string> = {};
    entry.keys.forEach((key, i) => {
      const value = m[i + 1];
      if (value !== undefined) params[key] = safeDecode(value);
    });
    best = { route: entry.route, params, score: entry.score };
  }
  return best && { route: best.route, params: best.params };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export type GuardResult = { kind: 'allow' } | { kind: 'login'; redirectTo: string } | { kind: 'forbidden' };

/** The guard both the server (SSR) and the client router apply. */
export function guardRoute(route: AppRoute | undefined, session: { roles: readonly Role[] } | null, originalUrl: string): GuardResult {
  if (!route?.roles) return { kind: 'allow' };
  if (!session) return { kind: 'login', redirectTo: `/login?redirect=${encodeURIComponent(originalUrl)}` };
  return hasAnyRole(session.roles, route.roles) ? { kind: 'allow' } : { kind: 'forbidden' };
}

export interface SidebarEntry {
  path: string;
  titleKey: string;
  icon: string;
  /** The group it is drawn under (declared with the route or the entity's screen); children inherit their parent's place. */
  group?: SidebarGroup;
  roles?: readonly Role[];
  children?: SidebarEntry[];
  /** Live changes counted beside the entry until it is opened (`AppRoute.sidebar.counts`). */
  counts?: { entity: string; action: string };
}

export const SIDEBAR: readonly SidebarEntry[] = APP_ROUTES.flatMap((route) =>
  route.sidebar
    ? [
        {
          path: route.path,
          titleKey: route.titleKey,
          icon: route.sidebar.icon,
          group: route.sidebar.group,
          roles: route.roles,
          order: route.sidebar.order,
          counts: route.sidebar.counts,
        },
      ]
    : [],
)
  // By group (in SIDEBAR_GROUPS' order), then by position within the group.
  .sort((a, b) => SIDEBAR_GROUPS.indexOf(a.group) - SIDEBAR_GROUPS.indexOf(b.group) || a.order - b.order)
  .map(({ order: _order, ...entry }) => entry);

export function visibleSidebar(entries: readonly SidebarEntry[], roles: readonly Role[]): SidebarEntry[] {
  return entries
    .filter((entry) => !entry.roles || entry.roles.length === 0 || hasAnyRole(roles, entry.roles))
    .map((entry) => (entry.children ? { ...entry, children: visibleSidebar(entry.children, roles) } : entry));
}

/** The entries in their groups, in the groups' order; a group with no entry (for these roles) is left out. */
export function sidebarGroups(entries: readonly SidebarEntry[]): { group: SidebarGroup; entries: SidebarEntry[] }[] {
  return SIDEBAR_GROUPS.map((group) => ({ group, entries: entries.filter((entry) => (entry.group ?? 'daily') === group) })).filter((g) => g.entries.length > 0);
}

export function isExternalLink(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

const REDIRECT_BASE = 'http://origin.invalid';

/** A path a browser cannot read as another origin: one leading `/`, no backslash, no control character. */
function isPlainLocalPath(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  return value.startsWith('/') && !value.startsWith('//') && !/[\u0000-\u001f\u007f-\u009f\\]/.test(value);
}

/** One round of normalisation: the path as the URL parser resolves it, or null when any form of it is unsafe. */
function normaliseLocalPath(value: string): string | null {
  if (!isPlainLocalPath(value)) return null;
  // `/%2F%2Fx`, `/%5Cx`, `/%09/x` (and their double encodings): harmless as sent, but a consumer that
  // decodes would see `//x`.
  let decoded = value;
  for (let depth = 0; depth < 3; depth++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      return null;
    }
    if (!isPlainLocalPath(decoded)) return null;
  }
  let url: URL;
  try {
    url = new URL(value, REDIRECT_BASE);
  } catch {
    return null;
  }
  if (url.origin !== REDIRECT_BASE) return null;
  const resolved = url.pathname + url.search + url.hash;
  // Dot segments can make `//` out of a safe-looking path: `/.//evil.example`, `/a/..//x`, `/%2e%2e//x`.
  return isPlainLocalPath(resolved) ? resolved : null;
}

/**
 * Only same-origin relative paths survive (security guide: reject `//x`, `/\\x`, `%2F%2F`,
 * `javascript:`, `http:x`, control characters). The candidate is normalised (dot segments removed,
 * percent-decoding checked) until it no longer changes, and that final form is what is judged and
 * returned: a browser resolving it gets exactly that path on our origin. Anything else becomes the fallback.
 */
export function safeRedirectPath(candidate: unknown, fallback = '/'): string {
  if (typeof candidate !== 'string' || candidate.length === 0 || candidate.length > 2048) return fallback;
  let current = candidate;
  for (let round = 0; round < 5; round++) {
    const next = normaliseLocalPath(current);
    if (next === null) return fallback;
    if (next === current) return current;
    current = next;
  }
  return fallback;
}
