import { Agent, request } from 'undici';
import { percentile } from './support/stats.ts';
import { apiToken, startStack, describeDb, type BenchDb } from './support/stack.ts';
import type { GenerateReport } from './scale/tables.ts';

/**
 * 7. Data scale: list pages of the API on the million-row data set (bench/scale/tables.ts), one request at
 * a time, on PostgreSQL and on PGlite side by side. First every query in turn for a few seconds (the API warms
 * up), then each query: warm-up, then N timed requests, p50/p95.
 * The queries are what the list screens send: search + sort + filter, the search of a bicycle by its
 * owner's e-mail (a searchable reference), and the users list with search, sort and filter.
 */
export interface ScaleQuery {
  name: string;
  path: string;
  /** Target p95 in ms per database (issue 22: every query a list screen sends ≤ 20 ms on PostgreSQL, ≤ 60 ms on PGlite; dashboard counters ≤ 150 ms). */
  target: { postgres: number; pglite: number };
  /** Table the query needs; skipped (and reported) while it does not exist. */
  needs?: string;
  /** Who asks (a demo account); the admin when left out. */
  as?: string;
  /** The page is the one after this path's page, reached by Next: its `next_after` cursor is sent (keyset paging, ADR 051). */
  after?: string;
}

/** A date `days` before today (the generated services span ~640 days back to 90 ahead). */
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Issue 22: a list screen's every query, the count included. */
const LIST = { postgres: 20, pglite: 60 };
const DASHBOARD = { postgres: 150, pglite: 150 };

export const SCALE_QUERIES: ScaleQuery[] = [
  // Without a search the page counts all (or most) of the million rows: exactly up to 10 000, then the planner's estimate (ADR 040).
  { name: 'bicycles: first page, no search (counts 1M rows)', path: 'bicycles/?page=1&page_size=25', target: LIST },
  { name: 'bicycles: search model + sort + filter', path: 'bicycles/?page=1&page_size=25&search=canyon%20grail%207&ordering=-purchase_date&is_active=true', target: LIST },
  { name: 'bicycles: search serial number part + sort + filter', path: 'bicycles/?page=1&page_size=25&search=4f3a9&ordering=-purchase_date&is_active=true', target: LIST },
  {
    name: 'bicycles: search by owner e-mail + sort + filter',
    path: 'bicycles/?page=1&page_size=25&search=anna.andersson4352&ordering=brand_and_model&is_active=true',
    target: LIST,
  },
  { name: 'bicycles: sort + filter, page 200, no search (counts 857k rows)', path: 'bicycles/?page=200&page_size=25&ordering=serial_number&is_active=true', target: LIST },
  {
    name: 'bicycles: the same page 200 reached by Next from page 199 (its cursor)',
    path: 'bicycles/?page=200&page_size=25&ordering=serial_number&is_active=true',
    after: 'bicycles/?page=199&page_size=25&ordering=serial_number&is_active=true',
    target: LIST,
  },
  { name: 'bicycles: page 2 000 reached by Next (newest first)', path: 'bicycles/?page=2000&page_size=25', after: 'bicycles/?page=1999&page_size=25', target: LIST },
  { name: 'users: search e-mail + sort + filter', path: 'users/?page=1&page_size=25&search=nilsson77&ordering=last_name&user_type=1', target: LIST },
  { name: 'users: search by full name + sort', path: 'users/?page=1&page_size=25&search=anna%20andersson&ordering=-member_since', target: LIST },
  // ADR 056: a two-letter text no trigram serves, which no user holds (every user was read to prove it); a
  // nullable column sorted newest first (every user was sorted).
  { name: 'users: search two letters no one holds ("zq")', path: 'users/?page=1&page_size=25&search=zq', target: LIST },
  { name: 'users: sort by member since, newest first (counts 1M rows)', path: 'users/?page=1&page_size=25&ordering=-member_since', target: LIST },
  // Services (2M rows): what the services list sends, and the calendar's range.
  { name: 'services: filter by status + sort by date (counts 230k rows)', path: 'services/?page=1&page_size=25&status=2&ordering=-service_date', target: LIST },
  {
    name: 'services: search address + filter status + sort by date',
    path: 'services/?page=1&page_size=25&search=hornsgatan%2017&status=4&ordering=-service_date',
    target: LIST,
    needs: 'services',
  },
  {
    name: 'services: search bicycle model + sort by date',
    path: 'services/?page=1&page_size=25&search=canyon%20grail%207&ordering=-service_date',
    target: LIST,
    needs: 'services',
  },
  {
    name: 'services: filter a week + origin + sort by status',
    path: `services/?page=1&page_size=25&service_date_from=${daysAgo(200)}&service_date_to=${daysAgo(194)}&origin_type=b2b&ordering=status`,
    target: LIST,
    needs: 'services',
  },
  // The §1 counters of the home page and the statistics page (ADR 016) over all of it.
  { name: 'dashboard counters (GET dashboard/)', path: 'dashboard/', target: DASHBOARD, needs: 'services' },
  { name: 'statistics (GET statistics/)', path: 'statistics/', target: DASHBOARD, needs: 'services' },
  { name: "a Buddy's own figures (GET dashboard/ as the demo buddy, ~1 000 services)", path: 'dashboard/', target: DASHBOARD, needs: 'services', as: 'buddy@example.com' },
];

