import { sqlOf } from '../../upstream/resources/entity-sql-parts.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { openMigrated } from '../support/pglite-template.ts';
import { recordChange, verifyChain } from '../../upstream/lib/audit.ts';
import { pruneHistory } from '../../upstream/lib/audit-retention.ts';
import { countRows, countUpTo, estimateRows } from '../../upstream/lib/count.ts';
import {
  cheapestPart,
  containsPattern,
  cursorFits,
  decodeCursor,
  encodeCursor,
  forgetColumnSamples,
  isKeysetColumn,
  isNullableColumn,
  listOrder,
  listPage,
  pageQuery,
} from '../../upstream/lib/page-query.ts';
import { searchClause, searchForms, withoutTrigram } from '../../upstream/resources/entity-search.ts';
import { assetsEntity } from '../../shared/entities/assets.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { servicesEntity } from '../../shared/entities/services.ts';
import { usersEntity } from '../../shared/entities/users.ts';
import { ENTITIES } from '../../shared/entities/registry.ts';
import { labelSearchFields, type EntityDef } from '../../shared/entity/define.ts';
import { upstreamReadScopes } from '../../shared/entity/access-roles.ts';
import { handEntityCatalogue } from '../../upstream/lib/entity-catalogue.ts';

/**
 * What needs a database of its own, sharing one (a fresh PGlite's migrations take seconds): the change history's
 * retention (ADR 038, an empty history to start from), and the lists' count threshold (ADR 040): exact up to
 * it, beyond it the planner's estimate, said to be one.
 */
let db: Db;
beforeAll(async () => {
  // The search planner reads references through the catalogue the API's start-up hands it (ADR 073).
  handEntityCatalogue({ entities: ENTITIES as readonly EntityDef[], readScopes: upstreamReadScopes });
  db = await openMigrated();
  await db.exec(`insert into assets (name, asset_type, status) select 'Count asset ' || g, case when g <= 3 then 'van' else 'cargo_bike' end, 1 from generate_series(1, 60) g`);
  // Every third asset has no inspection date: the nullable column the page order must put last both ways.
  await db.exec("update assets set next_inspection = date '2027-01-01' + (id % 17)::int where id % 3 <> 0");
  await db.exec('analyze assets');
});
afterAll(async () => db?.close());

describe('countRows', () => {
  it('counts exactly up to the threshold, the threshold itself included', async () => {
    expect(await countRows(db, "from assets t where t.asset_type = 'van'", [], 10)).toEqual({ count: 3, estimated: false });
    expect(await countRows(db, 'from assets t where t.asset_type = $1', ['cargo_bike'], 57)).toEqual({ count: 57, estimated: false });
  });

  it('past the threshold answers an estimate, labelled as one, never below what it counted', async () => {
    const over = await countRows(db, 'from assets t where t.asset_type = $1', ['cargo_bike'], 10);
    expect(over.estimated).toBe(true);
    expect(over.count).toBeGreaterThan(10);
    // After ANALYZE the planner knows the table: the estimate is close to the truth (57).
    expect(over.count).toBeGreaterThanOrEqual(40);
    expect(over.count).toBeLessThanOrEqual(80);
  });
  it('counts exactly where an estimate would be unsure, and estimates within 10 % past that (issue 33, ADR 066)', async () => {
    // A table as the change history is on PGlite: never analysed (no autovacuum), wide rows, 10 133 of them.
    await db.exec('create table count_probe (id bigserial primary key, at timestamptz not null default now(), changes jsonb not null)');
    await db.exec(`insert into count_probe (changes) select jsonb_build_object('notes', jsonb_build_array(null, repeat('x', 200))) from generate_series(1, 10133)`);
    try {
      // The planner's guess from the table's pages alone is far off: what the Activity page said "about 18,000" from.
      expect(await countRows(db, 'from count_probe t', [], 10_000)).toEqual({ count: 10_133, estimated: false });
      // The estimate, once shown, is above what is counted exactly, and within 10 % of the truth.
      await db.exec(`insert into count_probe (changes) select jsonb_build_object('notes', jsonb_build_array(null, repeat('x', 200))) from generate_series(1, 49867)`);
      const over = await countRows(db, 'from count_probe t', [], 10_000);
      expect(over.estimated).toBe(true);
      expect(over.count).toBeGreaterThan(50_000);
      expect(Math.abs(over.count - 60_000) / 60_000).toBeLessThanOrEqual(0.1);
      // A filter the estimate says is small is counted, however stale the statistics.
      expect(await countRows(db, 'from count_probe t where t.id > $1', [60_000 - 12_000], 10_000)).toEqual({ count: 12_000, estimated: false });
    } finally {
      await db.exec('drop table count_probe');
    }
  }, 60_000);
});

