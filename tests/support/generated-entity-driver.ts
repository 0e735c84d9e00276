import { gotoHydrated } from './browser.ts';
import { closeBrowserStack, startBrowserStack } from './browser-stack.ts';
import { DEMO_PASSWORD } from './stack.ts';
import { agent, mutate, query, signIn } from './http.ts';

/**
 * Run by tests/e2e/generated-entity.test.ts inside a copy of the repository where `npm run new:entity` has
 * added "lockers" (with a record page and two declared `sets` actions, open and close) and the build has been
 * made: drives the new entity's list, create, edit, actions and delete in a browser as an Admin would, and prints
 * what it saw as JSON (the test asserts on it).
 */
const { stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com' });
const seen: Record<string, unknown> = {};
try {
  const rows = () => page.getByTestId('list-table').locator('tbody tr td:first-child').allInnerTexts();
  const toast = (text: string) => page.getByTestId('toasts').getByText(text).waitFor();
  const actionButtons = (scope: ReturnType<typeof page.locator>) => scope.locator('[data-testid="open"], [data-testid="close"]').allInnerTexts();
  const api = agent(stack);
  await signIn(api, 'admin@example.com', DEMO_PASSWORD);
  const stored = async () => (await query(api, 'lockers.list', { page: 1, page_size: 25, filters: {} })).body.result.data.results as Record<string, unknown>[];

  await page.getByRole('link', { name: 'Lockers' }).first().click();
  await page.waitForURL(`${stack.baseUrl}/lockers`);
  await page.getByRole('heading', { level: 1, name: 'Lockers' }).waitFor();
  seen.heading = await page.getByRole('heading', { level: 1 }).innerText();

  // Created on its record page, which then shows the record's declared actions.
  await page.getByTestId('list-new').click();
  await page.waitForURL(`${stack.baseUrl}/lockers/new`);
  await page.getByTestId('form-save').click();
  await page.getByText('This field is required').first().waitFor();
  await page.getByLabel('Name').fill('Spokes & Co');
  await page.getByLabel('Address').fill('Sveavägen 1');
  await page.getByTestId('form-save').click();
  await toast('Spokes & Co has been created.');
  await page.waitForURL(/\/lockers\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  seen.afterCreate = (await stored()).map((r) => r.name);
  await page.getByTestId('open').waitFor();
  seen.pageButtons = await actionButtons(page.locator('body'));
  await page.getByTestId('open').click();
  await toast('Spokes & Co is open.');
  seen.afterOpen = (await stored()).find((r) => r.id === id);

  await page.getByLabel('Name').fill('Spokes and Sons');
  await page.getByTestId('form-save').click();
  await toast('Spokes and Sons has been saved.');

  await gotoHydrated(page, `${stack.baseUrl}/lockers`);
  seen.afterEdit = await rows();
  const row = page.getByTestId(`row-${id}`);
  await row.getByTestId('close').waitFor();
  seen.rowButtons = await actionButtons(row);
  await row.getByTestId('close').click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await toast('Spokes and Sons is closed.');
  seen.afterClose = (await stored()).find((r) => r.id === id);
  const { rows: entries } = await stack.upstream.db.query<{ action: string }>(
    "select action from audit_log where entity = 'lockers' and record_id = $1 and action <> 'update' order by id desc",
    [id],
  );
  seen.history = entries.map((e) => e.action);

  // Opened again for the stored check, then deleted from its row.
  await mutate(api, 'lockers.open', { id, version: (seen.afterClose as { version: number }).version });
  seen.stored = (await stored()).map((r) => ({ name: r.name, address: r.address, active: r.active }));

  await gotoHydrated(page, `${stack.baseUrl}/lockers`);
  await page.getByRole('button', { name: 'Delete Spokes and Sons' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await toast('Spokes and Sons has been deleted.');
  await gotoHydrated(page, `${stack.baseUrl}/lockers`);
  seen.afterDelete = (await page.getByTestId('list-table').count()) ? await rows() : [];
  seen.storedAfterDelete = (await query(api, 'lockers.list', { page: 1, page_size: 25, filters: {} })).body.result.data.paginator.count;
} catch (error) {
  seen.error = String((error as Error).stack ?? error);
} finally {
  await closeBrowserStack(browser, stack);
}
process.stdout.write(`\nRESULT ${JSON.stringify(seen)}\n`);
