import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../server/trpc/router.ts';
import { agent, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Every tRPC procedure gets 100 generated inputs (`FUZZ_RUNS` for more), as an Admin (so role checks pass and the input
 * reaches validation and the upstream): the answer is never a 5xx, and a 400 always says why. Most
 * Half the inputs carry the procedure's own keys with plausible and implausible values, half are any JSON.
 */
// 100 per procedure (fast-check's default): ~22 000 requests, about 80 s of one core. 500 (~107 000 requests) took 220 s of a run that must
// stay under 20 minutes on two cores (ADR 077); fast-check's seed changes every run, so the runs add up across CI runs,
// and `FUZZ_RUNS=2000 npx vitest run tests/integration/procedure-fuzz.test.ts` goes deeper before a release.
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
// Logging out would end the session the fuzzer runs in; it takes no input anyway. A second-factor policy naming
// Admin would confine the fuzzer's own next token to enrolling (ADR 068): every later procedure would answer 403.
const SKIP = new Set(['auth.logout', 'security.setPolicy']);

let stack: Stack;
let cookie = '';
beforeAll(async () => {
  // Tens of thousands of requests: this stack logs warnings and errors only (info would be hundreds of MB of request lines).
  // What is tested is each procedure's answer to its input, not load (a test stack never sheds load, as PGlite's
  // queries over the history the fuzz itself wrote hold this process's event loop for seconds).
  stack = await startStack({
    quietLogs: true,
    app: { loginLimits: { perIpPerMinute: 1_000_000, perAccountPer15Minutes: 1_000_000 } },
  });
  const client = agent(stack);
  await signIn(client, 'admin@example.com', DEMO_PASSWORD);
  cookie = (await client.jar.getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false }))
    .map((c: { name: string; value: string }) => `${c.name}=${c.value}`)
    .join('; ');
});
afterAll(async () => stack?.close());

type ZodLike = { _zod: { def: { type: string; shape?: Record<string, ZodLike>; innerType?: ZodLike; in?: ZodLike; out?: ZodLike; element?: ZodLike } } };

/** Through optional / default / nullable / preprocess wrappers to the schema that has a shape. */
function unwrap(schema: ZodLike): ZodLike {
  for (let i = 0; i < 10; i++) {
    const def = schema._zod.def;
    if (def.type === 'pipe') schema = (def.in?._zod.def.type === 'transform' ? def.out : def.in)!;
    else if (def.innerType) schema = def.innerType;
    else break;
  }
  return schema;
}

// Values a form could send and values it should not. Ids are high so the fuzz cannot delete or
// rewrite the records the session itself depends on (the Admin's own roles, say).
const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    'x@example.com',
    'not-an-email',
    '2026-05-01',
    '2026-13-45',
    '08:00',
    '25:61',
    'https://example.com/a.png',
    'javascript:alert(1)',
    '<script>',
    'one_off',
    'true',
  ),
  // Issue 12 L2: what PostgreSQL cannot store or compare (NUL, year 0000, beyond int4/int8, beyond numeric(12,2)).
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '0000-01-01',
    '0000-01-01T00:00:00Z',
    '2201-01-01',
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 63,
    1e10,
    1e300,
    'data:image/png;base64,AAAA',
    'http://evil.example/x.png',
  ),
  fc.integer({ min: 1000, max: 2 ** 31 }),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
);

/** Inputs with the procedure's own keys (some missing), so generated cases reach field validation and the upstream. */
function shaped(schema: ZodLike | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 3) return value;
  const inner = unwrap(schema);
  const shape = inner._zod.def.shape;
  if (inner._zod.def.type === 'object' && shape) {
    return fc.record(Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, shaped(field, depth + 1)])), { requiredKeys: [] });
  }
  if (inner._zod.def.type === 'array' && inner._zod.def.element) return fc.array(shaped(inner._zod.def.element, depth + 1), { maxLength: 4 });
  return value;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: 'query' | 'mutation'; inputs: ZodLike[] } }>)
  .filter(([path]) => !SKIP.has(path))
  .map(([path, proc]) => ({ path, type: proc._def.type, input: fc.oneof(shaped(proc._def.inputs[0]), fc.jsonValue({ maxDepth: 3 })) }));

describe.each(procedures)('$path ($type)', ({ path, type, input: inputs }) => {
  it(`answers ${RUNS} generated inputs without a 5xx`, async () => {
    await fc.assert(
      fc.asyncProperty(inputs, async (input) => {
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
