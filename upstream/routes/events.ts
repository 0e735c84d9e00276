import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { AUDIT_CHANNEL, type AuditNotice } from '../lib/audit.ts';
import { requireAuth } from '../lib/auth.ts';

/**
 * GET audit/events/ (ADR 037; events/ is the Events entity): the change history's entries as Server-Sent Events, live from PostgreSQL's
 * NOTIFY, for the back office (its forwarded secret) or an Admin token. An event's id is the entry's id;
 * with `Last-Event-ID` the entries missed since are sent first, within the replay window.
 */

/** How far back a reconnecting subscriber is caught up: at most this many entries, none older than this. */
export const REPLAY_WINDOW = { entries: 1000, minutes: 10 };
const HEARTBEAT_MS = 15_000;

type Listener = (notice: AuditNotice) => void;

/**
 * One LISTEN per API process, shared by every open stream; started by the first stream. After a lost
 * connection (PostgreSQL restarted) the entries committed meanwhile are read from the table, so the
 * streams open across it miss nothing.
 */
function createAuditFeed(db: Db) {
  const listeners = new Set<Listener>();
  let lastId = 0;
  let started: Promise<() => Promise<void>> | null = null;
  const deliver = (notice: AuditNotice) => {
    if (notice.id <= lastId) return;
    lastId = notice.id;
    for (const listener of listeners) listener(notice);
  };
  const catchUp = async () => {
    for (const notice of await entriesAfter(db, lastId)) deliver(notice);
  };
  return {
    async subscribe(listener: Listener): Promise<() => void> {
      if (!started) {
        started = db
          .listen(
            AUDIT_CHANNEL,
            (payload) => {
              const notice = parseNotice(payload);
              if (notice) deliver(notice);
            },
            () => void catchUp().catch((error: unknown) => process.emitWarning(`live updates: catching up failed: ${String(error)}`)),
          )
          .then(async (unlisten) => {
            // Read once listening, so nothing committed in between is missed: where a catch-up after a lost connection starts.
            const { rows } = await db.query<{ id: number | null }>('select max(id) as id from audit_log');
            lastId = Math.max(lastId, Number(rows[0]?.id ?? 0));
            return unlisten;
          });
      }
      try {
        await started;
      } catch (error) {
        started = null;
        throw error;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      if (started) await (await started)();
    },
  };
}

function parseNotice(payload: string): AuditNotice | null {
  try {
    const notice = JSON.parse(payload) as AuditNotice;
    return Number.isSafeInteger(notice.id) && typeof notice.entity === 'string' ? notice : null;
  } catch {
    return null;
  }
}

/** The entries after `id` within the replay window, oldest first, as their notices. */
async function entriesAfter(db: Db, id: number): Promise<AuditNotice[]> {
  const { rows } = await db.query<{ id: number; entity: string; record_id: number | null; action: string; user_id: number | null; owners: unknown }>(
    `select id, entity, record_id, action, user_id, owners from audit_log
     where id > $1 and at > now() - make_interval(mins => $2) order by id desc limit $3`,
    [id, REPLAY_WINDOW.minutes, REPLAY_WINDOW.entries],
  );
  return rows.reverse().map((row) => ({
    id: Number(row.id),
    entity: row.entity,
    record_id: row.record_id === null ? null : Number(row.record_id),
    action: row.action,
    user_id: row.user_id === null ? null : Number(row.user_id),
    owner: Array.isArray(row.owners) ? row.owners.map(Number) : parseArray(row.owners),
  }));
}

/** A bigint[] a driver handed back as text (`{1,2}`). */
function parseArray(value: unknown): number[] | null {
  if (typeof value !== 'string') return null;
  return value.replace(/[{}]/g, '').split(',').filter(Boolean).map(Number);
}

/** The back office proves itself with the secret it already shares with the API (ADR 028); anyone else needs an Admin token. */
function authorize(config: UpstreamConfig) {
  const admin = requireAuth(config, ['Admin']);
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = config.forwardedSecret === null ? null : digest(config.forwardedSecret);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const given = req.headers['x-forwarded-secret'];
    if (expected && typeof given === 'string' && timingSafeEqual(digest(given), expected)) return;
    await admin(req, reply);
  };
}

function lastEventId(req: FastifyRequest): number | null {
  const raw = req.headers['last-event-id'];
  const value = Number(typeof raw === 'string' ? raw.trim() : NaN);
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

const frame = (notice: AuditNotice) => `id: ${notice.id}\nevent: change\ndata: ${JSON.stringify(notice)}\n\n`;

export function registerEventRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const feed = createAuditFeed(db);
  const open = new Set<ServerResponse>();
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });
  app.addHook('onClose', async () => feed.close());

  app.get('/api/audit/events/', { preHandler: authorize(config) }, async (req, reply) => {
    const since = lastEventId(req);
    // Listening first, replaying second: an entry committed in between is in both and sent once (ids only grow).
    const pending: AuditNotice[] = [];
    let replaying = true;
    let sent = since ?? 0;
    const res = reply.raw;
    const send = (notice: AuditNotice) => {
      if (notice.id <= sent) return;
      sent = notice.id;
      res.write(frame(notice));
    };
    const unsubscribe = await feed.subscribe((notice) => (replaying ? pending.push(notice) : send(notice)));
    reply.hijack();
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' });
    open.add(res);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    const stop = () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(res);
    };
    res.on('close', stop);
    try {
      const { rows } = await db.query<{ id: number | null }>('select max(id) as id from audit_log');
      const newest = Number(rows[0]?.id ?? 0);
      // The newest entry now: a subscriber knows from which entry on it has everything.
      res.write(`retry: 2000\nevent: ready\ndata: ${JSON.stringify({ last: newest })}\n\n`);
      if (since !== null) {
        // An id this database never gave (another database, or one restored from a backup): start afresh.
        if (since > newest) sent = newest;
        const missed = since < newest ? await entriesAfter(db, since) : [];
        // Ids have no gaps (ADR 035): anything newer that is not since + 1 fell outside the window.
        if (since > newest || (since < newest && missed[0]?.id !== since + 1)) res.write(`event: gap\ndata: {}\n\n`);
        for (const notice of missed) send(notice);
      }
    } catch (error) {
      req.log.warn({ err: error }, 'live updates: replay failed');
      res.write(`event: gap\ndata: {}\n\n`);
    }
    replaying = false;
    for (const notice of pending.splice(0)) send(notice);
  });
}
