import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../server/ssr/manifest.ts';
import { agent, mutate, signIn, type Agent } from '../support/http.ts';
import { DEMO_PASSWORD, latestMail, linkPath, startStack, type Stack } from '../support/stack.ts';

/**
 * The public pages (ADR 024): server-rendered with a small script of their own instead of the app, and
 * every form working without JavaScript through a plain post to its own address.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

const clientDir = join(import.meta.dirname, '..', '..', 'dist', 'client');
const readManifest = (file: string) => JSON.parse(readFileSync(join(clientDir, '.vite', file), 'utf8')) as Manifest;
const form = (client: Agent, path: string, fields: Record<string, string>) => client.post(path).type('form').send(fields);
/** A post from the page script: answered a redirect as JSON, anything else as the page. */
const backgroundForm = (client: Agent, path: string, fields: Record<string, string>) => form(client, path, fields).set('x-backoffice-form', '1');

async function resetLink(email: string): Promise<string> {
  expect((await form(agent(stack), '/forgot-password', { email })).status).toBe(200);
  return linkPath((await latestMail(stack.upstream, email)).link);
}

describe('the public entry', () => {
  it('serves every public page with the public script only: nothing of the app is linked, its styles are inline', async () => {
    const publicEntry = readManifest('manifest-public.json')['client/entry-public.ts']!.file;
    const appFiles = new Set(Object.values(readManifest('manifest.json')).flatMap((chunk) => [chunk.file, ...(chunk.css ?? [])]));
    const token = (await resetLink('shop@example.com')).split('/').pop()!;
    const pages = [
      '/login',
      '/forgot-password',
      `/reset-password/${token}`,
      '/accept-invitation/abc',
      '/confirm-email/abc/a%40b.se',
      '/privacy-policy',
      '/terms-and-conditions/sv',
      '/subscriptions/single-yearly',
      '/no/such/page',
    ];
    for (const path of pages) {
      const page = await agent(stack).get(path);
      expect(page.status, path).toBe(path === '/no/such/page' ? 404 : 200);
      const scripts = [...page.text.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
      expect(scripts, path).toEqual([`/${publicEntry}`]);
      const assets = [...page.text.matchAll(/(?:href|src)="\/(static\/[^"]+)"/g)].map((m) => m[1]!);
      expect(
        assets.filter((file) => appFiles.has(file)),
        path,
      ).toEqual([]);
      expect(page.text, path).not.toContain('rel="stylesheet"');
      expect(page.text, path).toMatch(/<style nonce="[^"]+">/);
      expect(page.text, path).toContain('<script id="__BO_PUBLIC__" type="application/json"');
      expect(page.text, path).not.toContain('__BO_STATE__');
    }
    // /forbidden is public too, and what a user without a role sees.
    const user = agent(stack);
    await signIn(user, 'user@example.com', DEMO_PASSWORD);
    const forbidden = await user.get('/forbidden');
    expect([...forbidden.text.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1])).toEqual([`/${publicEntry}`]);
  });

  it('gives the script the validation texts of the page language', async () => {
    const page = await agent(stack).get('/login').set('cookie', 'lang=sv');
    const boot = JSON.parse(/<script id="__BO_PUBLIC__"[^>]*>([\s\S]*?)<\/script>/.exec(page.text)![1]!);
    expect(boot.lang).toBe('sv');
    expect(boot.messages['validation.passwordsDoNotMatch']).toBe('Lösenorden matchar inte.');
    expect(boot.googleClientId).toBeNull();
  });
});

