import type { FastifyBaseLogger } from 'fastify';
import { Client } from 'undici';
import { browserEventOf, mayReceive, type LiveNotice, type Viewer } from './filter.ts';
import { ACCOUNT_ENTITY } from '../../shared/live.ts';
import { createSessionGroups, type LiveStream } from './sessions.ts';

/**
 * The back office's one subscription to the API's change events (ADR 037), fanned out to the browsers'
 * streams, each filtered for its viewer, and a ring buffer of recent changes so a browser that reconnects
 * with `Last-Event-ID` is sent what it missed.
 */

/** What the ring buffer keeps: at most this many changes, none older than this (the API's replay recent too). */
export const LIVE_WINDOW = { entries: 1000, ms: 10 * 60_000 };
const RETRY_MS = { first: 1000, max: 30_000 };
/** The API sends a comment every 15 s: a stream silent for this long is dead (a lost connection, a stuck proxy). */
const SILENCE_MS = 45_000;
/** A browser reconnecting while the subscription is not yet up waits this long, then is told it may have missed some. */
const READY_WAIT_MS = 5_000;
/** A comment this often keeps proxies and the browser from taking a quiet stream for a dead one: one timer for every stream. */
export const HEARTBEAT_MS = 15_000;
/** How often a session's streams ask the API whether it still stands (ended elsewhere: another process's logout, a deactivation): once per session, not per stream. */
export const SESSION_RECHECK_MS = 30_000;
/**
 * Open streams one sign-in session, and one user over all their sessions, may hold (ADR 058): a tab holds one,
 * and a browser on HTTP/1.1 opens at most six connections to a site. Past it `/live` answers 429 and the
 * browser polls instead.
 */
export const LIVE_LIMITS = { perSession: 8, perUser: 16 };

export type { LiveStream };

export interface LiveHubOptions {
  /** The API's base URL (`…/api/`). */
  upstreamUrl: string;
  forwardedSecret: string;
  log: FastifyBaseLogger;
  onStreamsChanged?: (open: number) => void;
  onUpstreamConnected?: (connected: boolean) => void;
  limits?: { perSession: number; perUser: number };
  recheckMs?: number;
  heartbeatMs?: number;
}

