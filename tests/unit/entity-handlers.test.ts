import { describe, expect, it } from 'vitest';
import { staleIndexes } from '../../scripts/gen-entity-handlers.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { actionsOf, type EntityDef } from '../../shared/entity/define.ts';
import { appRouter } from '../../server/trpc/router.ts';
import { routerKeyOf } from '../../server/trpc/entity-router.ts';

describe('per-entity code found by file name (ADR 032)', () => {
  it('the generated indexes list every file named after an entity (run node scripts/gen-entity-handlers.ts)', () => {
    expect(staleIndexes()).toEqual([]);
  });

  it('every declared action and sub-resource has its tRPC procedures', () => {
    const procedures = appRouter._def.procedures as Record<string, unknown>;
    for (const def of ENTITIES as readonly EntityDef[]) {
      const key = routerKeyOf(def.name);
      for (const action of Object.keys(actionsOf(def))) expect(procedures[`${key}.${action}`], `${key}.${action}`).toBeDefined();
      for (const [sub, decl] of Object.entries(def.subResources ?? {})) {
        expect(procedures[`${key}.${sub}.list`], `${key}.${sub}.list`).toBeDefined();
        for (const op of ['add', 'set', 'setMany', 'remove'] as const) expect(Boolean(procedures[`${key}.${sub}.${op}`]), `${key}.${sub}.${op}`).toBe(Boolean(decl[op]));
      }
    }
  });
});
