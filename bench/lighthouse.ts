import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium as playwright } from 'playwright-core';
import { spread, type Spread } from './support/stats.ts';
import { signIn, startStack, type BenchDb } from './support/stack.ts';

/**
 * 3. Lighthouse (performance category, default mobile preset: simulated Slow 4G and 4× CPU slowdown)
 * on /login, on /bicycles signed in as the demo admin and on /today signed in as the demo buddy (issue
 * 13), with Debian's chromium launched here. Several runs per page; medians with their spread.
 */

/**
 * The buddy's day to measure: today when the demo buddy has a few stops then (a data set generated
 * today: the demo seed gives them five), else their busiest day in the month around it, so every run
 * measures a page with stops and its map rather than an empty day.
 */
export async function busiestDay(target: string, cookie: string): Promise<string | null> {
  const iso = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const input = encodeURIComponent(JSON.stringify({ from: iso(-31), to: iso(31), filters: {} }));
  const res = await fetch(`${target}/trpc/services.calendar?input=${input}`, { headers: { cookie } });
  const results = ((await res.json()) as { result?: { data?: { results?: { service_date: string }[] } } }).result?.data?.results ?? [];
  const perDay = new Map<string, number>();
  for (const s of results) perDay.set(s.service_date, (perDay.get(s.service_date) ?? 0) + 1);
  if ((perDay.get(iso(0)) ?? 0) >= 3) return null;
  const [day] = [...perDay.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  return day ?? null;
}
export interface LighthousePage {
  score: Spread;
  lcpMs: Spread;
  cls: Spread;
  fcpMs: Spread;
  tbtMs: Spread;
  transferKb: Spread;
}
export interface LighthouseResult {
  lighthouse: string;
  chromium: string;
  runs: number;
  pages: Record<string, LighthousePage>;
}

async function launchChromium(): Promise<{ port: number; version: string; stop(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const child = spawn(
    process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`chromium exited ${code}: ${err.slice(-500)}`)));
  });
  const version = (await (await fetch(`http://127.0.0.1:${port}/json/version`)).json()) as { Browser: string };
  return {
    port,
    version: version.Browser,
    async stop() {
      // Wait for the process to be gone before removing its profile: chromium still writes to it while dying.
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

export async function runLighthouse(db: BenchDb, opts: { runs?: number } = {}): Promise<LighthouseResult> {
  const runs = opts.runs ?? 3;
  const stack = await startStack(db);
  const chromium = await launchChromium();
  try {
    const cookies = { admin: await signIn(stack.target), buddy: await signIn(stack.target, 'buddy@example.com') };
    const day = await busiestDay(stack.target, cookies.buddy);
    // The session cookies go into the browser's cookie jar (Chrome does not send a Cookie header set as
    // an extra header), so Lighthouse is told not to reset storage; the cache is cleared by hand instead.
    const setSession = async (cookie: string | null) => {
      const browser = await playwright.connectOverCDP(`http://127.0.0.1:${chromium.port}`);
      const context = browser.contexts()[0]!;
      // Every run starts cold, as a first visit would: no cached assets, no service worker or its caches from
      // the run before (what Lighthouse's own storage reset clears, but the cookies).
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await cdp.send('Storage.clearDataForOrigin', { origin: stack.target, storageTypes: 'service_workers,cache_storage,local_storage,indexeddb' });
      await cdp.detach();
      await context.clearCookies();
      if (cookie)
        await context.addCookies(cookie.split('; ').map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1), url: stack.target })));
      await browser.close();
    };
    const pages = [
      { name: '/login', url: `${stack.target}/login`, cookie: null },
      { name: '/bicycles', url: `${stack.target}/bicycles`, cookie: cookies.admin },
      { name: '/today', url: `${stack.target}/today${day ? `?date=${day}` : ''}`, cookie: cookies.buddy },
    ];
    // A server in use is warm: render each page a few times first, so the first Lighthouse run does not
    // time the process's first render (module loading, JIT) as the document's response time.
    for (const page of pages) {
      for (let i = 0; i < 20; i++) await fetch(page.url, { headers: page.cookie ? { cookie: page.cookie } : {} }).then((r) => r.arrayBuffer());
    }
    const raw: Record<string, Record<keyof LighthousePage, number[]>> = {};
    let version = '';
    for (let run = 0; run < runs; run++) {
      for (const page of pages) {
        // A trace that failed to record (NO_NAVSTART and the like, seen on a loaded machine) is run
        // again once, as Lighthouse itself advises; a second failure stops the benchmark.
        const measure = async () => {
          await setSession(page.cookie);
          const result = await lighthouse(page.url, { port: chromium.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true });
          if (!result) throw new Error(`lighthouse gave no result for ${page.url}`);
          return result.lhr;
        };
        let lhr = await measure();
        if (lhr.runtimeError) lhr = await measure();
        if (lhr.runtimeError) throw new Error(`lighthouse on ${page.name}: ${lhr.runtimeError.message}`);
        if (new URL(lhr.finalDisplayedUrl).pathname !== page.name) throw new Error(`${page.name} ended on ${lhr.finalDisplayedUrl}`);
        version = lhr.lighthouseVersion;
        const audit = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
        const r = (raw[page.name] ??= { score: [], lcpMs: [], cls: [], fcpMs: [], tbtMs: [], transferKb: [] });
        r.score.push(Math.round((lhr.categories.performance?.score ?? 0) * 100));
        r.lcpMs.push(audit('largest-contentful-paint'));
        r.cls.push(audit('cumulative-layout-shift'));
        r.fcpMs.push(audit('first-contentful-paint'));
        r.tbtMs.push(audit('total-blocking-time'));
        r.transferKb.push(audit('total-byte-weight') / 1024);
      }
    }
    const pagesOut = Object.fromEntries(
      Object.entries(raw).map(([name, r]) => [
        name,
        { score: spread(r.score, 0), lcpMs: spread(r.lcpMs, 0), cls: spread(r.cls, 3), fcpMs: spread(r.fcpMs, 0), tbtMs: spread(r.tbtMs, 0), transferKb: spread(r.transferKb, 0) },
      ]),
    );
    return { lighthouse: version, chromium: chromium.version, runs, pages: pagesOut };
  } finally {
    await chromium.stop();
    await stack.stop();
  }
}
