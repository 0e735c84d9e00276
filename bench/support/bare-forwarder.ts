import Fastify from 'fastify';
import { Pool } from 'undici';
import { serveCommands } from './ipc.ts';

/**
 * The overhead bench's reference (bench/overhead.ts): the least a Node server can do that sits where the back
 * office sits. Fastify receives the request, undici asks the API (keep-alive pool, the bench's bearer token),
 * the envelope is parsed and its data answered in tRPC's shape. No session, cookie, CSRF, metrics, logging or
 * tRPC: what remains is the extra HTTP hop itself, which no back office in Node can go below.
 */
const api = new URL(process.env.BENCH_API_URL!);
const token = process.env.BENCH_API_TOKEN!;
const pool = new Pool(api.origin, { connections: 16 });
const app = Fastify({ logger: false });
app.get('/bicycles', async (req, reply) => {
  const at = req.url.indexOf('?');
  const search = at < 0 ? '' : req.url.slice(at);
  const res = await pool.request({ method: 'GET', path: `${api.pathname}bicycles/${search}`, headers: { authorization: `Bearer ${token}` } });
  const envelope = (await res.body.json()) as { data: unknown };
  reply.code(res.statusCode).header('content-type', 'application/json');
  return JSON.stringify({ result: { data: envelope.data } });
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
serveCommands({
  /** This process's CPU time so far, in ms (user + system): the overhead bench's CPU per request (bench/overhead.ts). */
  cpuMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
});
process.on('SIGTERM', () => void app.close().finally(() => pool.close().finally(() => process.exit(0))));
process.send!({ ready: { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` } });
