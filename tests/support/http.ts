import request from 'supertest';
import { DEMO_PASSWORD, startStack, type Stack } from './stack.ts';

export type Agent = ReturnType<typeof request.agent>;

/** A browser-like client: keeps cookies, sends the CSRF header and JSON on mutations. */
export function agent(stack: Stack): Agent {
  return request.agent(stack.baseUrl);
}

export function mutate(client: Agent, path: string, input?: unknown) {
  return client
    .post(`/trpc/${path}`)
    .set('content-type', 'application/json')
    .set('x-backoffice-csrf', '1')
    .send(input === undefined ? '' : JSON.stringify(input));
}

export function query(client: Agent, path: string, input?: unknown) {
  const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  return client.get(`/trpc/${path}${qs}`);
}

export async function signIn(client: Agent, email: string, password: string) {
  const res = await mutate(client, 'auth.login', { email, password });
  if (res.status !== 200) throw new Error(`login as ${email} failed: ${res.status} ${res.text}`);
  return res;
}

export function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const value = res.headers['set-cookie'];
  return Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
}

/** A stack and an agent signed in as the demo admin through tRPC. */
export async function startAdminStack(): Promise<{ stack: Stack; admin: Agent }> {
  const stack = await startStack();
  const admin = agent(stack);
  await signIn(admin, 'admin@example.com', DEMO_PASSWORD);
  return { stack, admin };
}

/** The CSV export of an entity's list (`/export/<name>.csv`), read whole as text. */
export function exportCsv(client: Agent, name: string, qs = '') {
  return client
    .get(`/export/${name}.csv${qs}`)
    .set('x-backoffice-csrf', '1')
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => done(null, text));
    });
}
