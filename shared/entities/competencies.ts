import { namedCatalogue } from '../entity/fields.ts';

/** §3 competencies: what a buddy can do (wheel building, e-bike electrics…), linked to users. */
export const competenciesEntity = namedCatalogue('competencies', { list: '/competencies', roles: ['Admin'], sidebar: { group: 'catalogues', order: 120, icon: 'star' } });
