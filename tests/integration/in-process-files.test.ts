import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, startStack, startUpstreamForTests, type Stack, type Upstream } from '../support/stack.ts';

/**
 * ADR 029: the in-process API listens on loopback only; the back office serves the part of it a browser
 * needs — uploaded files, the signed upload target and their preflight — on its own port, and nothing else.
 */
let upstream: Upstream;
let stack: Stack;
beforeAll(async () => {
  upstream = await startUpstreamForTests();
  stack = await startStack({ upstream, app: { inProcessFiles: (req, res) => upstream.app.routing(req, res) } });
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await upstream?.close();
});

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1_500_000, 7)]);

async function adminToken(): Promise<string> {
  const login = await fetch(upstream.url + 'account/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
  });
  return ((await login.json()) as { data: { token: string } }).data.token;
}

describe('the in-process API’s files through the back office (ADR 029)', () => {
  it('takes a signed upload larger than the back office’s own body limit and serves the file back', async () => {
    const token = await adminToken();
    const signed = await fetch(`${upstream.url}upload/?kind=bicycle&content_type=image/png`, { headers: { authorization: `Bearer ${token}` } });
    const { data } = (await signed.json()) as { data: { url: string; access_url: string; key: string } };
    const target = new URL(data.url);
    const preflight = await fetch(`${stack.baseUrl}${target.pathname}${target.search}`, {
      method: 'OPTIONS',
      headers: { origin: 'http://browser.example', 'access-control-request-method': 'PUT' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    // 1.5 MB: over the back office's 1 MB body limit, under the API's 5 MB; the body reaches the API untouched.
    const put = await fetch(`${stack.baseUrl}${target.pathname}${target.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' },
      body: PNG,
    });
    expect(put.status).toBe(200);
    const file = await fetch(`${stack.baseUrl}/files/${data.key}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    // The back office's own security headers go out with it.
    expect(file.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    // A second PUT on the used address is refused by the API itself.
    const again = await fetch(`${stack.baseUrl}${target.pathname}${target.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'image/png', 'x-amz-acl': 'public-read' },
      body: PNG,
    });
    expect(again.status).toBe(403);
  });

  it('serves nothing else of the API', async () => {
    expect((await fetch(`${stack.baseUrl}/files/bicycle/00000000-0000-0000-0000-000000000000.png`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/files/%2e%2e/api/users/`)).status).toBe(404);
    // /api/… on the back office is a page address (the not-found page), never the API's JSON.
    const api = await fetch(`${stack.baseUrl}/api/users/`, { redirect: 'manual' });
    expect(api.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await api.text()).not.toContain('"success"');
    const openapi = await fetch(`${stack.baseUrl}/openapi.json`, { redirect: 'manual' });
    expect(openapi.headers.get('content-type') ?? '').not.toContain('application/json');
  });
});
