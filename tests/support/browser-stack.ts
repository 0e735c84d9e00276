import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { gotoHydrated, launchBrowser, signInAs } from './browser.ts';
import { DEMO_PASSWORD, linkPath, startStack, type Stack } from './stack.ts';

/**
 * A browser test file's stack and browser, started together; with `signedIn`, also a page (in a context of
 * `context`'s options) signed in as that demo account through the login form.
 */
export async function startBrowserStack(options: { signedIn?: string; context?: BrowserContextOptions } = {}): Promise<{ stack: Stack; browser: Browser; page: Page }> {
  const [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  let page!: Page;
  if (options.signedIn) {
    page = await (await browser.newContext(options.context)).newPage();
    await signInAs(page, stack.baseUrl, options.signedIn, DEMO_PASSWORD);
  }
  return { stack, browser, page };
}

/** Closes what startBrowserStack started (either may be missing when starting failed). */
export async function closeBrowserStack(browser: Browser | undefined, stack: Stack | undefined): Promise<void> {
  await browser?.close();
  await stack?.close();
}

/** Follows a mailed invitation link on `page` and activates the account with `password`. */
export async function activateAccount(page: Page, stack: Stack, link: string, password: string): Promise<void> {
  await gotoHydrated(page, stack.baseUrl + linkPath(link));
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Activate account' }).click();
  await page.getByTestId('password-done').waitFor();
}
