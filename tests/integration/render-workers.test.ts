import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRenderJob } from '../../shared/ssr-contract.ts';
import { createRenderPool, RenderUnavailableError } from '../../server/ssr/render-pool.ts';
import request from 'supertest';
import { agent, setCookies, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, TEST_RENDER_TIMEOUT_MS, startStack, type Stack } from '../support/stack.ts';

/**
 * ADR 027: pages rendered by a worker thread are the pages the main thread renders, and a worker that
 * dies is replaced. Two back offices on one API: one rendering in its main thread, one with a worker.
 */
const root = join(import.meta.dirname, '..', '..');
const ssr = (renderWorkers: number) => ({
  kind: 'production' as const,
  clientDir: join(root, 'dist', 'client'),
  entryServerPath: join(root, 'dist', 'server', 'entry-server.js'),
  renderWorkers,
  renderTimeoutMs: TEST_RENDER_TIMEOUT_MS,
});

/** Tests only: a worker module whose renders loop, hog memory or answer at once (ADR 029). */
const testWorkerModule = join(root, 'tests', 'support', 'test-render-worker.ts');

let inThread: Stack;
let pooled: Stack;
let looping: Stack;
beforeAll(async () => {
  inThread = await startStack({ app: { ssr: ssr(0) } });
  pooled = await startStack({ upstream: inThread.upstream, app: { ssr: ssr(1) } });
  looping = await startStack({ upstream: inThread.upstream, app: { ssr: { ...ssr(1), renderTimeoutMs: 500, testWorkerModule } } });
  // Three back offices and a seeded API: more than the default minute on a shared, busy machine.
}, 180_000);
afterAll(async () => {
  await looping?.close();
  await pooled?.close();
  await inThread?.close();
});

/** A page without what differs between two renders of it: nonces and the times its data was fetched. */
const comparable = (html: string) =>
  html
    .replace(/nonce="[^"]+"/g, 'nonce=""')
    .replace(/'nonce-[^']+'/g, "'nonce-'")
    .replace(/\(document,"[^"]+"\)/g, '(document,"")')
    // Times the data was fetched and dehydrated (13-digit epoch milliseconds).
    .replace(/\b\d{13}\b/g, '0');

async function signedIn(stack: Stack, email: string): Promise<Agent> {
  const client = agent(stack);
  await signIn(client, email, DEMO_PASSWORD);
  return client;
}

describe('render workers (ADR 027)', () => {
  it('render the same pages as the main thread: lists, detail pages, calendars, Today, the dashboard, in Swedish, and 404s', async () => {
    const pages = [
      '/',
      '/bicycles',
      '/bicycles/1',
      '/services?ordering=-service_date',
      '/services/calendar?view=month',
      '/users?tab=subscriptions',
      '/today',
      '/dispatch',
      '/no-such-page',
      '/login',
    ];
    for (const [email, lang] of [
      ['admin@example.com', 'en'],
      ['buddy@example.com', 'sv'],
    ] as const) {
      const [a, b] = [await signedIn(inThread, email), await signedIn(pooled, email)];
      for (const path of pages) {
        const [mine, theirs] = await Promise.all([a.get(path).set('cookie', `lang=${lang}`), b.get(path).set('cookie', `lang=${lang}`)]);
        expect(theirs.status, `${email} ${path}`).toBe(mine.status);
        expect(comparable(theirs.text), `${email} ${path}`).toBe(comparable(mine.text));
      }
    }
    // 40 pages from two back offices: over the default 30 s on a busy shared machine (29 s seen).
  }, 90_000);

  it('carry a failed query’s error to the page as the main thread does', async () => {
    const [a, b] = [await signedIn(inThread, 'admin@example.com'), await signedIn(pooled, 'admin@example.com')];
    // A record that does not exist: its query fails on the server and the page shows the API's answer.
    const [mine, theirs] = await Promise.all([a.get('/bicycles/999999'), b.get('/bicycles/999999')]);
    expect(theirs.status).toBe(mine.status);
    expect(comparable(theirs.text)).toBe(comparable(mine.text));
    expect(theirs.text).toMatch(/"error":\{[^}]*"appCode":"not_found"/);
    expect(theirs.text).toContain('This record does not exist or has been deleted.');
  });

  it('render a route the same the first time a worker shows it (the stream waits for its code) and after (one string)', async () => {
    // No other test opens this route, so this worker has not loaded its page's code: the first render suspends
    // on it and must come from React's stream, which waits; the next ones from the string renderer (ADR 054).
    const client = await signedIn(pooled, 'admin@example.com');
    const first = await client.get('/companies');
    const again = await client.get('/companies');
    expect([first.status, again.status]).toEqual([200, 200]);
    for (const page of [first.text, again.text]) {
      expect(page).toContain('data-testid="list-table"');
      // A boundary left for the browser to render (what the string renderer makes of code still loading).
      expect(page).not.toContain('<!--$!-->');
    }
    expect(comparable(again.text)).toBe(comparable(first.text));
  });

  it('serve many pages at once', async () => {
    const client = await signedIn(pooled, 'admin@example.com');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.get(i % 2 ? '/bicycles' : '/services')));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(answers.every((r) => r.text.includes('data-testid="list-table"'))).toBe(true);
  });
});

