import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRow } from '../../shared/csv.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import { eventsEntity } from '../../shared/entities/events.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { copyCsvLines, copySelect, crlfRecords, exportColumns } from '../../upstream/resources/csv-copy.ts';
import { csvRowWriter } from '../../upstream/resources/csv-rows.ts';
import { csvLines } from '../../upstream/lib/csv-lines.ts';
import type { Lang } from '../../upstream/lib/lang.ts';
import { exportSelectOf } from '../../upstream/resources/entity-reads.ts';
import { startUpstream } from '../../upstream/start.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * The export written by COPY's CSV (ADR 061) holds, read by a strict RFC 4180 reader, the cells the row writer
 * wrote (csvRowWriter over csvLines' pages), behind the same formula guard, with CRLF record ends: quotes, commas,
 * every kind of line break, formula starts, spaces JavaScript's \s sees at either end, backslashes and control
 * characters, unicode, empty texts and nulls, dates, booleans, labels, in en and sv, on PGlite and on PostgreSQL.
 * The bytes differ from the row writer's in quoting only (ADR 061: an empty text is `""`, edge spaces unquoted).
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
const adminUrl = process.env.TEST_DATABASE_URL;

/** Texts that each take a different road through csvCell. */
const TRICKY = [
  'plain',
  '',
  'Trek, "Domane"',
  '=HYPERLINK("http://x")',
  '+SUM(A1)',
  '-disc',
  '@abus',
  '\tleading tab',
  '\rleading cr',
  'line one\nline two',
  'crlf\r\nend',
  'cr\ronly',
  ' leading space',
  'trailing space ',
  'trailing nbsp\u00a0',
  '\u3000ideographic space',
  'back\\slash \\N \\, \\\\',
  'mid\ttab and \u000b vertical \u0008 backspace \u0001 soh \u000c ff',
  'ünïcødé 😀 ✓ 漢字',
  "it's 'quoted'",
  '"',
  ',',
  '=',
  ' ',
  'a\u2028b',
  'end\u2029',
];

/**
 * A value that starts with a byte order mark: PGlite's driver drops the mark when it decodes a row, so the row
 * writer never saw it there; COPY writes the value as stored, quoted as csvCell quotes it (the mark is a \s).
 */
const BOM = '\ufeffbom';

async function trickyRows(up: Upstream, tag: string, texts: readonly string[]): Promise<void> {
  const types: number[] = [];
  for (const [i, name] of ['=type, "one"', ' spaced type ', `plain type ${tag}`].entries())
    types.push(Number((await up.db.query<{ id: number }>('insert into bicycle_types (name) values ($1) returning id', [`${name}${tag}${i}`])).rows[0]!.id));
  const owners = (await up.db.query<{ id: number }>('select id from users order by id limit 2')).rows.map((r) => Number(r.id));
  for (const [i, text] of texts.entries()) {
    await up.db.query(
      `insert into bicycles (brand_and_model, serial_number, bicycle_type_id, owner_id, groupset, drivetrain, front_brake, lock_model, smart_lock_id,
        insurance_company, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date, purchase_value, year, is_active, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $5, $5, $5, $6, $5, $5, $5, 'presta', $5, $7, $6, $8, $9, $10, $11)`,
      [
        `${tag} ${text}`,
        `${text}${tag}`,
        i % 4 === 3 ? null : types[i % 3],
        i % 5 === 4 ? null : owners[i % owners.length],
        text,
        i % 2 ? null : text,
        ['2024-01-05', '1999-12-31', '2026-02-28'][i % 3],
        i % 3 ? null : '2024',
        i % 2 === 0,
        new Date(Date.UTC(2026, 0, 2, 3, 4, 5, i)).toISOString(),
        new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)).toISOString(),
      ],
    );
    await up.db.query(
      `insert into events (name, business, location, contact_person, contact_phone, start_date, end_date, status, link, place_en, place_sv, buddy_id)
       values ($1, $2, $2, $2, $2, $3, $3, $4, $5, $2, $5, $6)`,
      [`${tag} ${text}`, text, ['2026-09-01', '2025-01-31'][i % 2], (i % 3) + 1, i % 2 ? null : text, i % 3 ? null : owners[0]],
    );
  }
}