export const frameOf = (event: string, data: unknown, id?: number) => `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const GAP = frameOf('gap', {});

interface Buffered {
  notice: LiveNotice;
  at: number;
}

/** Reads an event stream's body (`text/event-stream`), calling `onEvent` for each event that carries data. */
export async function readEventStream(body: AsyncIterable<Buffer>, onEvent: (event: string, data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) onEvent(event, data.join('\n'));
    }
  }
}

/** The ring buffer of recent changes (at most `LIVE_WINDOW`), and how far back it covers. */
function createReplayWindow() {
  const buffer: Buffered[] = [];
  /** Every change after this id has been received; null until the subscription first answers. */
  let coveredAfter: number | null = null;
  const recent = {
    lastId: null as number | null,
    /** The subscription's first answer: the newest change so far, nothing to replay before it. */
    first(last: number) {
      if (coveredAfter !== null) return;
      coveredAfter = last;
      recent.lastId = last;
    },
    /** Keeps a new change (false for one already seen) and lets the oldest go past the recent. */
    keep(notice: LiveNotice): boolean {
      if (recent.lastId !== null && notice.id <= recent.lastId) return false;
      recent.lastId = notice.id;
      const now = Date.now();
      buffer.push({ notice, at: now });
      while (buffer.length > 0 && (buffer.length > LIVE_WINDOW.entries || now - buffer[0]!.at > LIVE_WINDOW.ms)) {
        coveredAfter = Math.max(coveredAfter ?? 0, buffer.shift()!.notice.id);
      }
      return true;
    },
    /** The API could not replay everything: the buffer starts afresh after `newest`. */
    restart(newest: number) {
      buffer.length = 0;
      coveredAfter = newest;
    },
    /** What a browser that last saw `since` missed, for its viewer; `gap` when the buffer does not reach back that far. */
    missedSince(since: number, viewer: Viewer): { gap: boolean; frames: string[] } {
      const { lastId } = recent;
      // Far ahead of anything seen: an id of another database (a reset development one), not one to wait for.
      if (coveredAfter === null || lastId === null || since < coveredAfter || since > lastId + LIVE_WINDOW.entries) return { gap: true, frames: [] };
      const frames = buffer.filter(({ notice }) => notice.id > since && mayReceive(viewer, notice)).map(({ notice }) => frameOf('change', browserEventOf(notice), notice.id));
      return { gap: false, frames };
    },
  };
  return recent;
}

interface Subscription {
  client: Client;
  base: URL;
  opts: LiveHubOptions;
  signal: AbortSignal;
  recent: ReturnType<typeof createReplayWindow>;
  closed: () => boolean;
  onEvent: (event: string, data: string, connection: { newest: number }) => void;
}

/** The subscription to the API's event stream, from the last change seen; reconnects (with jittered backoff) until closed. */
async function subscribe({ client, base, opts, signal, recent, closed, onEvent }: Subscription): Promise<void> {
  let delay = RETRY_MS.first;
  while (!closed()) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream', 'x-forwarded-secret': opts.forwardedSecret };
      if (recent.lastId !== null) headers['last-event-id'] = String(recent.lastId);
      const res = await client.request({ method: 'GET', path: `${base.pathname}audit/events/`, headers, signal });
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new Error(`the API answered ${res.statusCode}`);
      }
      opts.onUpstreamConnected?.(true);
      delay = RETRY_MS.first;
      const connection = { newest: recent.lastId ?? 0 };
      await readEventStream(res.body, (event, data) => onEvent(event, data, connection));
    } catch (error) {
      if (closed()) break;
      opts.log.warn({ err: error }, 'live updates: the API event stream failed; reconnecting');
    }
    opts.onUpstreamConnected?.(false);
    if (closed()) break;
    // Jitter: back offices restarted together do not reconnect together.
    await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)).unref());
    delay = Math.min(delay * 2, RETRY_MS.max);
  }
}

export type LiveHub = ReturnType<typeof createLiveHub>;

export function createLiveHub(opts: LiveHubOptions) {
  const base = new URL(opts.upstreamUrl.endsWith('/') ? opts.upstreamUrl : `${opts.upstreamUrl}/`);
  const client = new Client(base.origin, { headersTimeout: 10_000, bodyTimeout: SILENCE_MS, connectTimeout: 5_000 });
  const streams = new Set<LiveStream>();
  const groups = createSessionGroups({
    limits: opts.limits ?? LIVE_LIMITS,
    recheckMs: opts.recheckMs ?? SESSION_RECHECK_MS,
    heartbeatMs: opts.heartbeatMs ?? HEARTBEAT_MS,
    all: () => streams,
  });
  const recent = createReplayWindow();
  let started = false;
  let closed = false;
  const abort = new AbortController();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function publish(notice: LiveNotice) {
    if (!recent.keep(notice)) return;
    const frame = frameOf('change', browserEventOf(notice), notice.id);
    for (const stream of streams) {
      if (!stream.usable()) stream.end();
      else if (mayReceive(stream.viewer, notice)) stream.write(frame);
    }
    // A change of the viewer's own account may have ended their session in another process: ask at once, once a session.
    if (notice.entity === ACCOUNT_ENTITY && notice.record_id !== null) groups.recheckUser(notice.record_id);
  }

  /** The API could not replay everything: browsers drop every cached answer, the buffer starts afresh. */
  function gap(newest: number) {
    recent.restart(newest);
    for (const stream of streams) stream.write(GAP);
  }

  function onEvent(event: string, data: string, connection: { newest: number }) {
    if (event === 'ready') {
      const { last } = JSON.parse(data) as { last: number };
      connection.newest = last;
      recent.first(last);
      markReady();
    } else if (event === 'gap') gap(connection.newest);
    else if (event === 'change') publish(JSON.parse(data) as LiveNotice);
  }

  function start() {
    if (started || closed) return;
    started = true;
    void subscribe({ client, base, opts, signal: abort.signal, recent, closed: () => closed, onEvent });
  }

  return {
    /**
     * Adds a browser's stream; with `since` (its Last-Event-ID) first writes what it missed, or a gap when that
     * is not known. Answers the function that removes it, or null when its session or user already holds
     * as many streams as allowed (`LIVE_LIMITS`, ADR 058).
     */
    async attach(stream: LiveStream, since: number | null): Promise<(() => void) | null> {
      if (groups.full(stream)) return null;
      const leave = groups.join(stream);
      start();
      if (since !== null) {
        await Promise.race([ready, new Promise((resolve) => setTimeout(resolve, READY_WAIT_MS).unref())]);
        const missed = recent.missedSince(since, stream.viewer);
        if (missed.gap) stream.write(GAP);
        for (const frame of missed.frames) stream.write(frame);
      }
      streams.add(stream);
      opts.onStreamsChanged?.(streams.size);
      return () => {
        leave();
        if (streams.delete(stream)) opts.onStreamsChanged?.(streams.size);
      };
    },
    /** Whether a session's or user's next stream would be refused: checked before asking the API about the session. */
    full: (stream: Pick<LiveStream, 'sessionId' | 'viewer'>) => groups.full(stream),
    /** Ends every stream of a sign-in session (its logout). */
    endSession: (sessionId: string) => groups.endSession(sessionId),
    get openStreams() {
      return streams.size;
    },
    async close() {
      closed = true;
      abort.abort();
      groups.close();
      for (const stream of streams) stream.end();
      await client.close().catch(() => undefined);
    },
  };
}
