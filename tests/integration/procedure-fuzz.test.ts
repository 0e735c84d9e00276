import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../server/trpc/router.ts';
import { agent, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Every tRPC procedure gets 1000 generated inputs, as an Admin (so role checks pass and the input
 * reaches validation and the upstream): the answer is never a 5xx, and a 400 always says why.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// Logging out would end the session the fuzzer runs in; it takes no input anyway.
const SKIP = new Set(['auth.logout']);

let stack: Stack;
let cookie = '';
beforeAll(async () => {
  stack = await startStack({ app: { loginLimits: { perIpPerMinute: 1_000_000, perAccountPer15Minutes: 1_000_000 } } });
  const client = agent(stack);
  await signIn(client, 'admin@example.com', DEMO_PASSWORD);
  cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false })).map((c: { name: string; value: string }) => `${c.name}=${c.value}`).join('; ');
});
afterAll(async () => stack?.close());

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation' } }>)
  .filter(([path]) => !SKIP.has(path))
  .map(([path, proc]) => ({ path, type: proc._def.type }));

describe.each(procedures)('$path ($type)', ({ path, type }) => {
  it(`answers ${RUNS} generated inputs without a 5xx`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (input) => {
        const json = JSON.stringify(input);
        const res =
          type === 'query'
            ? await stack.app.inject({ method: 'GET', url: `/trpc/${path}?input=${encodeURIComponent(json)}`, headers: { cookie } })
            : await stack.app.inject({ method: 'POST', url: `/trpc/${path}`, payload: json, headers: { cookie, 'content-type': 'application/json', 'x-backoffice-csrf': '1' } });
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (res.statusCode === 400) {
          const body = res.json() as { error: { message: string; data: { appCode: string | null } } };
          expect(body.error.message.length).toBeGreaterThan(0);
          expect(body.error.message).not.toMatch(/\bat .+:\d+:\d+/);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
