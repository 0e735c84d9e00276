// Written by scripts/gen-entity-handlers.ts from the files named after entities (ADR 032); do not edit.
import * as users from './users.ts';
import * as roles from './roles.ts';
import * as promoCodes from './promo-codes.ts';
import * as bicycles from './bicycles.ts';
import * as buddyWorkSlots from './buddy-work-slots.ts';
import * as notWorkingSlots from './not-working-slots.ts';
import * as services from './services.ts';
import * as subscriptionPlans from './subscription-plans.ts';
import * as subscriptions from './subscriptions.ts';
import * as eventSlots from './event-slots.ts';
import * as trialGroups from './trial-groups.ts';

export const ENTITY_HANDLERS = {
  'users': users,
  'roles': roles,
  'promo-codes': promoCodes,
  'bicycles': bicycles,
  'buddy-work-slots': buddyWorkSlots,
  'not-working-slots': notWorkingSlots,
  'services': services,
  'subscription-plans': subscriptionPlans,
  'subscriptions': subscriptions,
  'event-slots': eventSlots,
  'trial-groups': trialGroups,
} as const;
