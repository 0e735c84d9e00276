import type { Db } from '../../upstream/db.ts';
import type { StatementPlan } from '../data-scale.ts';

interface Captured {
  sql: string;
  params: unknown[];
}

type QueryMethod = (this: unknown, query: unknown, values?: unknown, ...rest: unknown[]) => unknown;

/** The plan nodes' index names and sequentially read tables, walking the JSON plan. */
function walk(node: Record<string, unknown>, into: { indexes: Set<string>; seqScans: Set<string> }) {
  if (typeof node['Index Name'] === 'string') into.indexes.add(node['Index Name']);
  if (node['Node Type'] === 'Seq Scan' && typeof node['Relation Name'] === 'string') into.seqScans.add(node['Relation Name']);
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child, into);
}

/**
 * Records the read statements the API runs while capturing is on (the bench's own process patches the
 * drivers' `query` methods: nothing in the API changes), then explains each with ANALYZE on the API's
 * database, so the data-scale table can show which index answered every query a list screen sends.
 */
export function capturingQueries(prototypes: object[]) {
  let on = false;
  const captured: Captured[] = [];
  for (const proto of prototypes) {
    const target = proto as { query: QueryMethod };
    const original = target.query;
    target.query = function (this: unknown, query: unknown, values?: unknown, ...rest: unknown[]) {
      if (on) {
        const sql = typeof query === 'string' ? query : (query as { text?: string } | null)?.text;
        const params = Array.isArray(values) ? values : ((query as { values?: unknown[] } | null)?.values ?? []);
        if (sql && /^\s*(select|with)\b/i.test(sql)) captured.push({ sql, params });
      }
      return original.call(this, query, values, ...rest);
    };
  }
  return {
    capture(value: boolean) {
      if (value) captured.length = 0;
      on = value;
      return value;
    },
    async explain(db: Db): Promise<StatementPlan[]> {
      const statements = captured.splice(0);
      const plans: StatementPlan[] = [];
      for (const { sql, params } of statements) {
        const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${sql}`, params);
        const raw = rows[0]?.['QUERY PLAN'];
        const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: Record<string, unknown>; 'Execution Time': number }];
        const found = { indexes: new Set<string>(), seqScans: new Set<string>() };
        walk(doc[0].Plan, found);
        plans.push({
          sql: sql.replace(/\s+/g, ' ').trim().slice(0, 160),
          ms: Number(doc[0]['Execution Time'].toFixed(2)),
          indexes: [...found.indexes],
          seqScans: [...found.seqScans],
        });
      }
      return plans;
    },
  };
}
