import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../support/axe.ts';
import { gotoHydrated, screenshot, signInAs } from '../support/browser.ts';
import { activateAccount, closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { DEMO_PASSWORD, latestMail, linkPath, type Stack } from '../support/stack.ts';

let stack: Stack;
let browser: Browser;
let page: Page;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  ({ stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com', context: { acceptDownloads: true } }));
});
afterAll(() => closeBrowserStack(browser, stack));

describe('users and bicycles in the browser', () => {
  it('an admin bulk-invites two users and one accepts through the mailed link', async () => {
    await gotoHydrated(page, stack.baseUrl + '/users');
    await page.getByTestId('bulk-invite').click();
    // Roles come from the roles catalogue and none is given unless chosen.
    const roleChoice = page.getByRole('dialog').getByTestId('invite-roles');
    await roleChoice.getByLabel('Customer').waitFor();
    expect(await roleChoice.locator('input:checked').count()).toBe(0);
    await roleChoice.getByLabel('Buddy').check();
    await page.getByTestId('bulk-emails').fill('first.new@example.com, second.new@example.com, admin@example.com, not-an-address');
    await page.getByRole('button', { name: 'Send invitations' }).click();
    const results = page.getByTestId('bulk-results');
    await results.getByText('2 invited, 2 failed.').waitFor();
    await results.getByText('User already exists').waitFor();
    await results.getByText('Provided value is not Email.').waitFor();
    await screenshot(page, 'bulk-invite-results');
    await page.getByTestId('bulk-close').click();
    await page.getByTestId('list-search').fill('first.new');
    await page.getByText('first.new@example.com').waitFor();

    const mail = await latestMail(stack.upstream, 'second.new@example.com');
    const guest = await browser.newPage();
    await activateAccount(guest, stack, mail.link, 'welcome1');
    await guest.close();
    await page.getByTestId('list-search').fill('second.new');
    const row = page.getByTestId('list-table').locator('tbody tr', { hasText: 'second.new@example.com' });
    await row.getByText('Active', { exact: true }).waitFor();
    await row.getByText('Buddy', { exact: true }).waitFor();
    expect(await row.innerText()).not.toContain('Invitation pending');
  });

  it('an admin cancels a pending invitation behind a confirm dialog, and can invite again (H1)', async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'first.new@example.com'");
    const id = Number(rows[0]!.id);
    const invitation = (await latestMail(stack.upstream, 'first.new@example.com')).link;
    await gotoHydrated(page, stack.baseUrl + `/users/${id}`);
    expect(await page.getByTestId('invitation-status').innerText()).toBe('Invitation pending');
    await page.getByTestId(`cancel-invite-${id}`).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('Cancel the invitation to first.new@example.com? Its link stops working and it can no longer be accepted.').waitFor();
    await screenshot(page, 'cancel-invitation-confirm');
    await dialog.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('The invitation to first.new@example.com has been canceled.').waitFor();
    await page.getByTestId('invitation-status').getByText('Invitation canceled').waitFor();
    expect(await page.getByTestId(`cancel-invite-${id}`).count()).toBe(0);
    await page.getByTestId(`resend-${id}`).getByText('Invite again').waitFor();
    await screenshot(page, 'cancel-invitation-done');

    // The mailed link now says what any unknown link says.
    const guest = await browser.newPage();
    await gotoHydrated(guest, stack.baseUrl + linkPath(invitation));
    await guest.getByLabel('New password').fill('welcome1');
    await guest.getByLabel('Confirm password').fill('welcome1');
    await guest.getByRole('button', { name: 'Activate account' }).click();
    await guest.getByText('Provided token does not exist').waitFor();
    await guest.close();

    await gotoHydrated(page, stack.baseUrl + '/users?search=first.new');
    const row = page.getByTestId('list-table').locator('tbody tr', { hasText: 'first.new@example.com' });
    await row.getByText('Invitation canceled', { exact: false }).waitFor();
    await row.getByTestId(`resend-${id}`).click();
    await page.getByRole('alertdialog').getByText('Invite first.new@example.com again? A new invitation link is sent.').waitFor();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('A new invitation has been sent to first.new@example.com.').waitFor();
    await row.getByText('Invitation pending', { exact: false }).waitFor();
  });

  it('the last Admin cannot remove their own Admin role: the box stays checked and the reason shows, in Swedish too (L5)', async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>("select id from users where email = 'admin@example.com'");
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await context.newPage();
    await signInAs(phone, stack.baseUrl, 'admin@example.com', DEMO_PASSWORD);
    await gotoHydrated(phone, stack.baseUrl + `/users/${rows[0]!.id}`);
    const adminBox = phone.getByTestId('user-roles').getByLabel('Admin');
    // Removing a role asks first (issue 13); the API then refuses it for the last Admin.
    const confirmRemoval = async (yes: string) => {
      await adminBox.click();
      await phone.getByRole('alertdialog').getByRole('button', { name: yes, exact: true }).click();
    };
    await confirmRemoval('Yes');
    await phone.getByTestId('toasts').getByText('The last active Admin cannot lose the Admin role or be deactivated. Make someone else Admin first.').waitFor();
    await expect.poll(() => adminBox.isChecked()).toBe(true);
    await screenshot(phone, 'last-admin-phone-en');

    await phone.getByTestId('language-switch').selectOption('sv');
    await phone.locator('html[lang="sv"]').waitFor();
    await confirmRemoval('Ja');
    await phone.getByTestId('toasts').getByText('Den sista aktiva administratören kan inte förlora rollen Admin eller avaktiveras. Gör någon annan till Admin först.').waitFor();
    await screenshot(phone, 'last-admin-phone-sv');
    await context.close();
  });

  it("an admin exports a person's data, then erases them only after typing their e-mail (ADR 076)", async () => {
    const email = 'erin.erasable@example.com';
    const { rows } = await stack.upstream.db.query<{ id: number }>(
      "insert into users (email, first_name, last_name, phone_number, account_status, invitation_status) values ($1, 'Erin', 'Erasable', '+46 70 555 0199', 'active', 'accepted') returning id",
      [email],
    );
    const id = Number(rows[0]!.id);
    await gotoHydrated(page, stack.baseUrl + `/users/${id}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`exportData-json-${id}`).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^person-${id}-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8')).person).toMatchObject({ email, first_name: 'Erin', phone_number: '+46 70 555 0199' });

    await page.getByTestId('toasts').getByText(`Everything stored about ${email} has been exported.`).waitFor();
    // Reached by keyboard: the erase button takes the focus (once the export's run has let go of the buttons),
    // Enter opens the dialog, whose text box has it next.
    const erase = page.getByTestId(`erase-${id}`);
    await expect.poll(() => erase.isEnabled()).toBe(true);
    await erase.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText('This cannot be undone.', { exact: false }).waitFor();
    const yes = dialog.getByRole('button', { name: 'Yes', exact: true });
    expect(await yes.isDisabled()).toBe(true);
    expect((await axeViolations(page, '[role="alertdialog"]')).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await page.keyboard.type('erin.erasable@example');
    expect(await yes.isDisabled()).toBe(true);
    await page.keyboard.type('.com');
    expect(await yes.isDisabled()).toBe(false);
    await screenshot(page, 'erase-person-confirm');
    await page.keyboard.press('Enter');
    await page.getByTestId('toasts').getByText('The person has been erased.').waitFor();
    await page.getByText(`erased+${id}@invalid`, { exact: false }).first().waitFor();
    expect(await page.getByTestId(`erase-${id}`).count()).toBe(0);
    const { rows: after } = await stack.upstream.db.query<{ first_name: string | null; is_active: boolean }>('select first_name, is_active from users where id = $1', [id]);
    expect(after[0]).toEqual({ first_name: null, is_active: false });
  });

  it('an admin assigns a role and an operational range on the user page, each confirmed by a toast', async () => {
    await gotoHydrated(page, stack.baseUrl + '/users/2');
    await page.getByTestId('user-roles').getByLabel('Shop').check();
    await page.getByTestId('toasts').getByText('Role Shop assigned.').waitFor();
    // Removing a role asks first (issue 13; its No is tested in tests/e2e/catalogues-assets-history.test.ts).
    await page.getByTestId('user-roles').getByLabel('Shop').click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.getByTestId('toasts').getByText('Role Shop removed.').waitFor();
    await page.getByTestId('operational-range').selectOption({ label: 'Solna' });
    await page.getByTestId('toasts').getByText('Operational range set to Solna.').waitFor();
    await page.reload();
    expect(await page.getByTestId('operational-range').locator('option:checked').innerText()).toBe('Solna');
    // The user's History tab (ADR 036, 038): the role given and taken, each with who did it.
    await page.getByTestId('tab-history').click();
    await page.getByText('Roles: removed').first().waitFor();
    await page.getByText('Roles: added').first().waitFor();
    expect(await page.getByText('Ada Admin').count()).toBeGreaterThan(0);
  });

  it('an admin edits a bicycle through the confirm dialog and uploads a defect image that shows in the preview', async () => {
    await gotoHydrated(page, stack.baseUrl + '/bicycles/1');
    const form = page.getByTestId('form-bicycles');
    await form.getByLabel('Groupset').fill('Shimano Alfine 8');
    await form.getByTestId('form-save').click();
    await page.getByRole('heading', { name: 'Confirm changes' }).waitFor();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();

    await page.getByTestId('upload-defect').setInputFiles({ name: 'crack.png', mimeType: 'image/png', buffer: PNG });
    const preview = page.getByTestId('images-defect').getByTestId('image-preview');
    await preview.waitFor();
    expect(await preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    await screenshot(page, 'bicycle-defect-image');
    await page.reload();
    expect(await page.getByTestId('form-bicycles').getByLabel('Groupset').inputValue()).toBe('Shimano Alfine 8');
  });

  it('activating a bicycle keeps unsaved edits in its form, and they still save', async () => {
    await gotoHydrated(page, stack.baseUrl + '/bicycles/2');
    const form = page.getByTestId('form-bicycles');
    await form.getByLabel('Drivetrain').fill('belt');
    const before = await page.getByTestId('toggle-active').innerText();
    await page.getByTestId('toggle-active').click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page.waitForFunction((text) => document.querySelector('[data-testid="toggle-active"]')?.textContent !== text, before);
    expect(await form.getByLabel('Drivetrain').inputValue()).toBe('belt');
    await form.getByTestId('form-save').click();
    await page.getByRole('button', { name: 'Yes', exact: true }).click();
    await page
      .getByTestId('toasts')
      .getByText(/has been saved/)
      .waitFor();
    // The page's own action is not someone else's change: no notice.
    expect(await page.getByTestId('changed-elsewhere').count()).toBe(0);
    await page.reload();
    expect(await page.getByTestId('form-bicycles').getByLabel('Drivetrain').inputValue()).toBe('belt');
  });

  it('exporting bicycles downloads a CSV whose row count matches the list total', async () => {
    await gotoHydrated(page, stack.baseUrl + '/bicycles?f_is_active=true');
    const total = Number(/· (\d+) results?/.exec(await page.getByTestId('list-count').innerText())![1]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-export').click()]);
    expect(download.suggestedFilename()).toMatch(/^bicycles-\d{4}-\d{2}-\d{2}\.csv$/);
    const text = readFileSync((await download.path())!, 'utf8');
    const rows = text.split('\r\n').filter(Boolean);
    expect(rows.length - 1).toBe(total);
    await page.getByTestId('toasts').getByText(`Exported ${total} rows.`).waitFor();
  });

  it('Next reads the next page from where the page before ended (ADR 051); Previous and any other change leave the cursor', async () => {
    const ids = async () =>
      page
        .getByTestId('list-table')
        .locator('tbody tr[data-testid^="row-"]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid')));
    await gotoHydrated(page, stack.baseUrl + '/bicycles?page_size=10');
    const first = await ids();
    expect(first).toHaveLength(10);
    await page.getByTestId('page-next').click();
    await page.waitForURL(/[?&]after=[\w-]+/);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    const shows = (before: string | null | undefined) =>
      page.waitForFunction(
        (gone) => !document.querySelector(`[data-testid="${gone}"]`) && document.querySelectorAll('[data-testid="list-table"] tbody tr[data-testid^="row-"]').length > 0,
        before,
      );
    await shows(first[0]);
    const second = await ids();
    const reachedByNext = page.url();
    // The same rows as the second page read by its number, and none of the first page's.
    await gotoHydrated(page, stack.baseUrl + '/bicycles?page_size=10&page=2');
    expect(await ids()).toEqual(second);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    await gotoHydrated(page, reachedByNext);
    expect(await ids()).toEqual(second);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.waitForURL((url) => !url.searchParams.has('after') && (url.searchParams.get('page') ?? '1') === '1');
    await shows(second[0]);
    expect(await ids()).toEqual(first);
  });
});
