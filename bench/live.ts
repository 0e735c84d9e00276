import { Agent, request } from 'undici';
import { LIVE_LIMITS } from '../server/live/hub.ts';
import { apiToken, signIn, startStack, type BenchDb } from './support/stack.ts';
import { percentile } from './support/stats.ts';

/**
 * 10. Live updates (ADR 037, 058): `streams` browsers' event streams, one per user (each user signed in once: a
 * session holds at most LIVE_LIMITS.perSession), open on one back-office process, then a
 * change committed through the API every `intervalMs`: how long each takes to reach every stream, what a
 * stream costs in memory, and what one change costs the back office to fan out.
 *
 * - Latency is taken from the moment the write's request leaves for the API to the frame's arrival at each
 *   stream: an upper bound of commit-to-browser (it includes the write itself).
 * - Memory per stream: the back office's RSS after opening them minus before (after a GC), divided by streams.
 * - Fan-out cost: the back office's CPU time during the changes minus an idle stretch of the same length, per
 *   change (and per change and stream).
 * - Session checks while idle: the API's `GET account/` per second during the idle stretch (one per session
 *   every 30 s, ADR 058: not one per stream), and the cap: one session's stream past LIVE_LIMITS.perSession is refused.
 * The readers run in this process, on the same machine: their own CPU competes with what is measured. The
 * users are Admins, who hear of every change (the filter's shortest path).
 */
export interface LiveResult {
  streams: number;
  opened: number;
  changes: number;
  deliveries: number;
  missing: number;
  latencyMs: { p50: number; p95: number; max: number };
  rssBeforeMb: number;
  rssAfterMb: number;
  memoryPerStreamKb: number;
  fanOutCpuMsPerChange: number;
  fanOutCpuUsPerChangeAndStream: number;
  openSeconds: number;
  intervalMs: number;
  users: number;
  idleSessionChecksPerSecond: number;
  capAnswer: number;
}

async function openStream(target: string, cookie: string, dispatcher: Agent, onChange: (id: number) => void): Promise<(() => void) | number> {
  const abort = new AbortController();
  const res = await request(`${target}/live`, { headers: { cookie, accept: 'text/event-stream', 'sec-fetch-site': 'same-origin' }, signal: abort.signal, dispatcher });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return res.statusCode;
  }
  let pending = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      if (!block.includes('event: change')) continue;
      const id = /^id: ?(\d+)/m.exec(block)?.[1];
      if (id) onChange(Number(id));
    }
  });
  res.body.on('error', () => undefined);
  return () => abort.abort();
}

export async function runLive(db: BenchDb, opts: { streams?: number; changes?: number; intervalMs?: number } = {}): Promise<LiveResult> {
  const streams = opts.streams ?? 1000;
  const changes = opts.changes ?? 40;
  const intervalMs = opts.intervalMs ?? 500;
  const stack = await startStack(db);
  const dispatcher = new Agent({ connections: streams + 10, pipelining: 0 });
  const closers: (() => void)[] = [];
  try {
    const emails = await stack.upstream.ask<string[]>('liveUsers', { n: streams, role: 'Admin' });
    const cookies: string[] = [];
    // A few at a time (set-up, not measured), each tried again on a slow answer of a busy machine.
    const signedIn = async (email: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await signIn(stack.target, email);
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    };
    for (let i = 0; i < emails.length; i += 5) cookies.push(...(await Promise.all(emails.slice(i, i + 5).map(signedIn))));
    const token = await apiToken(stack.api);
    const created = await request(`${stack.api}assets/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Live bench van', asset_type: 'van', status: 1 }),
    });
    const asset = ((await created.body.json()) as { data: { id: number; version: number } }).data;

    const before = (await stack.backOffice.ask('startWindow')) as { rssMb: number };
    const arrivals = new Map<number, number[]>();
    const t0 = performance.now();
    for (let i = 0; i < streams; i += 50) {
      const batch = cookies.slice(i, i + 50).map((cookie) =>
        openStream(stack.target, cookie, dispatcher, (id) => {
          let list = arrivals.get(id);
          if (!list) arrivals.set(id, (list = []));
          list.push(performance.now());
        }),
      );
      for (const opened of await Promise.all(batch)) if (typeof opened === 'function') closers.push(opened);
    }
    const openSeconds = (performance.now() - t0) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = (await stack.backOffice.ask('endWindow')) as { rssMb: number };

    // An idle stretch as long as the changes take (at least one session-check period): the CPU the open streams
    // cost without changes (pings, timers), and the session checks they send the API.
    const idleMs = Math.max(changes * intervalMs, 31_000);
    await stack.upstream.ask('resetCounts');
    const idleStart = (await stack.backOffice.ask('cpuMs')) as number;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleCpu = (((await stack.backOffice.ask('cpuMs')) as number) - idleStart) * ((changes * intervalMs) / idleMs);
    const idleChecks = ((await stack.upstream.ask<Record<string, number>>('counts')) as Record<string, number>)[`GET ${new URL(stack.api).pathname}account/`] ?? 0;
    // One session past its cap: the first user's session already holds one stream.
    const opened = closers.length;
    let capAnswer = 200;
    const extra: (() => void)[] = [];
    for (let n = 1; n <= LIVE_LIMITS.perSession && capAnswer === 200; n++) {
      const more = await openStream(stack.target, cookies[0]!, dispatcher, () => undefined);
      if (typeof more === 'function') extra.push(more);
      else capAnswer = more;
    }
    for (const close of extra) close();

    const sentAt = new Map<number, number>();
    let version = asset.version;
    const cpuStart = (await stack.backOffice.ask('cpuMs')) as number;
    for (let n = 0; n < changes; n++) {
      const started = performance.now();
      const res = await request(`${stack.api}assets/${asset.id}/`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ version, notes: `live ${n}` }),
      });
      const body = (await res.body.json()) as { data: { version: number } };
      version = body.data.version;
      // The entry's id is the event's id: the newest entry of this record.
      sentAt.set(n, started);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const busyCpu = ((await stack.backOffice.ask('cpuMs')) as number) - cpuStart;

    // Events in id order are the changes in order (one writer): pair them with their send times.
    const ids = [...arrivals.keys()].sort((a, b) => a - b).slice(-changes);
    const latencies: number[] = [];
    let deliveries = 0;
    ids.forEach((id, n) => {
      const sent = sentAt.get(n)!;
      for (const at of arrivals.get(id) ?? []) {
        latencies.push(at - sent);
        deliveries++;
      }
    });
    const fanOut = Math.max(0, busyCpu - idleCpu) / changes;
    return {
      streams,
      opened,
      changes,
      deliveries,
      missing: streams * changes - deliveries,
      latencyMs: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)), max: round(Math.max(...latencies)) },
      rssBeforeMb: before.rssMb,
      rssAfterMb: after.rssMb,
      memoryPerStreamKb: Math.round(((after.rssMb - before.rssMb) * 1024) / streams),
      fanOutCpuMsPerChange: round(fanOut),
      fanOutCpuUsPerChangeAndStream: round((fanOut * 1000) / streams),
      openSeconds: round(openSeconds),
      intervalMs,
      users: cookies.length,
      idleSessionChecksPerSecond: round(idleChecks / (idleMs / 1000)),
      capAnswer,
    };
  } finally {
    for (const close of closers) close();
    await dispatcher.close().catch(() => undefined);
    await stack.stop();
  }
}

const round = (v: number) => Number(v.toFixed(2));
