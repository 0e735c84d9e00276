import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gotoHydrated, screenshot } from '../support/browser.ts';
import { closeBrowserStack, startBrowserStack } from '../support/browser-stack.ts';
import { type Stack } from '../support/stack.ts';

/** Issue 12 in the browser: a bad stored picture never makes a save fail silently (M6); upload quotas are explained (L4). */
let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ({ stack, browser, page } = await startBrowserStack({ signedIn: 'admin@example.com', context: { viewport: { width: 1280, height: 900 } } }));
});
afterAll(() => closeBrowserStack(browser, stack));

describe('a stored profile picture that is not one of our uploads (issue 12 M6)', () => {
  it('an admin editing the user sees why saving is refused, removes the picture, and saves', async () => {
    const { rows } = await stack.upstream.db.query<{ id: number }>(
      "update users set profile_image = 'javascript:alert(document.cookie)' where email = 'vera.svensson14@example.com' returning id",
    );
    const id = Number(rows[0]!.id);
    await gotoHydrated(page, stack.baseUrl + `/users/${id}`);
    const form = page.getByTestId('user-form');
    // The bad value is not loaded as an image; the field says what is wrong before anyone saves.
    expect(await form.locator('img[alt="Profile picture"]').count()).toBe(0);
    const fieldError = form.getByTestId('user_profile_picture-field-error');
    await fieldError.getByText('Choose an image with the upload button: pictures from other addresses are not accepted.').waitFor();

    await form.getByLabel('First name').fill('Verena');
    await page.getByTestId('user-save').click();
    // Never nothing: a toast says the save was refused, and the field keeps its message.
    await page.getByTestId('toasts').getByText('Some fields are not valid.').waitFor();
    await fieldError.waitFor();
    await screenshot(page, 'user-bad-picture-refused');
    expect((await stack.upstream.db.query<{ first_name: string }>('select first_name from users where id = $1', [id])).rows[0]!.first_name).not.toBe('Verena');

    await form.getByTestId('remove-user_profile_picture').click();
    await fieldError.waitFor({ state: 'detached' });
    await page.getByTestId('user-save').click();
    await page.getByTestId('toasts').getByText('vera.svensson14@example.com has been saved.').waitFor();
    const saved = (await stack.upstream.db.query<{ first_name: string; profile_image: string | null }>('select first_name, profile_image from users where id = $1', [id])).rows[0]!;
    expect(saved).toEqual({ first_name: 'Verena', profile_image: null });
  });

  it('in Swedish, on the own profile: the same message, and a save after removing it', async () => {
    await stack.upstream.db.query("update users set profile_image = 'https://evil.example/pixel.png' where email = 'admin@example.com'");
    await page.getByTestId('language-switch').selectOption('sv');
    try {
      await gotoHydrated(page, stack.baseUrl + '/profile');
      const form = page.getByTestId('profile-form');
      await form.getByText('Välj en bild med uppladdningsknappen: bilder från andra adresser godtas inte.').waitFor();
      await page.getByTestId('profile-save').click();
      await page.getByTestId('toasts').getByText('Några fält är inte giltiga.').waitFor();
      await form.getByTestId('remove-user_profile_picture').click();
      await page.getByTestId('profile-save').click();
      await page
        .getByTestId('toasts')
        .getByText(/sparats/)
        .waitFor();
      expect(
        (await stack.upstream.db.query<{ profile_image: string | null }>("select profile_image from users where email = 'admin@example.com'")).rows[0]!.profile_image,
      ).toBeNull();
    } finally {
      await page.getByTestId('language-switch').selectOption('en');
    }
  });
});

describe('upload quota (issue 12 L4)', () => {
  it('tells the person when they have uploaded too much, in their language', async () => {
    // Sixty signed addresses in the last hour: the default quota is used up.
    await stack.upstream.db.query(
      `insert into uploads (key, kind, content_type, created_by)
       select 'user_profile_picture/' || gen_random_uuid() || '.png', 'user_profile_picture', 'image/png', (select id from users where email = 'admin@example.com')
         from generate_series(1, 60)`,
    );
    await gotoHydrated(page, stack.baseUrl + '/profile');
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
    await page.getByTestId('upload-user_profile_picture').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.getByTestId('upload-user_profile_picture-error').getByText('You have uploaded many images in the last hour. Try again later.').waitFor();
    await screenshot(page, 'upload-quota-message');
    await stack.upstream.db.query("delete from uploads where created_by = (select id from users where email = 'admin@example.com') and used_at is null");
  });
});