describe('public forms without JavaScript', () => {
  it('forgot password: the page answers with its confirmation, or with the message on the field', async () => {
    const bad = await form(agent(stack), '/forgot-password', { email: 'not-an-address' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Provided value is not Email.');
    expect(bad.text).toContain('value="not-an-address"');
    const done = await form(agent(stack), '/forgot-password', { email: 'nobody@example.com' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('data-testid="forgot-done"');
  });

  it('reset password: mismatch on the field, then done, then the used token is refused', async () => {
    const path = await resetLink('buddy@example.com');
    const mismatch = await form(agent(stack), path, { password: 'fresh-pass', password_confirm: 'other' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('Passwords do not match.');
    expect(mismatch.text).not.toContain('fresh-pass');
    const done = await form(agent(stack), path, { password: 'fresh-pass', password_confirm: 'fresh-pass' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('data-testid="password-done"');
    await signIn(agent(stack), 'buddy@example.com', 'fresh-pass');
    const reused = await form(agent(stack), path, { password: 'fresh-pass', password_confirm: 'fresh-pass' });
    expect(reused.text).toContain('Provided token does not exist');
    // Back to the demo password for the other tests.
    const again = await resetLink('buddy@example.com');
    expect((await form(agent(stack), again, { password: DEMO_PASSWORD, password_confirm: DEMO_PASSWORD })).status).toBe(200);
  });

  it('accept invitation and confirm e-mail answer with the upstream’s message for a bad token', async () => {
    const invite = await form(agent(stack), '/accept-invitation/not-a-token', { password: 'abc', password_confirm: 'abc' });
    expect(invite.text).toContain('Provided token does not exist');
    const confirm = await form(agent(stack), '/confirm-email/not-a-token/someone%40example.com', {});
    expect(confirm.text).toContain('Provided token does not exist');
    expect(confirm.text).toContain('someone@example.com');
  });

  it('sign out with a form post revokes the session and goes to /login', async () => {
    const user = agent(stack);
    await signIn(user, 'user@example.com', DEMO_PASSWORD);
    const out = await user.post('/logout');
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect((await user.get('/')).headers.location).toBe('/login?redirect=%2F');
  });

  it('refuses the public forms from another site', async () => {
    for (const path of ['/login', '/forgot-password', '/reset-password/x', '/logout']) {
      const res = await agent(stack).post(path).type('form').set('sec-fetch-site', 'cross-site').send({ email: 'a@b.se' });
      expect(res.status, path).toBe(403);
    }
  });
});

describe('public forms posted by the page script', () => {
  it('sign-in: a redirect comes back as JSON, a failure as the page keeping the address typed', async () => {
    const failed = await backgroundForm(agent(stack), '/login', { email: 'admin@example.com', password: 'wrong-one', redirect: '/users' });
    expect(failed.status).toBe(400);
    expect(failed.text).toContain('data-testid="login-error"');
    expect(failed.text).toContain('Invalid credentials.');
    expect(failed.text).toContain('value="admin@example.com"');
    const client = agent(stack);
    const ok = await backgroundForm(client, '/login', { email: 'admin@example.com', password: DEMO_PASSWORD, redirect: '//evil.example' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ location: '/' });
    expect((await client.get('/profile')).status).toBe(200);
  });
});

describe('the data of a server-rendered page', () => {
  /** Calls the back office made to GET account/, from its own metrics. */
  const accountCalls = async () => {
    const { values } = await stack.app.metrics.upstreamDuration.get();
    return values.filter((v) => v.metricName?.endsWith('_count') && v.labels.method === 'GET' && String(v.labels.path) === 'account/').reduce((sum, v) => sum + v.value, 0);
  };

  it('keeps the HTML of a list of 25 records within issue 14’s 40 KB (card labels and date wrapping once per table, not per cell)', async () => {
    const admin = agent(stack);
    await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
    const html = (await admin.get('/bicycles')).text;
    expect(html.match(/<tr data-testid="row-/g)).toHaveLength(25);
    expect(html.length / 1024).toBeLessThanOrEqual(40);
    // The phone's labels are there once, in the table's style, and no cell repeats them.
    expect(html).toMatch(/td:nth-child\(1\)::before\{content:"Brand and model"\}/);
    expect(html).not.toContain('data-label="Brand and model"');
  });

  it("asks the API for the signed-in user's profile once per token, and again as soon as the profile changes here", async () => {
    const admin = agent(stack);
    await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
    const before = await accountCalls();
    expect((await admin.get('/bicycles')).text).toContain('Ada Admin');
    expect((await admin.get('/bicycles')).text).toContain('Ada Admin');
    expect((await accountCalls()) - before).toBe(1);
    expect((await mutate(admin, 'account.update', { first_name: 'Adela', last_name: 'Admin' })).status).toBe(200);
    expect((await admin.get('/bicycles')).text).toContain('Adela Admin');
    expect((await mutate(admin, 'account.update', { first_name: 'Ada', last_name: 'Admin' })).status).toBe(200);
  });
});
