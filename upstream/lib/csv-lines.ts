import type { Db } from '../db.ts';

/**
 * Keyset pages by id: constant memory and no OFFSET cost however many rows there are. While one page is
 * written out, the next is already being read (one query ahead, never more).
 */
export async function* csvLines(
  db: Db,
  select: string,
  where: { sql: string; params: unknown[] },
  header: string,
  writeRow: (row: Record<string, unknown>) => string,
  /** Read what a page's rows need (the history's people's keys, ADR 076) before they are written. */
  preparePage?: (page: readonly Record<string, unknown>[]) => Promise<void>,
) {
  const batch = 2000;
  yield header;
  const keyset = `${where.sql ? where.sql + ' and' : ' where'} t.id > $${where.params.length + 1}`;
  const fetchPage = (from: number) => {
    const query = db.query(`${select}${keyset} order by t.id limit ${batch}`, [...where.params, from]);
    query.catch(() => undefined); // read ahead: if the client has gone, nobody awaits it
    return query;
  };
  let next = fetchPage(0);
  for (;;) {
    const { rows: page } = await next;
    if (page.length === 0) return;
    if (page.length === batch) next = fetchPage(Number(page[page.length - 1]!.id));
    if (preparePage) await preparePage(page);
    let chunk = '';
    for (const row of page) chunk += writeRow(row);
    yield chunk;
    if (page.length < batch) return;
  }
}
