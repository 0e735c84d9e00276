// Written by scripts/gen-entity-handlers.ts from the files named after entities (ADR 032); do not edit.
import * as users from './extras/users.ts';
import * as serviceItems from './extras/service-items.ts';
import * as services from './extras/services.ts';
import * as subscriptionPlans from './extras/subscription-plans.ts';
import * as trialGroups from './extras/trial-groups.ts';

export const ENTITY_EXTRAS = {
  'users': users,
  'service-items': serviceItems,
  'services': services,
  'subscription-plans': subscriptionPlans,
  'trial-groups': trialGroups,
} as const;
