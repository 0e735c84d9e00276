import { join } from 'node:path';
import pg from 'pg';
import { prepareScaleDatabase } from '../scale/generate.ts';
import type { GenerateReport } from '../scale/tables.ts';
import type { BenchPostgres } from './postgres.ts';
import type { BenchDb } from './stack.ts';

const DATA = join(import.meta.dirname, '..', '.data');

/**
 * The data sets, each generated once and kept (PostgreSQL databases on the bench server, PGlite
 * directories under bench/.data/): `small` (1 000 users and bicycles: SSR, overhead, refresh storm,
 * Lighthouse, so a list page's count does not dominate what they measure), `k100` (100 000 bicycles:
 * export), `scale` (1M users, 1M bicycles, 2 000 buddies, 2M services, 200k subscriptions, 100k promo-code
 * uses: data scale, dashboard, 1M export).
 */
export const DATA_SETS = {
  small: { users: 1_000, bicycles: 1_000, buddies: 10, services: 2_000, promo_codes: 0, promo_code_uses: 0, subscriptions: 0 },
  k100: { users: 100_000, bicycles: 100_000, buddies: 0, services: 0, promo_codes: 0, promo_code_uses: 0, subscriptions: 0 },
  scale: { users: 1_000_000, bicycles: 1_000_000, buddies: 2_000, services: 2_000_000, promo_codes: 50, promo_code_uses: 100_000, subscriptions: 200_000 },
} as const;
export type DataSet = keyof typeof DATA_SETS;

const databaseName = (set: DataSet) => (set === 'scale' ? 'bench' : `bench_${set}`);

async function ensurePgDatabase(serverUrl: string, name: string) {
  const admin = new pg.Client({ connectionString: serverUrl.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (rows.length === 0) await admin.query(`create database ${name}`);
  await admin.end();
}

export async function prepareDataSet(set: DataSet, where: { postgres: BenchPostgres } | 'pglite', log: (line: string) => void): Promise<{ db: BenchDb; report: GenerateReport[] }> {
  if (where === 'pglite') {
    const dir = join(DATA, `pglite-${set}`);
    const report = await prepareScaleDatabase({ dataDir: dir }, log, DATA_SETS[set]);
    return { db: { kind: 'pglite', dir }, report };
  }
  const name = databaseName(set);
  await ensurePgDatabase(where.postgres.url, name);
  const url = where.postgres.url.replace(/\/[^/]*$/, `/${name}`);
  const report = await prepareScaleDatabase({ databaseUrl: url }, log, DATA_SETS[set]);
  return { db: { kind: 'postgres', url }, report };
}
