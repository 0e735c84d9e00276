import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { mkdirSync } from 'node:fs';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/** The little the API needs from PostgreSQL, served by PGlite (embedded) or a real server. */
export interface QueryOptions {
  /**
   * On PostgreSQL, a named prepared statement: parsed and planned once per connection, then only bound and run
   * (the session check of every request: 0.45 → 0.2 ms a round trip, ADR 052). Only for a fixed statement whose
   * plan does not depend on its parameters (a primary-key lookup); PGlite ignores it.
   */
  name?: string;
}

export interface Db {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` on one connection of its own, outside any transaction (its `transaction` runs on that connection
   * too): what a statement that refuses a transaction block needs (`create index concurrently`), and session
   * settings and session advisory locks that must outlive a transaction (the migration runner, ADR 060). On
   * PostgreSQL the connection is closed afterwards, so none of that reaches the pool; on PGlite every other call
   * waits until `fn` ends, so `fn` must use `conn`, never the outer handle. Not available on a transaction.
   */
  session<T>(fn: (conn: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Calls `onPayload` with each NOTIFY on `channel` (committed transactions only); answers the function that
   * stops listening. On PostgreSQL a connection of its own (not the pool's) listens and is reopened after it
   * is lost (a server restart); notifications sent meanwhile are lost, so `onReconnect` is called once it
   * listens again, for the caller to read what it missed. Not available on a transaction.
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  /**
   * The rows of `select` in COPY's text format (`,` between cells, NULL as nothing), ADR 061. PostgreSQL streams
   * them from a connection of its own, with backpressure (one that is left early is closed, ending the statement);
   * PGlite writes the whole output to memory first (`/dev/blob`) and yields it at once, so its callers bound the
   * rows of one statement. Not available on a transaction. `csv`: COPY's own CSV instead (the bench's measure of
   * the database's speed).
   */
  copyOut(select: string, format?: 'text' | 'csv'): AsyncIterable<Uint8Array>;
  readonly kind: 'pglite' | 'postgres';
  /** PGlite only: bytes of its WebAssembly memory (it grows, never shrinks; the memory bench reads it). */
  wasmMemoryBytes?(): number;
  /**
   * PGlite only: a checkpoint, then `inspect`, then a copy of the data directory as a tar, with no other statement
   * in between (PGlite runs one at a time, and no transaction is open between calls): `inspect` reads exactly
   * the state the copy holds (the backup's manifest, ADR 057).
   */
  snapshotDataDir?<T>(inspect: (db: Db) => Promise<T>): Promise<{ result: T; tar: Blob }>;
}

export interface OpenDatabaseOptions {
  /** postgres://… — when set, a pg Pool is used. */
  databaseUrl?: string;
  /** PGlite data directory; undefined or `memory://` keeps everything in memory. */
  dataDir?: string;
  /** PGlite: a data directory copied by `snapshotDataDir`, loaded into `dataDir`, which must hold no database (a restore, ADR 057). */
  loadDataDir?: Blob;
}

