import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { filterKeys, type EntityDef } from '../shared/entity/define.ts';
import { ENTITIES } from '../shared/entities/registry.ts';
import { safeFileName } from '../shared/csv.ts';
import { hasAnyRole, type Role } from '../shared/roles.ts';
import { AUDIT_FILTER_KEYS } from '../shared/schemas/audit.ts';
import { rolesOf } from '../shared/route-table.ts';
import { CSRF_HEADER } from '../shared/http-headers.ts';
import { isCrossSite } from './csrf.ts';
import type { Context } from './trpc/context.ts';
import { SessionExpiredError } from './session/request-session.ts';
import { errorFromEnvelope } from './upstream/client.ts';
import { scavengingWhileStreaming } from './stream-memory.ts';

/** What can be downloaded: an exportable entity's list, or the change history (the Activity page's, ADR 036). */
interface ExportSource {
  name: string;
  roles: readonly Role[];
  /** The API's streaming route. */
  path: string;
  /** The query parameters passed on. */
  keys: readonly string[];
}

function sourceOf(name: string): ExportSource | undefined {
  if (name === 'audit') return { name, roles: rolesOf('/activity'), path: 'audit/export/', keys: AUDIT_FILTER_KEYS };
  const def = (ENTITIES as readonly EntityDef[]).find((e) => e.name === name && e.exportable);
  return def && { name: def.name, roles: rolesOf(def.route), path: `${def.name}/export/`, keys: ['search', ...filterKeys(def)] };
}

/**
 * `GET /export/<entity>.csv?search=&<filter>=` (and `/export/audit.csv?<filter>=`): the upstream's CSV streamed through to the browser with
 * backpressure and constant memory (no row cap). Like a mutation it needs the custom header and a
 * same-site request, so another site cannot make a signed-in browser download data.
 */
export function registerExports(app: FastifyInstance, createContext: (req: FastifyRequest, reply: FastifyReply) => Context) {
  app.get('/export/:file', async (req, reply) => {
    const name = (req.params as { file: string }).file.replace(/\.csv$/, '');
    const source = sourceOf(name);
    if (!source) return reply.code(404).send({ error: 'not found' });
    if (isCrossSite(req) || req.headers[CSRF_HEADER] !== '1') return reply.code(403).send({ error: 'csrf' });
    const ctx = createContext(req, reply);
    try {
      await ctx.session.ensureFresh();
    } catch (error) {
      if (error instanceof SessionExpiredError) return reply.code(401).send({ error: 'session_expired' });
      throw error;
    }
    const info = ctx.session.info();
    if (!info) return reply.code(401).send({ error: 'session_expired' });
    if (!hasAnyRole(info.roles, source.roles)) return reply.code(403).send({ error: 'forbidden' });

    const query = req.query as Record<string, string>;
    const allowed = new Set(source.keys);
    const upstreamQuery = Object.fromEntries(Object.entries(query).filter(([k, v]) => allowed.has(k) && typeof v === 'string' && v.length <= 200));
    const abort = new AbortController();
    req.raw.on('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const upstream = await ctx.session.stream({ method: 'GET', path: source.path, query: upstreamQuery, lang: ctx.lang, signal: abort.signal });
    if (upstream.statusCode !== 200) {
      const text = await upstream.body.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      const error = errorFromEnvelope(upstream.statusCode, body);
      return reply.code(error.status >= 500 ? 502 : error.status).send({ error: error.message, code: error.code });
    }
    const date = new Date().toISOString().slice(0, 10);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${safeFileName(`${source.name}-${date}`, 'csv')}"`)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(scavengingWhileStreaming(upstream.body));
  });
}