describe('list pages (issue 22, ADR 047)', () => {
  const def = assetsEntity as EntityDef;
  /** The plan of a page's id query with sequential scans priced out: a Sort node means the order cannot be read from an index. */
  async function sorts(order: string): Promise<boolean> {
    await db.exec('set enable_seqscan = off');
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain select t.id from assets t order by ${order} limit 26`);
      return rows.some((row) => /\bSort\b/.test(row['QUERY PLAN']));
    } finally {
      await db.exec('set enable_seqscan = on');
    }
  }

  it('orders a column without NULLs so that its index is read (backwards for a descending sort), and says "nulls last" only where NULLs can be', async () => {
    expect(isNullableColumn(def, 'id')).toBe(false);
    expect(isNullableColumn(def, 'status')).toBe(false);
    expect(isNullableColumn(def, 'next_inspection')).toBe(true);
    expect(listOrder('t', 'id', true, false)).toBe('t.id desc, t.id desc');
    expect(await sorts(listOrder('t', 'id', true, false))).toBe(false);
    // What the lists sent before: the same order with "nulls last" needs a sort of the whole table.
    expect(await sorts('t.id desc nulls last, t.id desc')).toBe(true);
  });

  it('pages through a nullable column both ways: every row once, empty values last', async () => {
    const select = 'select t.id, t.next_inspection::text as next_inspection from assets t';
    for (const desc of [false, true]) {
      const seen: { id: number; next_inspection: string | null }[] = [];
      for (let page = 0; page < 7; page++) {
        const { rows } = await db.query<{ id: number; next_inspection: string | null }>(
          pageQuery({ select, from: 'assets t', alias: 't', where: '', column: 'next_inspection', desc, nullable: true, limit: 10, offset: page * 10 }),
        );
        seen.push(...rows);
      }
      expect(new Set(seen.map((r) => r.id)).size).toBe(60);
      expect(seen).toHaveLength(60);
      const dates = seen.map((r) => r.next_inspection);
      const firstEmpty = dates.indexOf(null);
      expect(firstEmpty).toBe(40);
      const filled = dates.slice(0, firstEmpty) as string[];
      expect(filled).toEqual([...filled].sort((a, b) => (desc ? b.localeCompare(a) : a.localeCompare(b))));
    }
  });

  // ADR 056: sorted descending, a nullable column's page sorted every row (the users by first name: 0.4 s at 1M).
  it("reads a nullable column's descending page from its index, the rows with a value backwards, then the empty ones", async () => {
    const shape = { select: 'select t.id from assets t', from: 'assets t', alias: 't', column: 'next_inspection', desc: true, nullable: true, limit: 10 };
    // Sixty rows are cheaper to sort than to read in order: with the other ways priced out, a plan keeps a sort
    // only where no index gives the order.
    const plan = async (sql: string, params: unknown[]) => {
      await db.exec('set enable_seqscan = off; set enable_bitmapscan = off; set enable_sort = off');
      try {
        const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, params);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await db.exec('set enable_seqscan = on; set enable_bitmapscan = on; set enable_sort = on');
      }
    };
    for (const where of ['', ' where t.asset_type = $1']) {
      const params = where ? ['van'] : [];
      const read = await plan(pageQuery({ ...shape, where, offset: 20 }), params);
      expect(read).toMatch(/Index (Only )?Scan Backward using assets_next_inspection_idx[^\n]*\n\s*Index Cond: \(next_inspection IS NOT NULL\)/);
      expect(read).toMatch(/Index (Only )?Scan Backward using assets_next_inspection_idx[^\n]*\n\s*Index Cond: \(next_inspection IS NULL\)/);
      // Each part is read in its order: what is sorted is the page's rows, never a part's.
      expect(read).not.toMatch(/Sort Key: t_\d+\.next_inspection DESC, t_\d+\.id DESC$/m);
      // The plain ORDER BY sorts the table's rows.
      expect(await plan(`select t.id from assets t${where} order by t.next_inspection desc nulls last, t.id desc limit 10 offset 20`, params)).toMatch(
        /Sort Key: (t\.)?next_inspection DESC NULLS LAST, (t\.)?id DESC\n\s*->\s*(Seq|Index|Index Only) Scan/,
      );
    }
    // The same rows in the same order as a plain ORDER BY, filtered or not, on every page.
    for (const [where, params] of [
      ['', []],
      [' where t.asset_type = $1', ['cargo_bike']],
    ] as const) {
      for (const offset of [0, 10, 35, 50, 70]) {
        const { rows: split } = await db.query<{ id: number }>(pageQuery({ ...shape, where, offset }), [...params]);
        const { rows: plain } = await db.query<{ id: number }>(
          `select t.id from assets t${where} order by t.next_inspection desc nulls last, t.id desc limit 10 offset ${offset}`,
          [...params],
        );
        expect(split.map((r) => Number(r.id))).toEqual(plain.map((r) => Number(r.id)));
      }
    }
  });

  it('reads the same page whether the filter matches few rows (filtered first, then sorted) or many (read in index order)', async () => {
    const base = { select: 'select t.id, t.status from assets t', from: 'assets t', alias: 't', column: 'status', desc: true, nullable: false, limit: 11 };
    const where = { where: ' where t.asset_type = $1', params: ['cargo_bike'] };
    // Past the last page too: the few-matches way reads its count with its rows (ADR 052), and an empty page
    // still has it.
    for (const offset of [0, 10, 50, 57, 100]) {
      const few = await listPage<{ id: number }>(db, { ...base, ...where, offset, exactUpTo: 1000 });
      const many = await listPage<{ id: number }>(db, { ...base, ...where, offset, exactUpTo: 10 });
      expect(few).toMatchObject({ count: 57, estimated: false });
      expect(many.estimated).toBe(true);
      expect(many.rows.map((r) => r.id)).toEqual(few.rows.map((r) => r.id));
      expect(few.rows).toHaveLength(Math.max(0, Math.min(11, 57 - offset)));
      // The count rides on the rows and is taken off them.
      for (const row of few.rows) expect(Object.keys(row).sort()).toEqual(['id', 'status']);
    }
    expect(await listPage(db, { ...base, where: ' where t.asset_type = $1', params: ['none'], offset: 0, exactUpTo: 1000 })).toEqual({ rows: [], count: 0, estimated: false });
  });

  it('falls back to the index order when the planner expected fewer matches than there are', async () => {
    // The planner guesses a handful of rows for a LIKE on an unindexed column; all 60 match.
    const q = {
      select: 'select t.id from assets t',
      from: 'assets t',
      alias: 't',
      where: ' where t.name like $1',
      params: ['%asset%'],
      column: 'id',
      desc: true,
      nullable: false,
      limit: 5,
      offset: 0,
    };
    expect(await estimateRows(db, 'from assets t where t.name like $1', ['%asset%'])).toBeLessThanOrEqual(40);
    const under = await listPage<{ id: number }>(db, { ...q, exactUpTo: 40 });
    expect(under.estimated).toBe(true);
    expect(under.count).toBeGreaterThan(40);
    const all = await listPage<{ id: number }>(db, { ...q, exactUpTo: 1000 });
    expect(all).toMatchObject({ count: 60, estimated: false });
    expect(under.rows.map((r) => r.id)).toEqual(all.rows.map((r) => r.id));
  });
});

describe('keyset pages (issue 22, ADR 051)', () => {
  const def = assetsEntity as EntityDef;
  const base = {
    select: 'select t.id, t.status, t.name from assets t',
    from: 'assets t',
    alias: 't',
    where: '',
    params: [] as unknown[],
    nullable: false,
    limit: 7,
    exactUpTo: 10,
  };

  it('pages from the cursor of the page before exactly as by offset: the id and a column of ties, both ways', async () => {
    for (const column of ['id', 'status', 'name']) {
      for (const desc of [false, true]) {
        const byOffset: number[] = [];
        const byCursor: number[] = [];
        let after: ReturnType<typeof decodeCursor> = null;
        for (let page = 0; page < 9; page++) {
          const q = { ...base, column, desc, offset: page * 7 };
          byOffset.push(...(await listPage<{ id: number }>(db, q)).rows.map((r) => r.id));
          const { rows, estimated }: { rows: Record<string, unknown>[]; estimated: boolean } = await listPage<Record<string, unknown>>(db, { ...q, after });
          expect(estimated, 'the many-rows way, where pages are read in index order').toBe(true);
          byCursor.push(...rows.map((r: Record<string, unknown>) => Number(r.id)));
          after = rows.length ? decodeCursor(encodeCursor(rows[rows.length - 1]!, column)) : null;
        }
        expect(byCursor, `${desc ? '-' : ''}${column}`).toEqual(byOffset);
        expect(new Set(byCursor).size).toBe(60);
      }
    }
  });

  it('seeks in the index from a cursor instead of reading the rows before it', async () => {
    const cursor = decodeCursor(encodeCursor({ id: 20, name: 'Count asset 20' }, 'id'))!;
    expect(cursor).toEqual({ value: 20, id: 20 });
    // Sixty rows would be read whole: as on a large table, the planner is kept to reading an index in order.
    await db.exec('set enable_seqscan = off; set enable_bitmapscan = off; set enable_sort = off');
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>('explain select t.id from assets t where t.id < $1 order by t.id desc limit 26', [cursor.id]);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Index (Only )?Scan Backward using assets_pkey/);
      expect(plan).toMatch(/Index Cond: \(id < /);
      expect(plan).not.toMatch(/\bSort\b/);
    } finally {
      await db.exec('set enable_seqscan = on; set enable_bitmapscan = on; set enable_sort = on');
    }
  });

  it('pages by cursor only where the values come back exactly and are never empty; anything else is not a cursor', () => {
    expect(isKeysetColumn(def, 'id')).toBe(true);
    expect(isKeysetColumn(def, 'status')).toBe(true);
    expect(isKeysetColumn(def, 'next_inspection')).toBe(false);
    expect(isKeysetColumn(def, 'created_at')).toBe(false);
    // A cursor's value must be one of the column's: the client's text is never cast blindly.
    expect(cursorFits(def, 'status', { value: 2, id: 4 })).toBe(true);
    expect(cursorFits(def, 'status', { value: 'two', id: 4 })).toBe(false);
    expect(cursorFits(def, 'name', { value: 'Count asset 3', id: 3 })).toBe(true);
    expect(cursorFits(def, 'name', { value: 3, id: 3 })).toBe(false);
    for (const junk of ['', 'abc', Buffer.from('[1]').toString('base64url'), Buffer.from('["x", -1]').toString('base64url'), Buffer.from('[{"a":1}, 3]').toString('base64url')])
      expect(decodeCursor(junk), junk).toBeNull();
  });
});

describe('searches of values that repeat, and of labels by their fields (ADR 050)', () => {
  const bicycles = bicyclesEntity as EntityDef;
  const services = servicesEntity as EntityDef;
  const MODELS = ['Canyon Grail 7', 'Canyon Grail 8', 'Trek FX 3', 'Crescent Elis 7', 'Bike_100%'];
  beforeAll(async () => {
    await db.exec(
      `insert into users (email, first_name, last_name) values ('anna.andersson4352@example.com', 'Anna', 'Andersson'), ('karl.grail@example.com', 'Karl', 'Svensson')`,
    );
    await db.exec(`insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, insurance_company, owner_id)
      select (array['${MODELS.join("','")}'])[1 + g % ${MODELS.length}], 'SN-' || g || case when g = 7 then ' grail 7' else '' end, 'x', 'x', 'x', 'x', 'x', 'x', 'presta', 'ok', date '2024-01-01' + g,
             case when g % 3 = 0 then 'Folksam' when g % 3 = 1 then null else 'If' end, (select id from users where email = case when g % 2 = 0 then 'karl.grail@example.com' else 'anna.andersson4352@example.com' end)
        from generate_series(1, 40) g`);
    await db.exec(`insert into service_slots (name, start_time, end_time) values ('Morning', '08:00', '12:00')`);
    await db.exec(`insert into services (service_date, service_slot_id, buddy_id, bicycle_id, owner_id, origin_type, latitude, longitude, address, notes)
      select date '2026-01-01' + g, (select min(id) from service_slots), (select min(id) from users), b.id, b.owner_id, 'b2b', 59.3, 18.0,
             (array['Hornsgatan 17, Stockholm', 'Hornsgatan 170, Stockholm', 'Ringvägen 7, Stockholm', null])[1 + g % 4], case when g % 5 = 0 then 'Grail 7 (front)' end
        from generate_series(1, 80) g join bicycles b on b.id = (select min(id) from bicycles) + g % 40`);
    await db.exec('analyze bicycles; analyze services; analyze users');
  });

  /** The ids a search finds through the engine, and through the plain contains-search it stands for. */
  async function both(def: EntityDef, search: string, plain: string[], options: { wideAbove?: number } = {}) {
    const params: unknown[] = [];
    const clause = await searchClause(db, def, search, 'en', params, options);
    const engine = await db.query<{ id: number }>(`select t.id from ${def.table} t where ${clause} order by t.id`, params);
    const like = await db.query<{ id: number }>(`select t.id from ${def.table} t where ${plain.map((c) => `coalesce(${c} like $1, false)`).join(' or ')} order by t.id`, [
      containsPattern(search),
    ]);
    return { clause, engine: engine.rows.map((r) => Number(r.id)), plain: like.rows.map((r) => Number(r.id)) };
  }
  const OWNER_EMAIL = '(select lower(r.email) from users r where r.id = t.owner_id)';
  const BICYCLE_LABEL = "(select lower(r.brand_and_model || ' (' || r.serial_number || ')') from bicycles r where r.id = t.bicycle_id)";
  const OWNER_NAME = "(select lower(coalesce(nullif(trim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), ''), r.email)) from users r where r.id = t.owner_id)";

  it('keeps each value once as a term, from the rows written and the rows changed', async () => {
    const terms = async (source: string) => (await db.query<{ term: string }>('select term from search_terms where source = $1 order by term', [source])).rows.map((r) => r.term);
    expect(await terms('bicycles.brand_and_model')).toEqual(MODELS.map((m) => m.toLowerCase()).sort());
    expect(await terms('bicycles.insurance_company')).toEqual(['folksam', 'if']);
    expect(await terms('services.address')).toEqual(['hornsgatan 17, stockholm', 'hornsgatan 170, stockholm', 'ringvägen 7, stockholm']);
    expect(await terms('users.full_name')).toEqual(expect.arrayContaining(['anna andersson', 'karl svensson']));
    await db.exec(`update bicycles set brand_and_model = 'Canyon Endurace 9' where id = (select max(id) from bicycles)`);
    expect(await terms('bicycles.brand_and_model')).toContain('canyon endurace 9');
    // Every field declared so has its b-tree on the lowered column, which the search reads.
    const declared = ENTITIES.flatMap((e) =>
      Object.entries(e.fields)
        .filter(([, f]) => (f as { valuesRepeat?: boolean }).valuesRepeat)
        .map(([k]) => [e.table, k] as const),
    );
    expect(declared.length).toBeGreaterThanOrEqual(3);
    for (const [table, key] of declared) {
      const { rows } = await db.query<{ d: string }>('select indexdef as d from pg_indexes where tablename = $1', [table]);
      expect(rows.map((r) => r.d)).toContainEqual(expect.stringMatching(new RegExp(`USING btree \\(lower\\(${key}\\)\\)`)));
    }
    // A search expression (ADR 056) too: its terms are kept (without them `fewTerms` would make its condition
    // `= any('{}')`, finding nothing), and its lowered SQL has a b-tree — and a bigram index when `shortSearch`.
    const expressions = ENTITIES.flatMap((e) =>
      Object.entries(e.searchExpressions ?? {}).map(([key, x]) => ({ table: e.table, key, ...x, sql: sqlOf(e.name).searchExpressions![key]! })),
    );
    expect(expressions.map((x) => `${x.table}.${x.key}`)).toContain('users.full_name');
    await db.exec('set enable_seqscan = off; set enable_bitmapscan = off');
    try {
      for (const x of expressions) {
        if (x.valuesRepeat) {
          const { rows } = await db.query('select 1 from search_terms where source = $1 limit 1', [`${x.table}.${x.key}`]);
          expect(rows, `${x.table}.${x.key} terms`).toHaveLength(1);
          const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`explain select 1 from ${x.table} t where lower(${x.sql}) = any($1::text[])`, [['x']]);
          expect(plan.map((r) => r['QUERY PLAN']).join('\n'), `${x.table}.${x.key} b-tree`).toMatch(/Index (Only )?Scan using \w+ on/);
        }
        if (x.shortSearch) {
          await db.exec('set enable_bitmapscan = on');
          const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`explain select 1 from ${x.table} t where search_bigrams(lower(${x.sql})) @> '{zq}'`);
          expect(plan.map((r) => r['QUERY PLAN']).join('\n'), `${x.table}.${x.key} bigrams`).toMatch(/Bitmap Index Scan on \w+_bigrams/);
          await db.exec('set enable_bitmapscan = off');
        }
      }
    } finally {
      await db.exec('set enable_seqscan = on; set enable_bitmapscan = on');
    }
  });

  it.each(['grail 7', 'GRAIL', 'canyon grail 7', 'sn-7', '7 (', 'l 7 (sn', ') ', 'bike_1', '100%', 'folk', 'anna.andersson4352', 'anna andersson', 'nothing at all'])(
    'a bicycles search finds the rows a plain contains-search finds: %s',
    async (search) => {
      const { engine, plain } = await both(bicycles, search, ['lower(t.brand_and_model)', 'lower(t.serial_number)', OWNER_EMAIL, 'lower(t.insurance_company)']);
      expect(engine).toEqual(plain);
      expect(engine.length > 0).toBe(!['7 (', 'l 7 (sn', ') ', 'anna andersson', 'nothing at all'].includes(search));
    },
  );

  it.each(['hornsgatan 17', 'HORNSGATAN', 'grail 7', 'grail 7 (', 'fx 3 (sn-7', 'sn-7 grail', 'sn-12)', 'anna', 'anna andersson', 'svensson', 'ringvägen'])(
    'a services search (its bicycle by label, its owner by name) finds the rows a plain contains-search finds: %s',
    async (search) => {
      const { engine, plain } = await both(services, search, [BICYCLE_LABEL, OWNER_NAME, 'lower(t.address)', 'lower(t.notes)']);
      expect(engine).toEqual(plain);
      expect(engine.length).toBeGreaterThan(0);
    },
  );

  // ADR 052: "a" over 2M services listed ~900 000 bicycle ids in an array, checked one by one for each row (past
  // the 15 s statement timeout). A reference matching many records is asked per row, through its primary key.
  it.each(['a', 'e', 'an', 'ab', 'zq', 'grail 7', 'grail 7 (', 'anna', 'anna andersson', 'hornsgatan 17', 'sn-1'])(
    'a services search of a reference matching many records asks each row its own, and finds the same rows: %s',
    async (search) => {
      const { clause, engine, plain } = await both(services, search, [BICYCLE_LABEL, OWNER_NAME, 'lower(t.address)', 'lower(t.notes)'], { wideAbove: -1 });
      expect(engine).toEqual(plain);
      expect(clause).not.toContain('any(array(');
      expect(clause).toContain('from bicycles r where r.id = t.bicycle_id)');
      // The row's own columns are tried first, the referenced records after.
      expect(clause.indexOf('t.address')).toBeLessThan(clause.indexOf('bicycles r'));
      const ofBicycles = await both(bicycles, search, ['lower(t.brand_and_model)', 'lower(t.serial_number)', OWNER_EMAIL, 'lower(t.insurance_company)'], { wideAbove: -1 });
      expect(ofBicycles.engine).toEqual(ofBicycles.plain);
    },
  );

  it('asks per row only the references whose sample says they match many records, and never hashes them all first', async () => {
    forgetColumnSamples();
    // 40 bicycles, each holding an "a" in its model or serial number…
    const few = await both(services, 'canyon grail 7', [BICYCLE_LABEL], { wideAbove: 10 });
    expect(few.clause).toContain('t.bicycle_id = any(array(');
    const many = await both(services, 'a', [BICYCLE_LABEL], { wideAbove: 10 });
    expect(many.clause).toContain('from bicycles r where r.id = t.bicycle_id)');
    // The default bound: nothing in this small data set is that wide.
    expect((await both(services, 'a', [BICYCLE_LABEL])).clause).toContain('t.bicycle_id = any(array(');
    const params: unknown[] = [];
    const clause = await searchClause(db, services, 'a', 'en', params, { wideAbove: -1 });
    const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain select 1 from services t where ${clause} limit 10`, params);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/SubPlan/);
    expect(plan).not.toMatch(/hashed SubPlan|InitPlan/);
  });

  it('splits a label only where the text cannot meet its separators, and reads repeated values by their terms', async () => {
    expect(labelSearchFields('{brand_and_model} ({serial_number})', 'canyon grail 7')).toEqual(['brand_and_model', 'serial_number']);
    for (const search of ['grail 7 (', 'sn-1)', ' grail', 'grail ', '']) expect(labelSearchFields('{brand_and_model} ({serial_number})', search)).toBeUndefined();
    // A separator of white space alone: "anna andersson" may span first and last name.
    expect(labelSearchFields('{first_name} {last_name}', 'anna')).toBeUndefined();
    expect(labelSearchFields('{email}', 'anna andersson')).toEqual(['email']);
    const { clause } = await both(services, 'canyon grail 7', [BICYCLE_LABEL]);
    expect(clause).toContain('lower(r.brand_and_model) = any(');
    expect(clause).toContain('lower(t.address) = any(');
    // An e-mail holds no space: a search with one does not look for it (the bicycles' owner label).
    expect((await both(bicycles, 'anna andersson', [OWNER_EMAIL])).clause).not.toContain('users');
    expect((await both(bicycles, 'anna.andersson', [OWNER_EMAIL])).clause).toContain('lower(r.email) like');
  });

  it('asks a trigram index with the rare part of a text whose other trigrams are common, and keeps the same rows', async () => {
    const emails = ['alice.andersson101132@telia.se', 'anna.eriksson52615@example.com', 'karl.nilsson7710@gmail.com', 'freja.olsson2@example.com'];
    expect(cheapestPart('anna.andersson4352', emails)).toBe('on4352');
    // Nothing common in it, or no rare run of five or more: the whole text.
    expect(cheapestPart('4f3a9', emails)).toBeUndefined();
    expect(cheapestPart('andersson', emails)).toBeUndefined();
    expect(cheapestPart('anna.andersson4352', [])).toBeUndefined();
    // The users' statistics are the sample: e-mails where "and", "son"… are common.
    // (So many sorting before and after the owners' that the histogram's bounds do not hold theirs.)
    await db.exec(`insert into users (email) select case when g <= 150 then 'a' else 'b' end || g || '.andersson@example.com' from generate_series(1, 400) g`);
    await db.exec('analyze users');
    forgetColumnSamples();
    for (const search of ['anna.andersson4352', 'andersson4352@example', 'son4352', 'karl.grail']) {
      const { engine, plain } = await both(bicycles, search, [OWNER_EMAIL]);
      expect(engine).toEqual(plain);
      expect(engine.length).toBeGreaterThan(0);
    }
    expect((await both(bicycles, 'anna.andersson4352', [OWNER_EMAIL])).clause).toMatch(/like \$\d+ and strpos\(lower\(r\.email\)/);
  });

  // ADR 054: listing the ids of a reference's records holding a text of two letters reads the referenced table whole
  // (no trigram index serves it: 1 s for the users' names at 1M, for an empty array), where a page walked in its
  // order meets its page after a few hundred rows. That walk asks every reference per row; the estimate and the
  // few-matches way keep the arrays.
  it.each(['a', 'ab', 'sn', 'zq', '7', 'a 7', 'grail 7', 'anna', 'hornsgatan'])(
    'a page walked in its order finds the same rows, every reference asked per row for a text without trigram: %s',
    async (search) => {
      forgetColumnSamples();
      const params: unknown[] = [];
      const forms = await searchForms(db, services, search, 'en', params);
      const ids = async (clause: string) => (await db.query<{ id: number }>(`select t.id from services t where ${clause} order by t.id`, params)).rows.map((r) => Number(r.id));
      const like = await both(services, search, [BICYCLE_LABEL, OWNER_NAME, 'lower(t.address)', 'lower(t.notes)']);
      expect(await ids(forms.sql)).toEqual(like.plain);
      expect(await ids(forms.walk)).toEqual(like.plain);
      if (withoutTrigram(search)) {
        expect(forms.walk).not.toContain('any(array(');
        expect(forms.walk).toContain('from users r where r.id = t.owner_id)');
        expect(forms.walk).toContain('from bicycles r where r.id = t.bicycle_id)');
        // Nothing in this small data set is wide: the form the planner estimates still lists the ids.
        expect(forms.sql).toContain('t.owner_id = any(array(');
        // Row by row a value's pairs are not computed: the text is found in it (ADR 054); the index's form keeps them.
        if ([...search].length >= 2) {
          expect(forms.sql).toContain('search_bigrams(lower(t.notes))');
          expect(forms.walk).not.toContain('search_bigrams');
          expect(forms.walk).toContain('strpos(lower(t.notes), $');
        }
      } else expect(forms.walk).toBe(forms.sql);
    },
  );

  it('asks per row, on a walked page, a reference expected to match more records than a walk should check id by id', async () => {
    forgetColumnSamples();
    for (const [search, table, key] of [
      ['grail', 'bicycles', 'bicycle_id'],
      ['sn-1', 'bicycles', 'bicycle_id'],
      ['anna', 'users', 'owner_id'],
    ] as const) {
      const params: unknown[] = [];
      const forms = await searchForms(db, services, search, 'en', params, { walkArrayAbove: 0 });
      // The reference whose sample holds the text is expected above a bound of nothing: asked per row on the walk;
      // the estimated form keeps its array.
      expect(forms.walk, search).not.toContain(`t.${key} = any(array(`);
      expect(forms.walk, search).toContain(`from ${table} r where r.id = t.${key})`);
      expect(forms.sql, search).toContain(`t.${key} = any(array(`);
      const ids = async (clause: string) => (await db.query<{ id: number }>(`select t.id from services t where ${clause} order by t.id`, params)).rows.map((r) => Number(r.id));
      expect(await ids(forms.walk)).toEqual(await ids(forms.sql));
    }
  });

  // ADR 054: "zq" over 2M services read 1M bicycles' serial numbers, 1M users' names and 200 000 notes to find
  // nothing (2–3 s): no trigram index serves two characters. A bigram index does.
  it.each(['zq', 'sn', 'an', 'N-', '-1', 'a 7', ' 7', 'ö'])('a text too short for a trigram is found through the bigram indexes, with the same rows: %s', async (search) => {
    forgetColumnSamples();
    const ofServices = await both(services, search, [BICYCLE_LABEL, OWNER_NAME, 'lower(t.address)', 'lower(t.notes)']);
    expect(ofServices.engine).toEqual(ofServices.plain);
    const ofBicycles = await both(bicycles, search, ['lower(t.brand_and_model)', 'lower(t.serial_number)', OWNER_EMAIL, 'lower(t.insurance_company)']);
    expect(ofBicycles.engine).toEqual(ofBicycles.plain);
    if ([...search].length >= 2) {
      expect(ofServices.clause).toContain('search_bigrams(lower(t.notes)) @> search_bigrams($');
      expect(ofServices.clause).toContain("search_bigrams(lower(coalesce(nullif(trim(coalesce(r.first_name, '')");
      // The bicycle's label is split into its fields only for a text without white space at its ends (ADR 050).
      if (search.trim() === search) expect(ofServices.clause).toContain('search_bigrams(lower(r.serial_number))');
      if (!/\s/.test(search)) expect(ofBicycles.clause).toContain('search_bigrams(lower(r.email))');
    } else expect(ofServices.clause).not.toContain('search_bigrams');
  });

  // ADR 056: the users list is searched by the engine, as its definition declares (the e-mail, the phone number,
  // and the full name, an expression over two columns): "ab" had read every user (0.5-0.7 s at 1M).
  it.each(['ab', 'zq', 'an', '12', '+4', ' a', 'anna', 'anna andersson', 'son', 'a s', 'ÅS', '555-0'])(
    "the users' search finds the rows of the plain contains-search over e-mail, phone number and full name: %s",
    async (search) => {
      const { rows: added } = await db.query<{ id: number }>(
        `insert into users (email, first_name, last_name, phone_number)
         select e, f, l, p from unnest($1::text[], $2::text[], $3::text[], $4::text[]) x(e, f, l, p) returning id`,
        [
          ['zq.user@example.com', 'nophone@example.com', 'ab.only@example.com', 'noname@example.com', 'lastonly@example.com', 'upper@example.com'],
          ['Åsa', 'Anna', null, null, null, 'Lasse'],
          ['Söderberg', 'Andersson', null, null, 'Svensson', 'Öberg'],
          ['+46 70 123 45 67', null, '555-0123', '0701234567', '+44 20 7946 0958', 'EXT 12'],
        ],
      );
      try {
        await db.exec('analyze users');
        forgetColumnSamples();
        const users = usersEntity as EntityDef;
        const { clause, engine, plain } = await both(users, search, [
          'lower(t.email)',
          'lower(t.phone_number)',
          "lower(coalesce(t.first_name, '') || ' ' || coalesce(t.last_name, ''))",
        ]);
        expect(engine).toEqual(plain);
        // The full name is read by its terms here (they are few: `fewTerms`); by its bigrams below.
        if (withoutTrigram(search.toLowerCase()) && [...search].length >= 2) expect(clause).toContain('search_bigrams(lower(t.phone_number)) @> search_bigrams($');
      } finally {
        await db.query('delete from users where id = any($1::bigint[])', [added.map((r) => r.id)]);
      }
    },
  );

  it("reads a two-letter users' search from the bigram indexes of the e-mail, the phone number and, past its terms, the full name", async () => {
    // More distinct names holding "qx" than the terms are read by (`fewTerms`): the full name is then searched as a text.
    const { rows: added } = await db.query<{ id: number }>(
      `insert into users (email, first_name, last_name) select 'qx' || g || '@example.com', 'Qx' || g, 'Test' from generate_series(1, 520) g returning id`,
    );
    await db.exec('set enable_seqscan = off');
    try {
      const users = usersEntity as EntityDef;
      const params: unknown[] = [];
      const clause = await searchClause(db, users, 'qx', 'en', params);
      expect(clause).toContain("search_bigrams(lower(coalesce(t.first_name, '') || ' ' || coalesce(t.last_name, ''))) @> search_bigrams($");
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain select 1 from users t where ${clause}`, params);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      for (const index of ['users_email_bigrams', 'users_phone_number_bigrams', 'users_full_name_bigrams']) expect(plan).toContain(index);
      await db.exec('set enable_seqscan = on');
      const { engine, plain } = await both(users, 'qx', ['lower(t.email)', 'lower(t.phone_number)', "lower(coalesce(t.first_name, '') || ' ' || coalesce(t.last_name, ''))"]);
      expect(engine).toHaveLength(520);
      expect(engine).toEqual(plain);
    } finally {
      await db.exec('set enable_seqscan = on');
      await db.query('delete from users where id = any($1::bigint[])', [added.map((r) => r.id)]);
      // The terms stay when their rows go (a term is kept while any row may hold it): these would crowd later searches.
      await db.query("delete from search_terms where source = 'users.full_name' and term like 'qx% test'");
    }
  });

  // A column leading the capped count for a common short text is read by position (ADR 056): the same count.
  it("leads a users count for a common two-letter text by the text's position, and counts the same", async () => {
    const { rows: added } = await db.query<{ id: number }>(`insert into users (email) select 'an' || g || '@example.com' from generate_series(1, 200) g returning id`);
    try {
      await db.exec('analyze users');
      forgetColumnSamples();
      const users = usersEntity as EntityDef;
      const params: unknown[] = [];
      const forms = await searchForms(db, users, 'an', 'en', params, { leadAbove: 5 });
      expect(forms.lead?.sql).toContain('strpos(lower(t.email), $');
      expect(forms.lead?.sql).not.toContain('search_bigrams');
      // A rarer text keeps its index: "zq" is held by no e-mail, so it leads nothing.
      expect((await searchForms(db, users, 'zq', 'en', [], { leadAbove: 5 })).lead).toBeUndefined();
      const base = { select: 'select t.id from users t', from: 'users t', alias: 't', params, column: 'id', desc: true, nullable: false, limit: 26, offset: 0 };
      const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from users t where ${forms.sql}`, params);
      for (const exactUpTo of [5, 1000]) {
        const page = await listPage<{ id: number }>(db, {
          ...base,
          where: ` where ${forms.sql}`,
          walk: ` where ${forms.walk}`,
          lead: { where: ` where ${forms.lead!.sql}`, not: forms.lead!.not },
          exactUpTo,
        });
        if (exactUpTo === 1000) expect(page.count).toBe(rows[0]!.n);
        else expect(page).toMatchObject({ estimated: true });
        expect(rows[0]!.n).toBeGreaterThanOrEqual(200);
      }
    } finally {
      await db.query('delete from users where id = any($1::bigint[])', [added.map((r) => r.id)]);
    }
  });

  // The pairs are taken from the text as the LIKE's pattern has it, lowered by JavaScript: where the database
  // lowers a letter otherwise (a final sigma, 'İ', any non-ASCII letter under a C locale), pairs of its own lowering
  // found other rows than the LIKE ('ΑΣ') or lost one it finds ('ΑΣ 1').
  it.each(['ΑΣ', 'ΑΣ 1', 'ας', 'İx', 'ÅÄ', 'åä'])('a text the database may lower otherwise than JavaScript finds the rows of the plain contains-search: %s', async (search) => {
    const { rows: added } = await db.query<{ id: number }>(
      `insert into services (service_date, service_slot_id, buddy_id, bicycle_id, owner_id, origin_type, latitude, longitude, notes)
       select date '2026-06-01', (select min(id) from service_slots), (select min(id) from users), (select min(id) from bicycles), (select min(id) from users), 'b2b', 59.3, 18.0, n
         from unnest($1::text[]) n returning id`,
      [['xας 1', 'ΑΣΑ', 'İx here', 'Fix', 'ÅÄÖ', 'åäö']],
    );
    try {
      forgetColumnSamples();
      const { clause, engine, plain } = await both(services, search, [BICYCLE_LABEL, OWNER_NAME, 'lower(t.address)', 'lower(t.notes)']);
      expect(clause).toContain('search_bigrams(lower(t.notes)) @> search_bigrams($');
      expect(engine).toEqual(plain);
      // 'xας 1' holds 'ας' under any locale (its letters are already lower case).
      if (['ΑΣ', 'ΑΣ 1', 'ας'].includes(search)) expect(plain).toContain(Number(added[0]!.id));
    } finally {
      await db.query('delete from services where id = any($1::bigint[])', [added.map((r) => r.id)]);
    }
  });

  it("has a bigram index for every field declared shortSearch and for the users' name label, which a two-letter search reads", async () => {
    const declared = ENTITIES.flatMap((e) =>
      Object.entries(e.fields)
        .filter(([, f]) => (f as { shortSearch?: boolean }).shortSearch)
        .map(([k]) => [e.table, k] as const),
    );
    expect(declared).toEqual(
      expect.arrayContaining([
        ['services', 'notes'],
        ['bicycles', 'serial_number'],
        ['users', 'email'],
      ]),
    );
    for (const [table, key] of declared) {
      const { rows } = await db.query<{ d: string }>('select indexdef as d from pg_indexes where tablename = $1', [table]);
      expect(rows.map((r) => r.d)).toContainEqual(expect.stringMatching(new RegExp(`USING gin \\(search_bigrams\\(lower\\(${key}\\)\\)\\)`)));
    }
    const params: unknown[] = [];
    const clause = await searchClause(db, services, 'zq', 'en', params);
    await db.exec('set enable_seqscan = off');
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain select 1 from services t where ${clause}`, params);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      for (const index of ['services_notes_bigrams', 'bicycles_serial_number_bigrams', 'users_label_bigrams']) expect(plan).toContain(index);
    } finally {
      await db.exec('set enable_seqscan = on');
    }
  });

  // ADR 054: "canyon" over 2M services: a count capped at 10 001 read the services in table order, asking each
  // its bicycle, 160 000 of them (1.1 s); read from the bicycles holding it, 10 001 are found after 5 000 bicycles.
  it.each(['a', 'ab', 'sn-1', 'grail', 'canyon grail 7', 'hornsgatan', 'anna', 'zq'])(
    'counts a search from its leading field first, stopping there when it alone passes the bound, and counts the same: %s',
    async (search) => {
      forgetColumnSamples();
      const params: unknown[] = [];
      const forms = await searchForms(db, services, search, 'en', params, { leadAbove: -1 });
      const from = `from services t where ${forms.sql}`;
      const statements: string[] = [];
      const spy: Db = { ...db, query: (sql, values, options) => (statements.push(sql), db.query(sql, values, options)) };
      // A bound below every share: some field leads (the first of equals when no sample holds the text).
      expect(forms.lead).toBeDefined();
      if (!forms.lead) return;
      const lead = { from: `from services t where ${forms.lead.sql}`, not: forms.lead.not };
      for (const cap of [0, 1, 3, 10, 1000]) expect(await countUpTo(spy, from, params, cap, lead), `${cap}`).toBe(await countUpTo(db, from, params, cap));
      // The lead alone passes a bound of one: the rows it does not hold are never read.
      const all = await countUpTo(db, from, params, 1000);
      const alone = await countUpTo(db, `${lead.from} and ${forms.sql}`, params, 1000);
      expect(alone).toBeLessThanOrEqual(all);
      if (alone > 1) {
        statements.length = 0;
        await countUpTo(spy, from, params, 1, lead);
        const { rows } = await db.query<{ 'QUERY PLAN': string }>(`explain analyze ${statements[0]}`, params);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Append/);
        expect(plan).toMatch(/never executed/);
      }
    },
  );

  it('leads the count with the field expected to hold the most rows, a reference read from its records; none below the bound', async () => {
    forgetColumnSamples();
    const lead = async (search: string, leadAbove: number) => (await searchForms(db, services, search, 'en', [], { leadAbove })).lead;
    // Every bicycle's serial number holds "sn": the services' bicycles lead, read from the bicycles' side.
    expect((await lead('sn', -1))?.sql).toMatch(/^t\.bicycle_id in \(select r\.id from bicycles r where /);
    expect((await lead('sn', -1))?.not).toMatch(/^\(select .* from bicycles r where r\.id = t\.bicycle_id\) is not true$/);
    // A share of 1 of 80 services is 80: no lead at a bound of 80 or more.
    expect(await lead('sn', 79)).toBeDefined();
    expect(await lead('sn', 80)).toBeUndefined();
    expect(await lead('sn', Number.MAX_SAFE_INTEGER)).toBeUndefined();
    // A reference expected to match more records than its index should hand over at once does not lead (ADR 054):
    // all 40 bicycles hold "sn".
    const leadUpTo = async (leadReferenceUpTo: number) => (await searchForms(db, services, 'sn', 'en', [], { leadAbove: -1, leadReferenceUpTo })).lead;
    expect(await leadUpTo(40)).toBeDefined();
    expect(await leadUpTo(39)).toBeUndefined();
  });

  it('pages and counts a search the same with its walked form and its lead as without them, with other filters too', async () => {
    // The other conditions follow the search, as the list's WHERE clause has them (`whereOf`).
    const filters = [[], ['t.status = $%', 2], ['t.service_date >= $%::date', '2026-02-15']] as const;
    for (const search of ['a', 'ab', 'sn-1', 'anna'])
      for (const filter of filters) {
        forgetColumnSamples();
        const params: unknown[] = [];
        const forms = await searchForms(db, services, search, 'en', params, { leadAbove: -1 });
        const rest = filter.length ? ` and ${filter[0].replace('%', String(params.push(filter[1])))}` : '';
        const base = {
          select: 'select t.id from services t',
          from: 'services t',
          alias: 't',
          where: ` where ${forms.sql}${rest}`,
          params,
          column: 'service_date',
          desc: true,
          nullable: false,
          limit: 6,
        };
        const extra = { walk: ` where ${forms.walk}${rest}`, ...(forms.lead ? { lead: { where: ` where ${forms.lead.sql}${rest}`, not: forms.lead.not } } : {}) };
        for (const offset of [0, 5, 30])
          for (const exactUpTo of [3, 1000]) {
            const plain = await listPage<{ id: number }>(db, { ...base, offset, exactUpTo });
            expect(await listPage<{ id: number }>(db, { ...base, ...extra, offset, exactUpTo }), `${search} ${rest} ${offset} ${exactUpTo}`).toEqual(plain);
          }
        // The exact count is the plain search's, filters included.
        const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from services t where ${forms.sql}${rest}`, params);
        expect((await listPage<{ id: number }>(db, { ...base, ...extra, offset: 0, exactUpTo: 1000 })).count).toBe(rows[0]!.n);
      }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'PostgreSQL connections compile no JIT (a capped count was priced by what it never reads), start parallel workers only for large reads, and keep the settings of PGOPTIONS',
    async () => {
      const before = process.env.PGOPTIONS;
      // An operator's own settings still reach every connection, a transaction's included.
      process.env.PGOPTIONS = '-c statement_timeout=123456';
      const pg = await openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL });
      try {
        // The server's default is on (PostgreSQL 11+): what the connection says is the API's doing.
        for (const db of [pg, { query: (sql: string) => pg.transaction((tx) => tx.query(sql)) }]) {
          const [jit, parallel, timeout] = await Promise.all([db.query('show jit'), db.query('show parallel_setup_cost'), db.query('show statement_timeout')]);
          expect(jit.rows[0]).toEqual({ jit: 'off' });
          expect(parallel.rows[0]).toEqual({ parallel_setup_cost: '10000' });
          expect(timeout.rows[0]).toEqual({ statement_timeout: '123456ms' });
        }
      } finally {
        await pg.close();
        if (before === undefined) delete process.env.PGOPTIONS;
        else process.env.PGOPTIONS = before;
      }
    },
  );

  it('pages a search the same way whether it is counted exactly or past the threshold (the count then labelled an estimate)', async () => {
    const params: unknown[] = [];
    const clause = await searchClause(db, services, 'hornsgatan', 'en', params);
    const base = {
      select: 'select t.id from services t',
      from: 'services t',
      alias: 't',
      where: ` where ${clause}`,
      params,
      column: 'service_date',
      desc: true,
      nullable: false,
      limit: 6,
      offset: 5,
    };
    const exact = await listPage<{ id: number }>(db, { ...base, exactUpTo: 1000 });
    const over = await listPage<{ id: number }>(db, { ...base, exactUpTo: 10 });
    expect(exact).toMatchObject({ count: 40, estimated: false });
    expect(over.estimated).toBe(true);
    expect(over.count).toBeGreaterThan(10);
    expect(over.rows.map((r) => r.id)).toEqual(exact.rows.map((r) => r.id));
  });
});

