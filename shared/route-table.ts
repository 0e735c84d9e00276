import { ROLE, type Role, hasAnyRole } from './roles.ts';

/**
 * The one route and permission table (spec §2). It drives the server's SSR guards, the tRPC
 * role checks (procedures name the route whose roles they share), the client router and the
 * sidebar. `icon` names an octicon; the client maps it to a component.
 */
export interface AppRoute {
  /** react-router pattern */
  path: string;
  /** i18n key of the page title / sidebar label */
  titleKey: string;
  /** undefined: public (no login). [] would mean "any whitelisted role". */
  roles?: readonly Role[];
  sidebar?: { icon: string; order: number };
}

const ADMIN = [ROLE.Admin] as const;
const STAFF = [ROLE.Admin, ROLE.Buddy] as const;

export const APP_ROUTES = [
  // Public
  { path: '/login', titleKey: 'routes.login' },
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
  { path: '/', titleKey: 'routes.home', roles: STAFF, sidebar: { icon: 'home', order: 10 } },
  // Issue 13: a buddy's day on the phone (ADR 021); an Admin sees every buddy's, or picks one.
  { path: '/today', titleKey: 'routes.today', roles: STAFF, sidebar: { icon: 'sun', order: 15 } },
  { path: '/bike-buddy-scheduler', titleKey: 'routes.scheduler', roles: STAFF, sidebar: { icon: 'calendar', order: 20 } },
  { path: '/bike-buddy-scheduler/calendar', titleKey: 'routes.schedulerCalendar', roles: STAFF },
  { path: '/companies', titleKey: 'routes.companies', roles: ADMIN, sidebar: { icon: 'organization', order: 30 } },
  { path: '/companies/:id', titleKey: 'routes.company', roles: ADMIN },
  { path: '/event-bookings', titleKey: 'routes.eventBookings', roles: ADMIN, sidebar: { icon: 'checklist', order: 40 } },
  { path: '/events', titleKey: 'routes.events', roles: ADMIN, sidebar: { icon: 'megaphone', order: 50 } },
  { path: '/events/:id', titleKey: 'routes.event', roles: ADMIN },
  { path: '/promo-codes', titleKey: 'routes.promoCodes', roles: ADMIN, sidebar: { icon: 'tag', order: 60 } },
  { path: '/promo-codes/:id', titleKey: 'routes.promoCode', roles: ADMIN },
  { path: '/services', titleKey: 'routes.services', roles: STAFF, sidebar: { icon: 'tools', order: 70 } },
  { path: '/services/calendar', titleKey: 'routes.servicesCalendar', roles: STAFF },
  { path: '/services/:id', titleKey: 'routes.service', roles: STAFF },
  { path: '/dispatch', titleKey: 'routes.dispatch', roles: ADMIN, sidebar: { icon: 'project', order: 75 } },
  { path: '/expert', titleKey: 'routes.expert', roles: ADMIN, sidebar: { icon: 'mortar-board', order: 80 } },
  { path: '/service-items', titleKey: 'routes.serviceItems', roles: ADMIN, sidebar: { icon: 'list-unordered', order: 90 } },
  { path: '/service-slots', titleKey: 'routes.serviceSlots', roles: ADMIN, sidebar: { icon: 'clock', order: 100 } },
  { path: '/service-types', titleKey: 'routes.serviceTypes', roles: ADMIN, sidebar: { icon: 'stack', order: 105 } },
  { path: '/languages', titleKey: 'routes.languages', roles: ADMIN, sidebar: { icon: 'globe', order: 110 } },
  { path: '/competencies', titleKey: 'routes.competencies', roles: ADMIN, sidebar: { icon: 'star', order: 120 } },
  { path: '/bicycle-types', titleKey: 'routes.bicycleTypes', roles: ADMIN, sidebar: { icon: 'package', order: 130 } },
  { path: '/users', titleKey: 'routes.users', roles: [ROLE.Admin, ROLE.BuddyShop], sidebar: { icon: 'people', order: 140 } },
  { path: '/users/:id', titleKey: 'routes.user', roles: ADMIN },
  { path: '/roles', titleKey: 'routes.roles', roles: ADMIN, sidebar: { icon: 'shield-lock', order: 150 } },
  { path: '/bicycles', titleKey: 'routes.bicycles', roles: ADMIN, sidebar: { icon: 'rocket', order: 160 } },
  { path: '/bicycles/:id', titleKey: 'routes.bicycle', roles: ADMIN },
  { path: '/assets', titleKey: 'routes.assets', roles: ADMIN, sidebar: { icon: 'container', order: 165 } },
  { path: '/assets/:id', titleKey: 'routes.asset', roles: ADMIN },
  { path: '/operational-ranges', titleKey: 'routes.operationalRanges', roles: ADMIN, sidebar: { icon: 'location', order: 170 } },
  { path: '/trial-groups', titleKey: 'routes.trialGroups', roles: ADMIN, sidebar: { icon: 'beaker', order: 180 } },
  { path: '/trial-groups/:id', titleKey: 'routes.trialGroup', roles: ADMIN },
  { path: '/products', titleKey: 'routes.products', roles: ADMIN, sidebar: { icon: 'briefcase', order: 190 } },
] as const satisfies readonly AppRoute[];

export type AppPath = (typeof APP_ROUTES)[number]['path'];

/** Roles of a route, for procedures that serve it: `roleProcedure(...rolesOf('/users'))`. */
export function rolesOf(path: AppPath): readonly Role[] {
  const route: AppRoute | undefined = APP_ROUTES.find((r) => r.path === path);
  if (!route?.roles) throw new Error(`Route ${path} is public`);
  return route.roles;
}

export interface RouteMatch {
  route: AppRoute;
  params: Record<string, string>;
}

const compiled = APP_ROUTES.map((route) => ({ route: route as AppRoute, ...compile(route.path) }));

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
  roles?: readonly Role[];
  children?: SidebarEntry[];
}

export const SIDEBAR: readonly SidebarEntry[] = APP_ROUTES.flatMap((route: AppRoute) =>
  route.sidebar ? [{ path: route.path, titleKey: route.titleKey, icon: route.sidebar.icon, roles: route.roles, order: route.sidebar.order }] : [],
)
  .sort((a, b) => a.order - b.order)
  .map(({ order: _order, ...entry }) => entry);

export function visibleSidebar(entries: readonly SidebarEntry[], roles: readonly Role[]): SidebarEntry[] {
  return entries
    .filter((entry) => !entry.roles || entry.roles.length === 0 || hasAnyRole(roles, entry.roles))
    .map((entry) => (entry.children ? { ...entry, children: visibleSidebar(entry.children, roles) } : entry));
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
