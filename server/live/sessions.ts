import type { Viewer } from './filter.ts';

/**
 * The browsers' streams grouped by sign-in session (ADR 058): the caps per session and per user, one session
 * check per session (not per stream) on a timer, and one heartbeat timer for every stream.
 */

/** One browser's stream. */
export interface LiveStream {
  viewer: Viewer;
  /** The sign-in session it belongs to (the token's `sid`): logging out ends its streams at once. */
  sessionId: string | null;
  /** Written SSE frames. */
  write(frame: string): void;
  /** Ends the stream (the browser reconnects on its own, going through the session checks again). */
  end(): void;
  /** False once the stream's access token has expired: it is ended, and the reconnect refreshes the token. */
  usable(): boolean;
  /**
   * Asks the API now whether the stream's session still stands with its token: false on a definite no. The hub
   * asks one stream of a session (its newest) and ends them all on a no.
   */
  recheck?(): Promise<boolean>;
}

/** The streams of one sign-in session: one recheck timer for all of them. */
interface SessionGroup {
  streams: Set<LiveStream>;
  userId: number;
  timer: NodeJS.Timeout;
  checking: boolean;
}

export interface SessionGroupOptions {
  limits: { perSession: number; perUser: number };
  recheckMs: number;
  heartbeatMs: number;
  /** Every stream, for the heartbeat. */
  all: () => Iterable<LiveStream>;
}

/** A stream's session: its token's `sid`, else (a token without one) its user alone. */
const keyOf = (stream: Pick<LiveStream, 'sessionId' | 'viewer'>) => stream.sessionId ?? `user:${stream.viewer.userId}`;

export function createSessionGroups(opts: SessionGroupOptions) {
  const groups = new Map<string, SessionGroup>();
  const perUser = new Map<number, number>();
  let heartbeat: NodeJS.Timeout | null = null;

  /** Asks the API once, with the session's newest token, whether it still stands; a no ends all its streams. */
  function recheck(group: SessionGroup) {
    if (group.checking) return;
    const newest = [...group.streams].at(-1);
    if (!newest?.recheck) return;
    group.checking = true;
    void newest
      .recheck()
      .catch(() => true)
      .then((stands) => {
        group.checking = false;
        if (!stands) for (const stream of [...group.streams]) stream.end();
      });
  }

  function beat() {
    for (const stream of opts.all()) {
      if (!stream.usable()) stream.end();
      else stream.write(': ping\n\n');
    }
  }

  return {
    /** Whether one more stream of this session and user would pass the caps. */
    full(stream: Pick<LiveStream, 'sessionId' | 'viewer'>): boolean {
      return (groups.get(keyOf(stream))?.streams.size ?? 0) >= opts.limits.perSession || (perUser.get(stream.viewer.userId) ?? 0) >= opts.limits.perUser;
    },
    /** Counts a stream in (the caller checked `full` in the same turn); answers the function that counts it out. */
    join(stream: LiveStream): () => void {
      const key = keyOf(stream);
      let group = groups.get(key);
      if (!group) {
        const created: SessionGroup = { streams: new Set(), userId: stream.viewer.userId, checking: false, timer: setInterval(() => recheck(created), opts.recheckMs) };
        created.timer.unref();
        groups.set(key, (group = created));
      }
      group.streams.add(stream);
      perUser.set(stream.viewer.userId, (perUser.get(stream.viewer.userId) ?? 0) + 1);
      if (!heartbeat) (heartbeat = setInterval(beat, opts.heartbeatMs)).unref();
      const joined = group;
      return () => {
        if (!joined.streams.delete(stream)) return;
        const left = (perUser.get(stream.viewer.userId) ?? 1) - 1;
        if (left > 0) perUser.set(stream.viewer.userId, left);
        else perUser.delete(stream.viewer.userId);
        if (joined.streams.size === 0) {
          clearInterval(joined.timer);
          groups.delete(key);
        }
        if (groups.size === 0 && heartbeat) {
          clearInterval(heartbeat);
          heartbeat = null;
        }
      };
    },
    /** A change of this account: each of its sessions asks the API at once (once per session). */
    recheckUser(userId: number) {
      for (const group of groups.values()) if (group.userId === userId) recheck(group);
    },
    /** Ends every stream of a sign-in session (its logout). */
    endSession(sessionId: string) {
      for (const stream of [...(groups.get(sessionId)?.streams ?? [])]) stream.end();
    },
    get sessions() {
      return groups.size;
    },
    close() {
      for (const group of groups.values()) clearInterval(group.timer);
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },
  };
}
