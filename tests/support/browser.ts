import { chromium, type Browser, type Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's chromium, launched with the flags this sandbox needs (no downloads, no phoning home). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export const SCREENSHOT_DIR = join(import.meta.dirname, '..', 'e2e', '__screenshots__');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  // Transitions finished at once: a full-page capture resizes the view for a moment, which would otherwise
  // catch a width transition (the sidebar's) half-way.
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
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
