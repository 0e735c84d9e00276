import { describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { OTHER_UPSTREAM_PATH, pathTemplate, routeLabel } from '../../server/metrics.ts';

describe('upstream call labels (issue 12 M3)', () => {
  it.each([
    ['subscriptions/12/cancel/', 'subscriptions/:id/cancel/'],
    ['subscriptions/12/refunds/', 'subscriptions/:id/refunds/'],
    ['public/subscription-plans/family/', 'public/subscription-plans/:param/'],
    ['public/subscription-plans/%3Cscript%3E/', 'public/subscription-plans/:param/'],
    ['users/7/roles/Admin/', 'users/:id/roles/:param/'],
    ['companies/', 'companies/'],
    ['companies/31/', 'companies/:id/'],
    ['services/4/transition/', 'services/:id/transition/'],
    ['services/4/details/2/images/9/', 'services/:id/details/:id/images/:id/'],
    ['account/login', 'account/login'],
    ['../healthz', '../healthz'],
  ])('%s → %s', (path, template) => {
    expect(pathTemplate(path)).toBe(template);
  });

  it('labels every path it does not know as `other`, however it was made', () => {
    for (const path of ['companies/abc/', 'subscriptions/1/refund-everything/', 'made-up/', 'public/subscription-plans//', 'users/1/2/3/4/5/6/7/', '', '/', 'companies/1e3/']) {
      expect(pathTemplate(path)).toBe(OTHER_UPSTREAM_PATH);
    }
  });

  it('knows every entity’s generic calls', () => {
    for (const def of ENTITIES) {
      expect(pathTemplate(`${def.name}/`)).toBe(`${def.name}/`);
      expect(pathTemplate(`${def.name}/5/`)).toBe(`${def.name}/:id/`);
      expect(pathTemplate(`${def.name}/export/`)).toBe(`${def.name}/export/`);
    }
  });

  it('labels tRPC requests by known procedure only', () => {
    const known = new Set(['session.me']);
    expect(routeLabel('/trpc/*', 'session.me', known)).toBe('/trpc/session.me');
    expect(routeLabel('/trpc/*', 'made.up', known)).toBe('/trpc/(unknown)');
    expect(routeLabel('/trpc/*', 'session.me,session.me', known)).toBe('/trpc/(batch)');
    expect(routeLabel(undefined, undefined, known)).toBe('unmatched');
  });
});
