import type { createServerSideHelpers } from '@trpc/react-query/server';
import type { AppRouter } from '../server/trpc/router.ts';
import { isEmbedded, type EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import type { AppPath } from '../shared/route-table.ts';
import { daysOf, isValidIsoDate, todayIso, type CalendarView } from './components/calendar-dates.ts';
import { routerPart } from './entity/entity-api.ts';
import { parseListParams } from './entity/list-state.ts';
import { parseUserListParams } from './pages/users-list-params.ts';
import { USERS_TABS, usersTabOf } from './pages/users-tabs.ts';
import { todayQuery } from './pages/today-query.ts';
import { historyParams } from './components/bicycle-history-params.ts';

/**
 * What the server fetches before rendering each signed-in page, so it arrives complete (ADR 005). Only
 * the server runs this (entry-server.tsx): the browser gets the data dehydrated, never this code, and
 * every entity definition here stays out of the browser's first load (ADR 024).
 */
export type PrefetchHelpers = ReturnType<typeof createServerSideHelpers<AppRouter>>;
type Prefetch = (helpers: PrefetchHelpers, params: Record<string, string>, search: URLSearchParams) => Promise<void>;
type ListPrefetch = { list: { prefetch(input: unknown): Promise<void> }; get: { prefetch(input: unknown): Promise<void> } };

const entity = (name: string) => (ENTITIES as readonly EntityDef[]).find((e) => e.name === name)!;

/** An entity list's first page, from the URL's list state. */
const listOf =
  (def: EntityDef): Prefetch =>
  (h, _params, search) =>
    routerPart<ListPrefetch>(h, def)!.list.prefetch(parseListParams(def, search));

const recordOf =
  (def: EntityDef): Prefetch =>
  async (h, params) => {
    const id = Number(params.id);
    if (Number.isInteger(id) && id > 0) await routerPart<ListPrefetch>(h, def)!.get.prefetch({ id });
  };

/** The range a calendar URL shows (the page computes the same). */
function calendarRange(search: URLSearchParams) {
  const view = (['month', 'week', 'day'] as const).find((v) => v === search.get('view')) ?? ('week' satisfies CalendarView);
  const date = isValidIsoDate(search.get('date') ?? '') ? search.get('date')! : todayIso();
  const days = daysOf(view, date);
  return { from: days[0]!, to: days[days.length - 1]! };
}

const PREFETCH: Partial<Record<AppPath, Prefetch>> = {
  '/profile': (h) => h.account.get.prefetch(),
  '/': (h) => h.dashboard.get.prefetch(),
  '/users': async (h, _params, search) => {
    // The Admin-only tabs (subscriptions, plans) are generic entity lists (ADR 012).
    const tab = USERS_TABS[usersTabOf(search)];
    if (tab) await listOf(tab)(h, {}, search);
    else await h.users.list.prefetch(parseUserListParams(search));
  },
  '/users/:id': async (h, params) => {
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
  '/services/:id': async (h, params) => {
    const id = Number(params.id);
    if (Number.isInteger(id) && id > 0) await Promise.all([h.services.get.prefetch({ id }), h.services.details.list.prefetch({ id })]);
  },
  '/bike-buddy-scheduler': (h, params, search) => listOf(entity(search.get('tab') === 'away' ? 'not-working-slots' : 'buddy-work-slots'))(h, params, search),
  '/services/calendar': async (h, _params, search) => {
    const buddy = search.get('buddy');
    await Promise.all([h.serviceSlots.options.prefetch({}), h.services.calendar.prefetch({ ...calendarRange(search), filters: buddy ? { buddy_id: buddy } : {} })]);
  },
  '/bike-buddy-scheduler/calendar': async (h) => {
    await h.serviceSlots.options.prefetch({});
  },
  // The role is not known here: a buddy's `buddy` parameter (ignored by the page) costs a refetch, nothing more.
  '/today': (h, _params, search) => h.services.calendar.prefetch(todayQuery(search, false)),
  '/dispatch': async (h, _params, search) => {
    const date = search.get('date') ?? '';
    await h.dispatch.board.prefetch({ date: isValidIsoDate(date) ? date : todayIso() });
  },
  '/bicycles/:id': async (h, params, search) => {
    const id = Number(params.id);
    await Promise.all([
      recordOf(entity('bicycles'))(h, params, search),
      Number.isInteger(id) && id > 0 ? h.bicycles.history.list.prefetch({ id, ...historyParams(search) }) : undefined,
    ]);
  },
};

// Every entity with a screen of its own: its list, and its record where it has a detail page.
for (const def of ENTITIES as readonly EntityDef[]) {
  if (isEmbedded(def)) continue;
  PREFETCH[def.route] ??= listOf(def);
  if (def.detailRoute) PREFETCH[def.detailRoute] ??= recordOf(def);
}

/** Fetches a route's data into the helpers' query client; never throws (a failed query renders its error state). */
export function prefetchRoute(path: string, helpers: PrefetchHelpers, params: Record<string, string>, search: URLSearchParams): Promise<void> | undefined {
  return PREFETCH[path as AppPath]?.(helpers, params, search);
}
