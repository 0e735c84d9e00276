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
 * on /login and on /bicycles signed in (the session cookies sent as an extra header), with Debian's
 * chromium launched here. Several runs per page; medians with their spread.
 */
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

async function launchChromium(): Promise<{ port: number; version: string; stop(): void }> {
  const profile = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const child = spawn(
    process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage', `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'],
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
    stop() {
      child.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function runLighthouse(db: BenchDb, opts: { runs?: number } = {}): Promise<LighthouseResult> {
  const runs = opts.runs ?? 3;
  const stack = await startStack(db);
  const chromium = await launchChromium();
  try {
    const cookie = await signIn(stack.target);
    // The session cookies go into the browser's cookie jar (Chrome does not send a Cookie header set as
    // an extra header), so Lighthouse is told not to reset storage; the cache is cleared by hand instead.
    const setSession = async (signedIn: boolean) => {
      const browser = await playwright.connectOverCDP(`http://127.0.0.1:${chromium.port}`);
      const context = browser.contexts()[0]!;
      // Every run starts cold, as a first visit would: no cached assets (storage is not reset by Lighthouse here).
      const page = context.pages()[0] ?? (await context.newPage());
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await cdp.detach();
      await context.clearCookies();
      if (signedIn) await context.addCookies(cookie.split('; ').map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1), url: stack.target })));
      await browser.close();
    };
    const pages = [
      { name: '/login', url: `${stack.target}/login`, signedIn: false },
      { name: '/bicycles', url: `${stack.target}/bicycles`, signedIn: true },
    ];
    // A server in use is warm: render each page a few times first, so the first Lighthouse run does not
    // time the process's first render (module loading, JIT) as the document's response time.
    for (const page of pages) {
      for (let i = 0; i < 20; i++) await fetch(page.url, { headers: page.signedIn ? { cookie } : {} }).then((r) => r.arrayBuffer());
    }
    const raw: Record<string, Record<keyof LighthousePage, number[]>> = {};
    let version = '';
    for (let run = 0; run < runs; run++) {
      for (const page of pages) {
        await setSession(page.signedIn);
        const result = await lighthouse(page.url, { port: chromium.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true });
        if (!result) throw new Error(`lighthouse gave no result for ${page.url}`);
        const lhr = result.lhr;
        if (lhr.runtimeError) throw new Error(`lighthouse: ${lhr.runtimeError.message}`);
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
      Object.entries(raw).map(([name, r]) => [name, { score: spread(r.score, 0), lcpMs: spread(r.lcpMs, 0), cls: spread(r.cls, 3), fcpMs: spread(r.fcpMs, 0), tbtMs: spread(r.tbtMs, 0), transferKb: spread(r.transferKb, 0) }]),
    );
    return { lighthouse: version, chromium: chromium.version, runs, pages: pagesOut };
  } finally {
    chromium.stop();
    await stack.stop();
  }
}