export async function openDatabase(opts: OpenDatabaseOptions = {}): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  const dir = opts.dataDir && opts.dataDir !== 'memory://' ? opts.dataDir : undefined;
  if (dir) mkdirSync(dir, { recursive: true });
  // pg_trgm backs the trigram indexes of list searches (migration 040), as on a PostgreSQL server.
  const lite = new PGlite({ dataDir: dir, extensions: { pg_trgm }, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) });
  await lite.waitReady;
  // PGlite runs one statement at a time; a queue keeps transactions from interleaving with other calls.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  };
  const direct: Db = {
    kind: 'pglite',
    query: async <T>(sql: string, params?: readonly unknown[]) => ({ rows: (await lite.query<T>(sql, params as unknown[])).rows }),
    exec: async (sql) => {
      await lite.exec(sql);
    },
    transaction: () => {
      throw new Error('nested transactions are not supported');
    },
    session: () => Promise.reject(new Error('a session within a transaction')),
    listen: () => Promise.reject(new Error('listen on the database, not on a transaction')),
    copyOut: noCopyOnTransaction,
    close: async () => undefined,
  };
  const inTransaction = async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
    await lite.exec('begin');
    try {
      const result = await fn(direct);
      await lite.exec('commit');
      return result;
    } catch (error) {
      await lite.exec('rollback');
      throw error;
    }
  };
  // One connection already: a session is the queue held for `fn`, its transactions run without queueing again.
  const session: Db = { ...direct, transaction: inTransaction };
  return {
    kind: 'pglite',
    // PGlite's Emscripten module is not part of its typed API.
    wasmMemoryBytes: () => (Reflect.get(lite, 'mod') as { wasmMemory?: WebAssembly.Memory } | undefined)?.wasmMemory?.buffer.byteLength ?? 0,
    query: (sql, params) => serial(() => direct.query(sql, params)),
    exec: (sql) => serial(() => direct.exec(sql)),
    transaction: (fn) => serial(() => inTransaction(fn)),
    session: (fn) => serial(() => fn(session)),
    // In process: PGlite hands the notifications of each commit to its listeners (no connection to lose).
    listen: async (channel, onPayload) => {
      const unlisten = await serial(() => lite.listen(channel, onPayload));
      return () => serial(() => unlisten());
    },
    copyOut: async function* (select, format = 'text') {
      const { blob } = await serial(() => lite.query(`copy (${select}) to '/dev/blob' (${COPY_FORMATS[format]})`));
      if (blob) yield new Uint8Array(await blob.arrayBuffer());
    },
    close: () => serial(() => lite.close()),
    snapshotDataDir: (inspect) =>
      serial(async () => {
        await lite.exec('checkpoint');
        const result = await inspect(direct);
        return { result, tar: await lite.dumpDataDir('none') };
      }),
  };
}

/** COPY's options of `Db.copyOut`: the text format with `,` between cells and NULL as an empty cell, or plain CSV. */
const COPY_FORMATS = { text: "format text, delimiter ',', null ''", csv: 'format csv' } as const;

const noCopyOnTransaction = () => {
  throw new Error('copy out of the database, not of a transaction');
};

/** `Db.copyOut` on PostgreSQL: a pooled connection of its own for the statement, destroyed if the reader stops early. */
async function* copyOutPostgres(pool: pg.Pool, select: string, format: 'text' | 'csv' = 'text'): AsyncIterable<Uint8Array> {
  const client = await pool.connect();
  let finished = false;
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on('error', onLost);
  try {
    const stream = client.query(copyTo(`copy (${select}) to stdout (${COPY_FORMATS[format]})`));
    for await (const chunk of stream as AsyncIterable<Buffer>) yield chunk;
    finished = true;
  } finally {
    client.off('error', onLost);
    // A COPY left half read cannot be stopped on its connection: ending the connection ends the statement.
    client.release(finished ? lost : (lost ?? new Error('export stopped')));
  }
}

/** Waits between attempts to reopen a lost LISTEN connection: 0.5 s doubling to 15 s. */
const LISTEN_RETRY_MS = { first: 500, max: 15_000 };

/**
 * LISTEN on a connection of its own (a pooled one would be handed to other queries, and a transaction
 * pooler does not keep LISTEN at all), reopened with backoff whenever it ends until the caller stops.
 */
