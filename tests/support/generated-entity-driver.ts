import { gotoHydrated } from './browser.ts';
import { closeBrowserStack, startBrowserStack } from './browser-stack.ts';
import { DEMO_PASSWORD } from './stack.ts';
import { agent, query, signIn } from './http.ts';

/**
 * Run by tests/e2e/generated-entity.test.ts inside a copy of the repository where `npm run new:entity` has
 * added "workshops" and the build has been made: drives the new entity's list, create, edit and delete in a
 * browser as an Admin would, and prints what it saw as JSON (the test asserts on it).
 */
const { stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com' });
const seen: Record<string, unknown> = {};
try {
  const rows = () => page.getByTestId('list-table').locator('tbody tr td:first-child').allInnerTexts();
  await page.getByRole('link', { name: 'Workshops' }).first().click();
  await page.waitForURL(`${stack.baseUrl}/workshops`);
  await page.getByRole('heading', { level: 1, name: 'Workshops' }).waitFor();
  seen.heading = await page.getByRole('heading', { level: 1 }).innerText();

  await page.getByTestId('list-new').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('form-save').click();
  await dialog.getByText('This field is required').waitFor();
  await dialog.getByLabel('Name').fill('Spokes & Co');
  await dialog.getByLabel('Address').fill('Sveavägen 1');
  await dialog.getByTestId('form-save').click();
  await page.getByTestId('toasts').getByText('Spokes & Co has been created.').waitFor();
  seen.afterCreate = await rows();

  await page.getByRole('button', { name: 'Edit Spokes & Co' }).click();
  await dialog.getByLabel('Name').fill('Spokes and Sons');
  await dialog.getByTestId('form-save').click();
  await page.getByTestId('toasts').getByText('Spokes and Sons has been saved.').waitFor();
  seen.afterEdit = await rows();

  const api = agent(stack);
  await signIn(api, 'admin@example.com', DEMO_PASSWORD);
  seen.stored = (await query(api, 'workshops.list', { page: 1, page_size: 25, filters: {} })).body.result.data.results.map((r: Record<string, unknown>) => ({
    name: r.name,
    address: r.address,
  }));

  await page.getByRole('button', { name: 'Delete Spokes and Sons' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await page.getByTestId('toasts').getByText('Spokes and Sons has been deleted.').waitFor();
  await gotoHydrated(page, `${stack.baseUrl}/workshops`);
  seen.afterDelete = (await page.getByTestId('list-table').count()) ? await rows() : [];
  seen.storedAfterDelete = (await query(api, 'workshops.list', { page: 1, page_size: 25, filters: {} })).body.result.data.paginator.count;
} catch (error) {
  seen.error = String((error as Error).stack ?? error);
} finally {
  await closeBrowserStack(browser, stack);
}
process.stdout.write(`\nRESULT ${JSON.stringify(seen)}\n`);
