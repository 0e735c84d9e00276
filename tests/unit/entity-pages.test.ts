import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEmbedded, type EntityDef } from '../../shared/entity/define.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { loadEntityDef, pageDef } from '../../client/routes.tsx';

/**
 * The router derives each entity's pages from the screen its definition declares (ADR 031) and loads the
 * definition with them (ADR 024) from its own module, not from the registry.
 */
describe("entities' screens", () => {
  const root = join(import.meta.dirname, '..', '..');
  const defs = ENTITIES as readonly EntityDef[];
  const screens = defs.filter((def) => !isEmbedded(def));

  it('has a screen for the list and the record of every entity with a route of its own', () => {
    const missing = screens.flatMap((def) => [def.route, ...(def.detailRoute ? [def.detailRoute] : [])].filter((path) => !pageDef(path)).map((path) => `${def.name}: ${path}`));
    expect(missing).toEqual([]);
  });

  it('renders the custom page a definition names, or the generic screen with the definition of its own module', async () => {
    for (const def of defs.filter((d) => d.screen)) {
      const { list, detail, pages } = def.screen!;
      const routes: [string, string | undefined][] = [[list, pages?.list], ...(detail ? [[detail, pages?.detail] as [string, string | undefined]] : [])];
      for (const [path, page] of routes) {
        const screen = pageDef(path)!;
        expect(screen.entity, path).toBe(def.name);
        if (page) {
          expect(screen.modules, path).toEqual([page]);
          expect(existsSync(join(root, page)), page).toBe(true);
          continue;
        }
        expect(screen.modules, path).toEqual([path === list ? 'client/entity/resource-list-page.tsx' : 'client/entity/resource-detail-page.tsx', `shared/entities/${def.name}.ts`]);
        expect((await screen.load()).default, path).toBeTypeOf('function');
      }
      expect(await loadEntityDef(def.name), def.name).toBe(def);
    }
    // The first import of the record screen brings Primer's forms along: slow on a busy machine.
  }, 60_000);
});
