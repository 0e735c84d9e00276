import type { EntityDef } from '../../shared/entity/define.ts';
import { subscriptionPlansEntity } from '../../shared/entities/subscription-plans.ts';
import { subscriptionsEntity } from '../../shared/entities/subscriptions.ts';

/**
 * The Admin-only tabs of /users (ADR 012): §2 has no subscriptions route, and subscriptions belong to
 * users, so their lists live here, chosen by `?tab=` so links, reload and back keep them.
 */
export const USERS_TABS: Record<string, EntityDef | undefined> = {
  subscriptions: subscriptionsEntity,
  plans: subscriptionPlansEntity,
};

export type UsersTab = 'users' | 'subscriptions' | 'plans';

export function usersTabOf(search: URLSearchParams): UsersTab {
  const tab = search.get('tab');
  return tab === 'subscriptions' || tab === 'plans' ? tab : 'users';
}
