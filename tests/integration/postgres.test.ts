import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES } from '../../shared/entities/registry.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { readOnlyRoundTrip, writableRoundTrip } from '../support/entity-round-trip.ts';
import { agent, query, signIn } from '../support/http.ts';
import { daysFromToday } from '../support/entity-samples.ts';
import type { DispatchBoard } from '../../shared/schemas/dispatch.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * The same stack on a PostgreSQL server instead of PGlite. `.ci/run` starts one and sets
 * TEST_DATABASE_URL (an admin connection); each run gets a database of its own.
 */
const adminUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!adminUrl)('on a PostgreSQL server', () => {
  const name = `bo_test_${process.pid}_${Date.now()}`;
  let stack: Stack;
  let admin: pg.Client;

  beforeAll(async () => {
    let url: string;
    ({ admin, url } = await createTestDatabase(adminUrl!, name));
    stack = await startStack({ databaseUrl: url });
  });
  afterAll(async () => {
    await stack?.close();
    await admin?.query(`drop database if exists ${name}`);
    await admin?.end();
  });

  it('migrates, seeds, signs in and serves every entity with conflict checks', async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    for (const def of ENTITIES as readonly EntityDef[]) {
      // Update-only entities (users) are read here; their writes are in users-and-bicycles.test.ts.
      if (def.readOnly || def.updateOnly) await readOnlyRoundTrip(client, def);
      else await writableRoundTrip(client, def);
    }
  });

  it("reads the dispatch board (a repeatable-read snapshot) and a bicycle's history", async () => {
    const client = agent(stack);
    await signIn(client, 'admin@example.com', DEMO_PASSWORD);
    const board = await query(client, 'dispatch.board', { date: daysFromToday(0) });
    expect(board.status, board.text).toBe(200);
    const day = board.body.result.data as DispatchBoard;
    expect(day.buddies.length).toBeGreaterThan(0);
    expect(day.services.filter((s) => s.status === 1).length).toBeGreaterThanOrEqual(3);
    const history = await query(client, 'bicycles.history.list', { id: 1 });
    expect(history.status, history.text).toBe(200);
    expect(history.body.result.data.paginator).toMatchObject({ page: 1, page_size: 10 });
  });

  it('answers the same pair to two refreshes of one token (grace window) with real concurrency', async () => {
    const login = await (
      await fetch(stack.upstream.url + 'account/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'buddy@example.com', password: DEMO_PASSWORD }),
      })
    ).json();
    const refresh = () =>
      fetch(stack.upstream.url + 'account/refresh-token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: login.data.refresh_token }),
      }).then((r) => r.json());
    const answers = await Promise.all(Array.from({ length: 6 }, refresh));
    for (const answer of answers) expect(answer.data).toEqual(answers[0].data);
  });
});
