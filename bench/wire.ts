import type { Cookie } from 'playwright-core';
import { launchBrowser } from '../tests/support/browser.ts';
import { WIRE_TARGETS_KB, firstVisit, type FirstVisit } from './first-visit.ts';
import { busiestDay } from './lighthouse.ts';
import { signIn, startStack, type BenchDb } from './support/stack.ts';
import { spread, type Spread } from './support/stats.ts';

/**
 * 9. What a first visit transfers (issue 38, ADR 062): /login, /bicycles as the demo Admin and /today as the demo
 * buddy (their busiest day, map included) in a fresh browser context with the service worker blocked, until the
 * network is idle: scripts' response headers and compressed bodies as transferred, and any asset fetched twice.
 * The e2e test tests/e2e/first-visit.test.ts holds the same budgets.
 */
export interface WirePage {
  kb: Spread;
  bodyKb: Spread;
  scripts: number;
  encodings: string[];
  duplicates: string[];
  budgetKb: number;
}

const asCookies = (header: string, url: string): Cookie[] =>
  header.split('; ').map((pair) => ({ name: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1), url }) as unknown as Cookie);

export async function runWire(db: BenchDb, opts: { runs?: number } = {}): Promise<{ runs: number; pages: Record<string, WirePage> }> {
  const runs = opts.runs ?? 3;
  const stack = await startStack(db);
  const browser = await launchBrowser();
  try {
    const admin = asCookies(await signIn(stack.target), stack.target);
    const buddyHeader = await signIn(stack.target, 'buddy@example.com');
    const day = await busiestDay(stack.target, buddyHeader);
    const pages = [
      { name: '/login', url: `${stack.target}/login` },
      { name: '/bicycles', url: `${stack.target}/bicycles`, cookies: admin },
      {
        name: '/today',
        url: `${stack.target}/today${day ? `?date=${day}` : ''}`,
        cookies: asCookies(buddyHeader, stack.target),
        ready: (page: import('playwright-core').Page) => page.locator('[data-testid="stops-map"] .leaflet-marker-icon').first().waitFor(),
      },
    ];
    const out: Record<string, WirePage> = {};
    for (const page of pages) {
      const visits: FirstVisit[] = [];
      for (let run = 0; run < runs; run++) visits.push(await firstVisit(browser, page.url, page));
      out[page.name] = {
        kb: spread(
          visits.map((v) => v.scriptBytes / 1024),
          1,
        ),
        bodyKb: spread(
          visits.map((v) => v.scriptBodyBytes / 1024),
          1,
        ),
        scripts: visits[0]!.scripts.length,
        encodings: [...new Set(visits.flatMap((v) => v.encodings))],
        duplicates: [...new Set(visits.flatMap((v) => v.duplicates))],
        budgetKb: WIRE_TARGETS_KB[page.name]!,
      };
    }
    return { runs, pages: out };
  } finally {
    await browser.close();
    await stack.stop();
  }
}
