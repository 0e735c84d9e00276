import type { FastifyInstance } from 'fastify';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { labelOf, type EntityRecord, type FieldDef } from '../../shared/entity/define.ts';
import { escapeHtml } from '../../server/ssr/document.ts';
import { sendCompressed } from '../../server/compress.ts';

/**
 * The baseline of the SSR benchmark (bench only, never in the app): the /bicycles page's 25 rows with
 * the same columns, fetched with the same upstream GET, rendered as plain HTML strings in a minimal
 * document. `onRender` gets the time of the string rendering alone, `onFetch` that of the API call: the
 * figure the React page's data fetch is held against (issue 14: within 2 ms).
 */
export function registerPlainBicycles(app: FastifyInstance, onRender: (ms: number) => void, onFetch: (ms: number) => void) {
  let token: string | null = null;
  const fields = bicyclesEntity.fields as Record<string, FieldDef>;
  const columns = Object.entries(fields).filter(([, f]) => f.list && !f.hidden);
  app.get('/__bench/plain/bicycles', async (req, reply) => {
    token ??= (await app.upstream.call<{ token: string }>({ method: 'POST', path: 'account/login', body: { email: 'admin@example.com', password: 'bench-password' } })).token;
    const fetchStarted = performance.now();
    const page = await app.upstream.call<{ results: EntityRecord[]; paginator: { count: number } }>({
      method: 'GET',
      path: 'bicycles/',
      query: { page: '1', page_size: '25', ordering: '-id' },
      token,
    });
    onFetch(performance.now() - fetchStarted);
    const started = performance.now();
    const cell = (record: EntityRecord, key: string) => {
      const value = record[key];
      if (value === null || value === undefined || value === '') return '—';
      const field = fields[key];
      if (field?.kind === 'reference') return escapeHtml(String(record[`${key}_label`] ?? value));
      if (field?.kind === 'boolean') return value ? 'Yes' : 'No';
      return escapeHtml(String(value));
    };
    let rows = '';
    for (const record of page.results) {
      rows += '<tr>';
      columns.forEach(([key], i) => {
        rows += i === 0 ? `<td><a href="/bicycles/${record.id}">${cell(record, key)}</a></td>` : `<td>${cell(record, key)}</td>`;
      });
      rows += `<td><button type="button" aria-label="Edit ${escapeHtml(labelOf(bicyclesEntity, record))}">✎</button><button type="button" aria-label="Delete ${escapeHtml(labelOf(bicyclesEntity, record))}">🗑</button></td></tr>`;
    }
    const head = columns.map(([key]) => `<th scope="col">${escapeHtml(key)}</th>`).join('');
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bicycles</title></head><body><main><h1>Bicycles</h1><table><thead><tr>${head}<th></th></tr></thead><tbody>${rows}</tbody></table><p>${page.paginator.count} bicycles</p></main></body></html>`;
    onRender(performance.now() - started);
    return sendCompressed(req, reply.header('content-type', 'text/html; charset=utf-8'), body);
  });
}
