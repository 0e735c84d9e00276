import { expect } from 'vitest';
import type { EntityDef } from '../../shared/entity/define.ts';
import { routerKey } from '../../client/entity/entity-api.ts';
import { firstTextField, sampleInput } from './entity-samples.ts';
import { mutate, query, type Agent } from './http.ts';

/**
 * What every writable entity must do through the back office and the upstream, on either database:
 * create → the search finds it → update → a stale update is 409 and changes nothing → delete → gone.
 */
export async function writableRoundTrip(client: Agent, def: EntityDef): Promise<void> {
  const key = routerKey(def);
  const input = sampleInput(def, `t${Date.now().toString(36)}`);
  const created = await mutate(client, `${key}.create`, input);
  expect(created.status, `${def.name}: ${created.text}`).toBe(200);
  const record = created.body.result.data;
  expect(record).toMatchObject({ id: expect.any(Number), version: 1 });

  const text = firstTextField(def);
  const listed = await query(client, `${key}.list`, { search: String(input[text]), page_size: 10 });
  expect(listed.status, `${def.name}: ${listed.text}`).toBe(200);
  expect(listed.body.result.data.results.map((r: { id: number }) => r.id)).toContain(record.id);
  expect(listed.body.result.data.paginator).toMatchObject({ page: 1, page_size: 10 });

  const max = def.fields[text]!.max ?? 255;
  const changed = { ...input, [text]: `${String(input[text]).slice(0, Math.max(1, Math.min(30, max - 4)))}-ed` };
  const updated = await mutate(client, `${key}.update`, { id: record.id, version: 1, data: changed });
  expect(updated.status, `${def.name}: ${updated.text}`).toBe(200);
  expect(updated.body.result.data).toMatchObject({ version: 2, [text]: changed[text] });

  const stale = await mutate(client, `${key}.update`, { id: record.id, version: 1, data: input });
  expect(stale.status).toBe(409);
  expect(stale.body.error.data.appCode).toBe('conflict');
  const unchanged = await query(client, `${key}.get`, { id: record.id });
  expect(unchanged.body.result.data[text]).toBe(changed[text]);

  expect((await mutate(client, `${key}.delete`, { id: record.id })).status).toBe(200);
  expect((await query(client, `${key}.get`, { id: record.id })).status).toBe(404);
}

/** A read-only entity lists and reads its seeded records, and the back office offers no writes. */
export async function readOnlyRoundTrip(client: Agent, def: EntityDef): Promise<{ id: number }> {
  const key = routerKey(def);
  const listed = await query(client, `${key}.list`, { page_size: 10 });
  expect(listed.status, `${def.name}: ${listed.text}`).toBe(200);
  const first = listed.body.result.data.results[0];
  expect(first, `${def.name} has seeded records`).toMatchObject({ id: expect.any(Number), version: expect.any(Number) });
  const one = await query(client, `${key}.get`, { id: first.id });
  expect(one.body.result.data).toMatchObject({ id: first.id });
  // An update-only entity (users) keeps its update; the others it lacks like a read-only one.
  const absent = def.updateOnly ? ['create', 'delete'] : ['create', 'update', 'delete'];
  for (const proc of absent) expect((await mutate(client, `${key}.${proc}`, { id: first.id })).status).toBe(404);
  return first;
}
