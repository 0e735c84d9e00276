import { describe, expect, it } from 'vitest';
import { importEdges } from '../../scripts/import-graph.ts';

/**
 * The client reaches the server only through the typed router (issue 34, ADR 073): the one server module a client
 * file may name is `server/trpc/router.ts`, for its `AppRouter` type. A page's data types are derived from the
 * definitions in `shared/` (the users' `UserListRow` and `UserDetail`), never imported from a server procedure.
 */
const ALLOWED = new Set(['server/trpc/router.ts']);

function clientImportsOfServer(edges: readonly { from: string; to: string }[]): string[] {
  return edges.filter((e) => e.from.startsWith('client/') && e.to.startsWith('server/') && !ALLOWED.has(e.to)).map((e) => `${e.from} → ${e.to}`);
}

describe('client → server imports', () => {
  it('are only of the typed router', () => {
    expect(clientImportsOfServer(importEdges())).toEqual([]);
  });

  it('are found where a page imports a server module', () => {
    const planted = [
      { from: 'client/pages/users-page.tsx', to: 'server/trpc/extras/users.ts' },
      { from: 'client/trpc.ts', to: 'server/trpc/router.ts' },
    ];
    expect(clientImportsOfServer(planted)).toEqual(['client/pages/users-page.tsx → server/trpc/extras/users.ts']);
  });
});
