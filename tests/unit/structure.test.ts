import { describe, expect, it } from 'vitest';
import { importCircles, importEdges, layeringViolations } from '../../scripts/import-graph.ts';

// ADR 001 and 030: client → shared ← server → (HTTP) → upstream, and no module that imports itself back.
describe('structure', () => {
  const edges = importEdges();

  it('reads the imports it checks', () => {
    // A parser that finds nothing would pass everything below.
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual({ from: 'server/trpc/init.ts', to: 'server/trpc/context.ts', typeOnly: true, dynamic: false });
    expect(edges).toContainEqual({ from: 'client/shell/confirm.tsx', to: 'client/shell/confirm-dialog.tsx', typeOnly: false, dynamic: true });
  });

  it('has no import circles (type-only and dynamic imports included)', () => {
    expect(importCircles(edges).map((circle) => circle.join(' → '))).toEqual([]);
  });

  it('keeps the layers apart: the server never imports the client; upstream and shared import neither side; the client bundles no *.server.ts', () => {
    expect(layeringViolations(edges)).toEqual([]);
  });

  it('finds a circle and a layering violation when there is one', () => {
    const planted = [
      { from: 'server/a.ts', to: 'server/b.ts', typeOnly: false, dynamic: false },
      { from: 'server/b.ts', to: 'server/c.ts', typeOnly: true, dynamic: false },
      { from: 'server/c.ts', to: 'server/a.ts', typeOnly: false, dynamic: false },
      { from: 'server/c.ts', to: 'client/x.ts', typeOnly: true, dynamic: false },
      { from: 'client/x.ts', to: 'server/router.ts', typeOnly: true, dynamic: false },
      { from: 'shared/y.ts', to: 'server/a.ts', typeOnly: true, dynamic: false },
      { from: 'upstream/z.ts', to: 'shared/y.ts', typeOnly: false, dynamic: false },
      { from: 'client/x.ts', to: 'shared/secret.server.ts', typeOnly: false, dynamic: true },
      { from: 'client/x.ts', to: 'shared/types.server.ts', typeOnly: true, dynamic: false },
    ];
    expect(importCircles(planted)).toEqual([['server/a.ts', 'server/b.ts', 'server/c.ts', 'server/a.ts']]);
    // The client may import types from the server (AppRouter); the other two may not.
    // `*.server.ts` stays out of the client bundle (its types are erased, so they may be imported).
    expect(layeringViolations(planted)).toEqual(['server/c.ts → client/x.ts', 'shared/y.ts → server/a.ts', 'client/x.ts → shared/secret.server.ts']);
  });
});
