import { namedCatalogue } from '../entity/fields.ts';

/** §3 operational ranges: the named areas a buddy works in, assigned on a user's page. */
export const operationalRangesEntity = namedCatalogue(
  'operational-ranges',
  { list: '/operational-ranges', roles: ['Admin'], sidebar: { group: 'settings', order: 170, icon: 'location' } },
  { description: false },
);
