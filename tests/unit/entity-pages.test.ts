import { describe, expect, it } from 'vitest';
import { isEmbedded, type EntityDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { loadEntityDef, pageDef } from '../../client/routes.tsx';

/**
 * The router loads each entity's definition with its screens (ADR 024) from its own table, not from the
 * registry: every entity with a screen of its own must be there, with its own definition.
 */
describe("entities' screens", () => {
  const screens = (ENTITIES as readonly EntityDef[]).filter((def) => !isEmbedded(def));

  it('has a screen for the list and the record of every entity with a route of its own', () => {
    const missing = screens.flatMap((def) => [def.route, ...(def.detailRoute ? [def.detailRoute] : [])].filter((path) => !pageDef(path)).map((path) => `${def.name}: ${path}`));
    expect(missing).toEqual([]);
  });

  it('loads the definition of the entity whose route it is', async () => {
    for (const def of screens) {
      const page = pageDef(def.route)!;
      // The scheduler lists two entities on one route; custom screens import their definitions themselves.
      if (!page.modules.includes('client/entity/resource-list-page.tsx')) continue;
      expect(page.entity, def.route).toBe(def.name);
      expect(await loadEntityDef(def.name), def.route).toBe(def);
      expect((await page.load()).default, def.route).toBeTypeOf('function');
    }
  });
});