async function listenPostgres(url: string, channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let delay = LISTEN_RETRY_MS.first;
  const quoted = `"${channel.replace(/"/g, '""')}"`;
  const open = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onPayload(message.payload ?? '');
    });
    next.on('error', (error) => process.emitWarning(`PostgreSQL LISTEN connection lost: ${error.message}`));
    next.on('end', () => {
      if (client !== next) return;
      client = null;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`listen ${quoted}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) return void (await next.end().catch(() => undefined));
    client = next;
    delay = LISTEN_RETRY_MS.first;
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      open().then(
        () => onReconnect?.(),
        () => {
          delay = Math.min(delay * 2, LISTEN_RETRY_MS.max);
          schedule();
        },
      );
    }, delay);
    retry.unref();
  };
  // A server down at start is waited for like one lost later: the caller hears of it through onReconnect.
  await open().catch((error: unknown) => {
    process.emitWarning(`PostgreSQL LISTEN failed, retrying: ${error instanceof Error ? error.message : String(error)}`);
    schedule();
  });
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
    client = null;
  };
}

/**
 * The database could not be reached, or ended the connection (a restart, a failover, a shutdown): nothing was
 * wrong with the request, and the same request may succeed in a moment (ADR 046).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // 08…: connection exceptions; 57P01–57P03: administrator/crash shutdown, cannot connect now (starting up, recovering).
  if (typeof code === 'string' && (/^08/.test(code) || ['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code))) return true;
  return typeof message === 'string' && (/^Connection terminated/.test(message) || /not queryable/.test(message));
}

function openPostgres(url: string): Db {
  // No JIT compilation (ADR 054): a list's statements stop after a page or a capped count, but PostgreSQL prices
  // them by everything they could read, and compiled a search's count for 0.85 s that then ran for 0.2 s.
  // Nor parallel workers for a request's statement (ADR 056): starting them took 8-12 ms here, for a two-letter
  // users search whose index scan then ran for 0.2 ms (the planner expected 8 000 rows, and found none). Ten times
  // PostgreSQL's price for starting them keeps them for what they pay off in, the statements that read most of a
  // large table.
  // Set on each new connection before the pool hands it out (a connection that cannot take it is not used): a
  // startup `options` would replace those of PGOPTIONS or of the URL, and some poolers refuse that parameter.
  const pool = new pg.Pool({
    connectionString: url,
    max: 20,
    onConnect: async (client) => {
      await client.query('set jit = off; set parallel_setup_cost = 10000');
    },
  });
  // An idle connection the server ends (a restart, a failover, an administrator) is dropped from the pool and
  // replaced on the next query; without a listener pg's 'error' event would end the whole process.
  pool.on('error', (error) => process.emitWarning(`PostgreSQL connection lost while idle: ${error.message}`));
  // Dates stay ISO strings, bigints numbers (ids fit in 2^53), numerics numbers.
  pg.types.setTypeParser(20, (v) => Number(v));
  pg.types.setTypeParser(1700, (v) => Number(v));
  pg.types.setTypeParser(1082, (v) => v);
  return {
    ...wrapPostgres(pool),
    transaction: async (fn) => onClient(await pool.connect(), false, (client) => clientTransaction(client, fn)),
    // A session's settings and advisory locks end with its connection, which is closed rather than pooled.
    session: async (fn) =>
      onClient(await pool.connect(), true, (client) =>
        fn({
          ...wrapPostgres(client),
          transaction: (inner) => clientTransaction(client, inner),
          session: () => Promise.reject(new Error('a session within a session')),
          listen: () => Promise.reject(new Error('listen on the database, not on a session')),
          copyOut: noCopyOnTransaction,
          close: async () => undefined,
        }),
      ),
    listen: (channel, onPayload, onReconnect) => listenPostgres(url, channel, onPayload, onReconnect),
    copyOut: (select, format) => copyOutPostgres(pool, select, format),
    close: () => pool.end(),
  };
}

function wrapPostgres(client: pg.Pool | pg.PoolClient): Omit<Db, 'transaction' | 'session' | 'close' | 'listen' | 'copyOut'> {
  return {
    kind: 'postgres',
    query: async <T>(sql: string, params?: readonly unknown[], options?: QueryOptions) => ({
      rows: (options?.name ? await client.query({ name: options.name, text: sql, values: params as unknown[] }) : await client.query(sql, params as unknown[])).rows as T[],
    }),
    exec: async (sql) => {
      await client.query(sql);
    },
  };
}

/**
 * Runs `fn` on a checked-out connection, then hands it back (`destroy`: closes it instead). A checked-out
 * connection is no longer watched by the pool: one the server ends meanwhile (a restart, a failover) would emit
 * an 'error' nobody hears and end the process (ADR 046). Heard here, `fn` fails with it and the broken
 * connection is destroyed rather than returned to the pool.
 */
async function onClient<T>(client: pg.PoolClient, destroy: boolean, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on('error', onLost);
  try {
    return await fn(client);
  } finally {
    client.off('error', onLost);
    client.release(lost ?? destroy);
  }
}

async function clientTransaction<T>(client: pg.PoolClient, fn: (tx: Db) => Promise<T>): Promise<T> {
  await client.query('begin');
  try {
    const tx: Db = {
      ...wrapPostgres(client),
      transaction: () => Promise.reject(new Error('nested')),
      session: () => Promise.reject(new Error('a session within a transaction')),
      listen: () => Promise.reject(new Error('listen on the database, not on a transaction')),
      copyOut: noCopyOnTransaction,
      close: async () => undefined,
    };
    const result = await fn(tx);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}
