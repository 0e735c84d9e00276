import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Debian's chromium, launched with the flags this sandbox needs (no downloads, no phoning home).
 *
 * Its contexts and pages block service workers unless `serviceWorkers: 'allow'` is given here (or to the one
 * context): a signed-in page registers ours (ADR 042), which downloads the page's every asset a second time into its
 * cache, and every test context starts cold. The files that test what the worker does (the offline Today page, what
 * sign-out deletes) and the sweep over every page allow it (ADR 077).
 */
export async function launchBrowser(options: { serviceWorkers?: 'allow' | 'block' } = {}): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const serviceWorkers = options.serviceWorkers ?? 'block';
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = (contextOptions = {}) => newContext({ serviceWorkers, ...contextOptions });
  browser.newPage = (pageOptions = {}) => newPage({ serviceWorkers, ...pageOptions });
  return browser;
}

export const SCREENSHOT_DIR = join(import.meta.dirname, '..', 'e2e', '__screenshots__');

/**
 * Screenshots for a person to look at (the README: look at what you built) are taken on a developer's machine and
 * with `SCREENSHOTS=1`; CI (`CI` set) skips them, as nobody opens them there and a full-page capture of a phone page
 * costs a second of CPU. A failure's screenshot (a name ending in `-FAILED`) is always taken.
 */
export function screenshotsWanted(name = ''): boolean {
  return name.endsWith('-FAILED') || process.env.SCREENSHOTS === '1' || !process.env.CI;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  if (!screenshotsWanted(name)) return path;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Transitions finished at once: a full-page capture resizes the view for a moment, which would otherwise
  // catch a width transition (the sidebar's) half-way.
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

/** A screenshot of the visible part of a page, or of one element, under the same rule as `screenshot`. */
export async function screenshotOf(target: Pick<Page, 'screenshot'> | Pick<Locator, 'screenshot'>, name: string): Promise<void> {
  if (!screenshotsWanted(name)) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await target.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled' });
}

/**
 * Waits until the page is interactive, so typing and clicking reach its script rather than the bare HTML:
 * the app's pages once React has hydrated them (`data-hydrated`), the public pages (sign-in, password
 * flows; ADR 024) once their small script has enhanced them (`data-enhanced`).
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector('html[data-hydrated="true"], html[data-enhanced="true"]', { state: 'attached' });
}

export async function gotoHydrated(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await hydrated(page);
}

/** Signs in through the login form, as a person would, and waits for the landing page to be interactive. */
export async function signInAs(page: Page, baseUrl: string, email: string, password: string, landing = '/'): Promise<void> {
  await gotoHydrated(page, `${baseUrl}/login${landing === '/' ? '' : `?redirect=${encodeURIComponent(landing)}`}`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(baseUrl + landing);
  // The app is a page load away from sign-in (ADR 024): wait for React, as gotoHydrated does.
  await hydrated(page);
}