describe('retention (ADR 038)', () => {
  const key = 'k'.repeat(32);
  /** As the tables' owner may (ADR 059): the API's role is refused by the history's triggers. */
  const aroundTriggers = (db: Db, sql: string) =>
    db.transaction(async (tx) => {
      await tx.query('set local session_replication_role = replica');
      await tx.query(sql);
    });
  const write = (db: Db, name: string) =>
    db.transaction((tx) =>
      recordChange(tx, key, { userId: null, role: null, address: null, requestId: null, entity: 'assets', recordId: 1, action: 'update', changes: { name: [null, name] } }),
    );

  it('prunes the entries older than the retention behind a signed checkpoint; the rest still verifies, and a forged, edited or removed checkpoint shows', async () => {
    {
      for (const name of ['a', 'b', 'c']) await write(db, name);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const cutoff = new Date();
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const name of ['d', 'e']) await write(db, name);
      expect(await pruneHistory(db, key, cutoff)).toBe(3);
      expect(await verifyChain(db, key)).toEqual({ ok: true, count: 2, prunedUpTo: 3 });
      // New entries chain on, and a later pruning keeps the count of every entry removed.
      await write(db, 'f');
      expect(await pruneHistory(db, key, new Date(Date.now() + 1000))).toBe(2);
      expect(await verifyChain(db, key)).toEqual({ ok: true, count: 1, prunedUpTo: 5 });
      expect(Number((await db.query<{ removed: number }>('select removed from audit_checkpoints order by id desc limit 1')).rows[0]!.removed)).toBe(5);
      // The newest entry is never pruned: the next one needs its hash.
      expect(await pruneHistory(db, key, new Date(Date.now() + 1000))).toBe(0);

      // Edited: a checkpoint that claims fewer removed entries.
      await aroundTriggers(db, 'update audit_checkpoints set removed = 1 where up_to_id = 5');
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 6, reason: 'checkpoint' });
      await aroundTriggers(db, 'update audit_checkpoints set removed = 5 where up_to_id = 5');
      // Forged without the key: a checkpoint hiding the entry after it.
      await aroundTriggers(db, "insert into audit_checkpoints (at, up_to_id, up_to_hash, removed, hash) values (now(), 6, 'x', 6, 'forged')");
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 7, reason: 'checkpoint' });
      await aroundTriggers(db, 'delete from audit_checkpoints where up_to_id = 6');
      // Removed: without its checkpoints the chain starts at an entry that is not the first.
      await aroundTriggers(db, 'delete from audit_checkpoints');
      expect(await verifyChain(db, key)).toEqual({ ok: false, firstBadId: 1, reason: 'removed' });
    }
  });
});
