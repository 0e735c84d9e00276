import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { gotoHydrated, launchBrowser, signInAs } from '../support/browser.ts';
import { NARROW_PHONE, PHONE, phoneContext } from '../support/phone.ts';
import { DEMO_PASSWORD, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});
const shot = (page: Page, name: string) => page.screenshot({ path: `/tmp/layout/${name}.png`, fullPage: true, animations: 'disabled' });

it('looks', async () => {
  const phone = await phoneContext(browser, PHONE);
  const p = await phone.newPage();
  await signInAs(p, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  let t = Date.now();
  await gotoHydrated(p, stack.baseUrl + '/users?tab=subscriptions');
  console.log('goto', Date.now() - t); t = Date.now();
  await p.waitForLoadState('networkidle');
  console.log('idle', Date.now() - t); t = Date.now();
  await shot(p, 'subs-phone-390');
  console.log('shot', Date.now() - t); t = Date.now();
  await p.setViewportSize(NARROW_PHONE);
  await shot(p, 'subs-phone-360');
  const desk = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const d = await desk.newPage();
  await signInAs(d, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
  await desk.addCookies([{ name: 'lang', value: 'sv', url: stack.baseUrl }]);
  for (const url of ['/users?tab=subscriptions', '/event-bookings', '/users']) {
    await gotoHydrated(d, stack.baseUrl + url);
    await d.waitForLoadState('networkidle');
    console.log(url, await d.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]));
    await d.screenshot({ path: `/tmp/layout/sv-1440${url.replace(/[/?=]+/g, '-')}.png`, animations: 'disabled' });
  }
  await desk.clearCookies({ name: 'lang' });
  await desk.addCookies([{ name: 'lang', value: 'en', url: stack.baseUrl }]);
  await gotoHydrated(d, stack.baseUrl + '/users');
  await d.screenshot({ path: `/tmp/layout/en-1440-users.png`, animations: 'disabled' });
  // client-side nav timing
  t = Date.now();
  await d.evaluate(() => { history.pushState(null, '', '/bicycles'); dispatchEvent(new PopStateEvent('popstate')); });
  await d.waitForSelector('[data-testid=list-table] tbody tr');
  console.log('client nav', Date.now() - t);
}, 120_000);
