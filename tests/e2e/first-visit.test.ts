import type { Browser, Cookie } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_BUDGETS_KB, firstVisit, type FirstVisit } from '../../bench/first-visit.ts';
import { launchBrowser, signInAs } from '../support/browser.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

/**
 * Issue 38: what a first visit downloads by network idle, the chunks loaded after hydration included (live
 * updates, the offline worker's module, the texts a list leaves out, the map), with the service worker blocked
 * (it would serve scripts from its cache): scripts' headers and compressed bodies as transferred, within the
 * issue's figures, and no asset fetched twice (ADR 062). `npm run bench` reports the same measure.
 */
let stack: Stack;
let browser: Browser;
const cookies: Record<string, Cookie[]> = {};

/** The session cookies of a user signed in through the form, in a context of their own. */
async function sessionOf(email: string): Promise<Cookie[]> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  try {
    await signInAs(await context.newPage(), stack.baseUrl, email, DEMO_PASSWORD);
    return await context.cookies();
  } finally {
    await context.close();
  }
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  cookies.admin = await sessionOf('admin@example.com');
  cookies.buddy = await sessionOf('buddy@example.com');
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const describeVisit = (visit: FirstVisit) => visit.scripts.map((s) => `${s.path} ${s.bodyBytes}+${s.headerBytes} ${s.encoding}`).join('\n');

function expectWithinBudget(visit: FirstVisit) {
  const kb = Math.round((visit.scriptBytes / 1024) * 10) / 10;
  expect(visit.duplicates, 'assets fetched more than once').toEqual([]);
  expect(kb, `${visit.route}: scripts transferred (KB)\n${describeVisit(visit)}`).toBeLessThanOrEqual(WIRE_BUDGETS_KB[visit.route]!);
  // Every script of more than a few hundred bytes arrives compressed (brotli: Chromium offers it on loopback).
  expect(visit.scripts.filter((s) => s.encoding !== 'br' && s.bodyBytes > 256).map((s) => s.path)).toEqual([]);
}

describe('a first visit on the wire (issue 38)', () => {
  it('/login: the public entry alone, within 60 KB', async () => {
    const visit = await firstVisit(browser, `${stack.baseUrl}/login`);
    expectWithinBudget(visit);
    expect(visit.scripts.map((s) => s.path)).toEqual([expect.stringMatching(/^\/static\/entry-public-[\w-]+\.js$/)]);
  });

  it('/bicycles as an Admin: the list, then live updates, the offline worker and the rest of the texts, within 155 KB', async () => {
    const visit = await firstVisit(browser, `${stack.baseUrl}/bicycles`, { cookies: cookies.admin });
    expectWithinBudget(visit);
    // The work after the first load is on the wire too: this is what the budget covers beyond the initial set.
    const paths = visit.scripts.map((s) => s.path).join(' ');
    expect(paths).toMatch(/\/static\/after-load-[\w-]+\.js/);
    expect(paths).toMatch(/\/static\/en-resources-[\w-]+\.js/);
    // The texts of screens that load all theirs first come when one of them opens (ADR 077).
    expect(paths).not.toMatch(/later/);
  });

  it('/today as a buddy: the day, its map and the offline queue, within 200 KB', async () => {
    const visit = await firstVisit(browser, `${stack.baseUrl}/today`, {
      cookies: cookies.buddy,
      // The map loads as it comes near the screen: the budget includes it, so the visit waits for it.
      ready: (page) => page.locator('[data-testid="stops-map"] .leaflet-marker-icon').first().waitFor(),
    });
    expectWithinBudget(visit);
    const paths = visit.scripts.map((s) => s.path).join(' ');
    expect(paths).toMatch(/\/static\/leaflet-map-view-[\w-]+\.js/);
    expect(paths).toMatch(/\/static\/today-offline-[\w-]+\.js/);
  });
});
