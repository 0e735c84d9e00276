import type { EntityDef } from '../entity/define.ts';
import { checkDefinition } from '../entity/define-checks.ts';
import { bicycleTypesEntity } from './bicycle-types.ts';
import { bicyclesEntity } from './bicycles.ts';
import { companiesEntity } from './companies.ts';
import { competenciesEntity } from './competencies.ts';
import { languagesEntity } from './languages.ts';
import { operationalRangesEntity } from './operational-ranges.ts';
import { productsEntity } from './products.ts';
import { promoCodesEntity } from './promo-codes.ts';
import { rolesEntity } from './roles.ts';
import { serviceItemsEntity } from './service-items.ts';
import { serviceSlotsEntity } from './service-slots.ts';
import { buddyWorkSlotsEntity } from './buddy-work-slots.ts';
import { notWorkingSlotsEntity } from './not-working-slots.ts';
import { servicesEntity } from './services.ts';
import { expertRequestsEntity } from './expert-requests.ts';
import { subscriptionPlansEntity } from './subscription-plans.ts';
import { subscriptionsEntity } from './subscriptions.ts';
import { eventsEntity } from './events.ts';
import { eventSlotsEntity } from './event-slots.ts';
import { eventBookingsEntity } from './event-bookings.ts';
import { trialGroupsEntity } from './trial-groups.ts';
import { serviceTypesEntity } from './service-types.ts';
import { assetsEntity } from './assets.ts';
import { usersEntity } from './users.ts';

/** Every entity served by the generic engine, in the order their tables are created. */
export const ENTITIES = [
  usersEntity,
  rolesEntity,
  bicycleTypesEntity,
  languagesEntity,
  competenciesEntity,
  operationalRangesEntity,
  serviceSlotsEntity,
  serviceItemsEntity,
  serviceTypesEntity,
  productsEntity,
  companiesEntity,
  promoCodesEntity,
  bicyclesEntity,
  buddyWorkSlotsEntity,
  notWorkingSlotsEntity,
  servicesEntity,
  expertRequestsEntity,
  subscriptionPlansEntity,
  subscriptionsEntity,
  eventsEntity,
  eventSlotsEntity,
  eventBookingsEntity,
  trialGroupsEntity,
  assetsEntity,
] as const satisfies readonly EntityDef[];

// Every definition keeps the engine's rules, checked once here: a broken one stops the server, the API and the tests at start.
for (const def of ENTITIES as readonly EntityDef[]) checkDefinition(def, entityByName);

export function entityByName(name: string): EntityDef | undefined {
  return (ENTITIES as readonly EntityDef[]).find((e) => e.name === name);
}