/** One SQL statement a request ran, with what its plan used (EXPLAIN ANALYZE in the API's own process). */
export interface StatementPlan {
  /** The statement, shortened. */
  sql: string;
  /** Execution time the plan reports (ms). */
  ms: number;
  /** Index names the plan reads. */
  indexes: string[];
  /** Tables it reads whole (sequential scans). */
  seqScans: string[];
}

/** How long the API is warmed with every query in turn before the first timed sample (see runDataScale). */
const WARM_UP_MS = 3000;

export interface ScaleQueryResult {
  name: string;
  targetMs?: number;
  p50Ms?: number;
  p95Ms?: number;
  count?: number;
  /** The paginator said the count is the planner's estimate (ADR 040). */
  estimated?: boolean;
  plans?: StatementPlan[];
  skipped?: string;
}

export interface DataScaleResult {
  db: string;
  /** Timed requests per query, after the warm-up (`WARM_UP_MS` of every query in turn). */
  samples: number;
  warmUpMs: number;
  generated: GenerateReport[];
  queries: ScaleQueryResult[];
}

export async function runDataScale(db: BenchDb, generated: GenerateReport[], opts: { samples?: number } = {}): Promise<DataScaleResult> {
  const samples = opts.samples ?? 40;
  const stack = await startStack(db);
  const dispatcher = new Agent({ connections: 1 });
  try {
    const tokens = new Map<string, string>();
    const tokenFor = async (email = 'admin@example.com') => tokens.get(email) ?? tokens.set(email, await apiToken(stack.api, email)).get(email)!;
    const tables = new Set(generated.filter((g) => !g.skipped).map((g) => g.table));
    const get = async (url: string, token: string) => {
      const res = await request(url, { headers: { authorization: `Bearer ${token}` }, dispatcher });
      const body = (await res.body.json()) as { data?: { paginator?: { count: number; estimated?: boolean } } };
      return { status: res.statusCode, count: body.data?.paginator?.count, estimated: body.data?.paginator?.estimated };
    };
    // Each query's address (a Next page's cursor asked for first) and token; a query on a table this data set lacks is skipped.
    const planned: ({ query: ScaleQuery; targetMs: number; url: string; token: string } | ScaleQueryResult)[] = [];
    for (const query of SCALE_QUERIES) {
      const token = await tokenFor(query.as);
      let url = stack.api + query.path;
      if (query.after) {
        const before = await request(stack.api + query.after, { headers: { authorization: `Bearer ${token}` }, dispatcher });
        const cursor = ((await before.body.json()) as { data?: { paginator?: { next_after?: string } } }).data?.paginator?.next_after;
        if (!cursor) throw new Error(`${query.after} gave no next_after`);
        url += `&after=${cursor}`;
      }
      const targetMs = query.target[db.kind === 'postgres' ? 'postgres' : 'pglite'];
      if (query.needs && !tables.has(query.needs) && (await get(url, token)).status === 404) planned.push({ name: query.name, targetMs, skipped: `no ${query.needs} data` });
      else planned.push({ query, targetMs, url, token });
    }
    const runnable = planned.filter((p): p is Extract<(typeof planned)[number], { url: string }> => 'url' in p);
    // Warm-up before anything is timed: the API has just started, and for its first seconds its heap grows
    // (start-up, the first plans and pools), with collections that long-running APIs do not have: scavenges of
    // 7-12 ms and an incremental mark's steps of up to 8 ms (--trace-gc) fell in the first query's samples. So
    // every query is asked in turn, for at least WARM_UP_MS and one pass; then each query's own samples.
    const warmUpUntil = performance.now() + WARM_UP_MS;
    do for (const p of runnable) await get(p.url, p.token);
    while (performance.now() < warmUpUntil);
    const queries: ScaleQueryResult[] = [];
    for (const p of planned) {
      if (!('url' in p)) {
        queries.push(p);
        continue;
      }
      const { query, targetMs, url, token } = p;
      let count: number | undefined;
      let estimated: boolean | undefined;
      for (let i = 0; i < 3; i++) ({ count, estimated } = await get(url, token));
      // The statements one request runs, and their plans (outside the timed samples).
      await stack.upstream.ask('capture', true);
      await get(url, token);
      await stack.upstream.ask('capture', false);
      const plans = await stack.upstream.ask<StatementPlan[]>('explainCaptured');
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        const answer = await get(url, token);
        times.push(performance.now() - started);
        if (answer.status !== 200) throw new Error(`${query.path} answered ${answer.status}`);
      }
      queries.push({ name: query.name, targetMs, p50Ms: Number(percentile(times, 50).toFixed(1)), p95Ms: Number(percentile(times, 95).toFixed(1)), count, estimated, plans });
    }
    return { db: describeDb(db), samples, warmUpMs: WARM_UP_MS, generated, queries };
  } finally {
    await dispatcher.close();
    await stack.stop();
  }
}
