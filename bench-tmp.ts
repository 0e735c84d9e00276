import autocannon from 'autocannon';
import { join } from 'node:path';
import { buildApp } from './server/app.ts';
import { startUpstream } from './upstream/start.ts';
const upstream = await startUpstream({ port: 0, databaseUrl: 'postgres://postgres@127.0.0.1:55432/bench', seedDemo: false, logger: false, config: { scryptCost: 1024 } });
const app = await buildApp({ upstreamUrl: upstream.url, cookieSecrets: ['bench-cookie-secret-bench-cookie-secret-0001'], secureCookies: false, ssr: { kind: 'production', clientDir: join(process.cwd(), 'dist', 'client'), entryServerPath: join(process.cwd(), 'dist', 'server', 'entry-server.js') }, version: 'b', logger: false, loginLimits: { perIpPerMinute: 1000 } });
await app.listen({ port: 0, host: '127.0.0.1' });
const target = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const login = await fetch(`${target}/trpc/auth.login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-backoffice-csrf': '1' }, body: JSON.stringify({ email: 'admin@example.com', password: 'bench-password' }) });
const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
const tok = await (await fetch(upstream.url + 'account/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@example.com', password: 'bench-password' }) })).json();
const input = (v: unknown) => encodeURIComponent(JSON.stringify(v));
for (const [name, url, headers] of [
  ['healthz', `${target}/healthz`, {}],
  ['login page', `${target}/login`, {}],
  ['companies.list', `${target}/trpc/companies.list?input=${input({ page: 1, page_size: 25 })}`, { cookie }],
  ['upstream companies direct', `${upstream.url}companies/?page=1&page_size=25`, { authorization: 'Bearer ' + tok.data.token }],
  ['session.me', `${target}/trpc/session.me`, { cookie }],
  ['SSR /companies', `${target}/companies`, { cookie }],
] as const) {
  const r = await autocannon({ url, connections: 20, duration: 3, headers: headers as Record<string, string> });
  console.log(name.padEnd(28), 'rps', r.requests.average, 'p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx);
}
await app.close(); await upstream.close();