/**
 * The records of an RFC 4180 document, strictly: records end with CRLF (a bare CR or LF only inside quotes), a
 * quote only opens a cell or is doubled inside a quoted one; anything else throws.
 */
function rfc4180(csv: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let at = 0;
  while (at < csv.length) {
    let cell = '';
    if (csv[at] === '"') {
      for (at++; ; at++) {
        if (at >= csv.length) throw new Error('an unterminated quoted cell');
        if (csv[at] === '"') {
          if (csv[at + 1] !== '"') break;
          at++;
        }
        cell += csv[at];
      }
      at++;
    } else {
      for (; at < csv.length && csv[at] !== ',' && csv[at] !== '\r' && csv[at] !== '\n'; at++) {
        if (csv[at] === '"') throw new Error(`a quote inside an unquoted cell at ${at}`);
        cell += csv[at];
      }
    }
    record.push(cell);
    if (csv[at] === ',') at++;
    else if (csv.startsWith('\r\n', at)) {
      records.push(record);
      record = [];
      at += 2;
    } else throw new Error(`no CRLF after a record at ${at}: ${JSON.stringify(csv.slice(at, at + 20))}`);
  }
  if (record.length) throw new Error('the last record has no CRLF');
  return records;
}

/** The cells of an export, checked: RFC 4180 with CRLF record ends, and no cell a spreadsheet would run as a formula. */
function cellsOf(csv: string): string[][] {
  const records = rfc4180(csv);
  for (const cell of records.slice(1).flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  return records;
}

/** The export as the row writer wrote it before COPY, for the rows `where` keeps. */
async function byRowWriter(up: Upstream, def: EntityDef, lang: Lang, where: { sql: string; params: unknown[] }): Promise<string> {
  const columns = exportColumns(def);
  let out = '';
  for await (const part of csvLines(up.db, exportSelectOf(def, lang), where, csvRow(columns), csvRowWriter(def, columns))) out += part;
  return out;
}

async function byCopy(up: Upstream, def: EntityDef, lang: Lang, where: { sql: string; params: unknown[] }, batch?: number): Promise<string> {
  const columns = exportColumns(def);
  const parts: Buffer[] = [];
  for await (const part of copyCsvLines(up.db, exportSelectOf(def, lang), where, csvRow(columns), (inner) => copySelect(def, columns, inner), batch)) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}

function exportCases(name: string, open: () => Promise<{ up: Upstream; close: () => Promise<void> }>, texts: readonly string[]) {
  describe(`the COPY export on ${name}`, () => {
    let up: Upstream;
    let close: () => Promise<void>;
    let token: string;
    const tag = `Tricky${process.pid}x${Date.now() % 100_000}`;
    const mine = (column: string) => ({ sql: ` where t.${column} like $1`, params: [`${tag}%`] });

    beforeAll(async () => {
      ({ up, close } = await open());
      await trickyRows(up, tag, texts);
      const login = await fetch(`${up.url}account/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@example.com', password: DEMO_PASSWORD }),
      });
      token = ((await login.json()) as { data: { token: string } }).data.token;
    });
    afterAll(async () => close?.());

    for (const lang of ['en', 'sv'] as const) {
      it(`writes the cells of the row writer for the bicycles and events of tricky rows, as RFC 4180 behind the formula guard (${lang})`, async () => {
        for (const [def, column] of [
          [bicyclesEntity as unknown as EntityDef, 'brand_and_model'],
          [eventsEntity as unknown as EntityDef, 'name'],
        ] as const) {
          const expected = cellsOf(await byRowWriter(up, def, lang, mine(column)));
          expect(expected.length).toBe(texts.length + 1);
          const csv = await byCopy(up, def, lang, mine(column));
          expect(cellsOf(csv)).toEqual(expected);
          // Batches of 4 rows (PGlite's keyset batches; PostgreSQL reads one statement whatever the size).
          expect(await byCopy(up, def, lang, mine(column), 4)).toBe(csv);
        }
      });

      it(`answers GET bicycles/export/ with those cells, searched (${lang})`, async () => {
        const res = await fetch(`${up.url}bicycles/export/?search=${tag}`, { headers: { authorization: `Bearer ${token}`, 'accept-language': lang } });
        expect(res.status).toBe(200);
        const csv = await res.text();
        expect(csv).toBe(await byCopy(up, bicyclesEntity as unknown as EntityDef, lang, mine('brand_and_model')));
        expect(cellsOf(csv)).toEqual(cellsOf(await byRowWriter(up, bicyclesEntity as unknown as EntityDef, lang, mine('brand_and_model'))));
      });
    }

    it('keeps a leading byte order mark', async () => {
      const bomTag = `Bom${tag}`;
      await trickyRows(up, bomTag, [BOM]);
      const csv = await byCopy(up, eventsEntity as unknown as EntityDef, 'en', { sql: ' where t.name like $1', params: [`${bomTag}%`] });
      expect(cellsOf(csv)[1]!.slice(2, 5)).toEqual([BOM, BOM, BOM]);
    });

    it.runIf(name === 'PostgreSQL')('ends the COPY statement when the download is left half read', async () => {
      const many = `Many${tag}`;
      await up.db.exec(`insert into events (name, business, location, contact_person, contact_phone, start_date, end_date, status)
        select '${many} ' || g, 'b', 'l', 'p', '1', date '2026-01-01', date '2026-01-02', 1 from generate_series(1, 50000) g`);
      const copying = async () =>
        Number((await up.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'copy (%'`)).rows[0]!.n);
      // The statement's text is cut at 1 kB in pg_stat_activity: every COPY of this test's database is this one.
      const abort = new AbortController();
      const res = await fetch(`${up.url}events/export/?search=${many}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
      const reader = res.body!.getReader();
      await reader.read();
      // The first chunk can be the header alone, written before the statement starts: wait for the statement.
      await expect.poll(copying, { timeout: 10_000, interval: 100 }).toBe(1);
      abort.abort();
      await expect.poll(copying, { timeout: 20_000, interval: 200 }).toBe(0);
      expect((await fetch(`${up.url}events/export/?search=nothing-${tag}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    });

    it('ends records with CRLF however the chunks split them, a line break inside quotes kept', async () => {
      const columns = exportColumns(eventsEntity as unknown as EntityDef);
      const inner = `${exportSelectOf(eventsEntity as unknown as EntityDef, 'en')} where t.name like '${tag}%' order by t.id`;
      const parts: Uint8Array[] = [];
      for await (const part of up.db.copyOut(copySelect(eventsEntity as unknown as EntityDef, columns, inner), 'csv')) parts.push(part);
      const csv = Buffer.concat(parts);
      const toCrlf = crlfRecords();
      const whole = toCrlf(csv).toString('utf8');
      expect(toCrlf.records).toBe(texts.length);
      expect(whole).toContain('"line one\nline two"');
      expect(whole).toContain('"crlf\r\nend"');
      expect(rfc4180(whole)).toHaveLength(texts.length);
      for (let at = 0; at <= csv.length; at += 7) {
        const split = crlfRecords();
        expect(Buffer.concat([split(csv.subarray(0, at)), split(csv.subarray(at))]).toString('utf8')).toBe(whole);
        expect(split.records).toBe(texts.length);
      }
    });
  });
}

exportCases(
  'PGlite',
  async () => {
    const up = await startUpstream({ port: 0, demoPassword: DEMO_PASSWORD, logger: testLogger('upstream-export-copy'), config: { scryptCost: 1024 } });
    return { up, close: () => up.close() };
  },
  TRICKY,
);

describe.skipIf(!adminUrl)('on PostgreSQL', () => {
  exportCases(
    'PostgreSQL',
    async () => {
      const name = `up_export_copy_${process.pid}_${Date.now()}`;
      const { admin, url } = await createTestDatabase(adminUrl!, name);
      const up = await startUpstream({
        port: 0,
        databaseUrl: url,
        seedDemo: true,
        demoPassword: DEMO_PASSWORD,
        logger: testLogger('upstream-export-copy-pg'),
        config: { scryptCost: 1024 },
      });
      return {
        up,
        close: async () => {
          await up.close();
          await admin.query(`drop database if exists ${name}`);
          await admin.end();
        },
      };
    },
    [...TRICKY, BOM],
  );
});