/** A render job of a signed-in page in English, as the server hands one to a worker. */
const job = (url: string): AppRenderJob => ({
  url,
  lang: 'en',
  nonce: 'n0',
  config: { googleClientId: null, version: 'test', map: { centre: { lat: 59.33, lng: 18.06 }, radiusMetres: 3700, tileUrl: null, tileAttribution: '', geocoding: false } },
  dehydrated: { mutations: [], queries: [] },
  prefetchMs: 0,
});

describe('the render pool', () => {
  it('fails the jobs of a worker that stops, starts another, and renders on it', async () => {
    const pool = createRenderPool(ssr(1).entryServerPath, 1, pino({ level: 'silent' }));
    try {
      expect((await pool.render(job('/languages'))).title).toMatch(/^Languages · /);
      const first = pool.threads()[0]!;
      const lost = pool.render(job('/languages'));
      await first.terminate();
      await expect(lost).rejects.toThrow(/render worker exited/);
      await expect.poll(() => pool.threads()[0] !== first).toBe(true);
      expect((await pool.render(job('/competencies'))).title).toMatch(/^Competencies · /);
    } finally {
      await pool.close();
    }
  });
});

describe("a render worker's young generation (ADR 053)", () => {
  it('is sized by the pool: each MB of semi-space adds three to the heap limit (two semi-spaces and the large-object new space)', async () => {
    const limitMb = async (semiSpaceMb: number) => {
      const pool = createRenderPool(ssr(1).entryServerPath, 1, pino({ level: 'silent' }), { semiSpaceMb });
      try {
        await pool.render(job('/languages'));
        return (await pool.threads()[0]!.getHeapStatistics()).heap_size_limit / 1048576;
      } finally {
        await pool.close();
      }
    };
    const small = await limitMb(4);
    const large = await limitMb(16);
    expect(large - small).toBeCloseTo(3 * 12, 0);
  });
});

describe('render limits (ADR 029)', () => {
  const log = pino({ level: 'silent' });

  it('give up on a render that loops: its jobs fail, the worker is replaced and the next job renders', async () => {
    const pool = createRenderPool(testWorkerModule, 1, log, { timeoutMs: 300 });
    try {
      expect((await pool.render(job('/ok'))).html).toContain('/ok');
      const first = pool.threads()[0]!;
      const stuck = pool.render(job('/loop'));
      const behind = pool.render(job('/queued-behind-the-loop'));
      await expect(stuck).rejects.toBeInstanceOf(RenderUnavailableError);
      await expect(behind).rejects.toMatchObject({ reason: 'timeout' });
      expect(pool.threads()[0]).not.toBe(first);
      expect((await pool.render(job('/after'))).html).toContain('/after');
    } finally {
      await pool.close();
    }
  });

  it('do not cut off a worker that keeps answering a queue longer than the timeout', async () => {
    const pool = createRenderPool(testWorkerModule, 1, log, { timeoutMs: 400 });
    try {
      // 16 renders of 50 ms each: 800 ms of work queued on one worker, every answer within the timeout.
      const outputs = await Promise.all(Array.from({ length: 16 }, (_, i) => pool.render(job(`/slow/${i}`))));
      expect(outputs.map((o) => o.status)).toEqual(Array(16).fill(200));
    } finally {
      await pool.close();
    }
  });

  it('replace a worker that outgrows its heap limit', async () => {
    const pool = createRenderPool(testWorkerModule, 1, log, { timeoutMs: 0, resourceLimits: { maxOldGenerationSizeMb: 32 } });
    try {
      const first = pool.threads()[0]!;
      await expect(pool.render(job('/hog'))).rejects.toMatchObject({ reason: 'memory' });
      expect(pool.threads()[0]).not.toBe(first);
      expect((await pool.render(job('/after'))).html).toContain('/after');
    } finally {
      await pool.close();
    }
  });

  it('answer a page whose render loops with 503, Retry-After and a message in the reader’s language, then serve again', async () => {
    const client = await signedIn(looping, 'admin@example.com');
    const stuck = await client.get('/bicycles?loop=1');
    expect(stuck.status).toBe(503);
    expect(stuck.headers['retry-after']).toBe('5');
    expect(stuck.headers['content-type']).toMatch(/^text\/html/);
    expect(stuck.text).toContain('The server could not prepare this page in time.');
    // The agent keeps the language cookie of the sign-in; a request of its own reads in Swedish.
    const login = await signIn(agent(looping), 'admin@example.com', DEMO_PASSWORD);
    const session = setCookies(login)
      .map((c) => c.split(';')[0]!)
      .filter((c) => !c.startsWith('lang='));
    const swedish = await request(looping.baseUrl)
      .get('/bicycles?loop=2')
      .set('cookie', [...session, 'lang=sv'].join('; '));
    expect(swedish.status).toBe(503);
    expect(swedish.text).toContain('Servern kunde inte ta fram sidan i tid.');
    const after = await client.get('/bicycles');
    expect(after.status).toBe(200);
    expect(after.text).toContain('data-testid="test-render"');
  });
});
