import { namedCatalogue } from '../entity/fields.ts';

/** §3 bicycle types: the kinds of bicycle a customer registers (city, cargo, e-bike…). */
export const bicycleTypesEntity = namedCatalogue('bicycle-types', { list: '/bicycle-types', roles: ['Admin'], sidebar: { group: 'catalogues', order: 130, icon: 'package' } });
