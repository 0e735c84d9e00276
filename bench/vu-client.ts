import { Agent, request } from 'undici';
import { requestMix } from './support/request-mix.ts';

/**
 * Virtual users: each is a loop that sends the next request of the mix, waits for the answer, then
 * thinks until its next second. Latency is timed around each request, so the generator's own pacing
 * does not inflate it (autocannon's `connectionRate` did, see RESULTS.md).
 */
const url = process.env.TARGET!;
const cookie = process.env.COOKIE!;
const users = Number(process.env.CONNECTIONS ?? 200);
const duration = Number(process.env.DURATION ?? 60) * 1000;
const thinkMs = 1000 / Number(process.env.RATE && process.env.RATE !== '0' ? process.env.RATE : 1);

const mix = requestMix(cookie);

const dispatcher = new Agent({ connections: users, keepAliveTimeout: 30_000 });
const latencies: number[] = [];
const statusCodes: Record<string, number> = {};
let errors = 0;
const end = Date.now() + duration;

async function virtualUser(offset: number) {
  await new Promise((r) => setTimeout(r, (offset * thinkMs) / users)); // spread the starts over one think time
  for (let i = offset; Date.now() < end; i++) {
    const next = mix[i % mix.length]!;
    const started = performance.now();
    try {
      const res = await request(url + next.path, { method: next.method, headers: next.headers, body: next.body, dispatcher });
      await res.body.dump();
      statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
    } catch {
      errors++;
    }
    const took = performance.now() - started;
    latencies.push(took);
    await new Promise((r) => setTimeout(r, Math.max(0, thinkMs - took)));
  }
}

await Promise.all(Array.from({ length: users }, (_, i) => virtualUser(i)));
await dispatcher.close();
latencies.sort((a, b) => a - b);
const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
const non2xx = Object.entries(statusCodes)
  .filter(([code]) => !code.startsWith('2'))
  .reduce((n, [, c]) => n + c, 0);
process.stdout.write(
  JSON.stringify({
    requests: latencies.length,
    rps: Math.round(latencies.length / (duration / 1000)),
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: Math.round(latencies[latencies.length - 1] ?? 0) },
    non2xx,
    errors,
    timeouts: 0,
    statusCodes: Object.fromEntries(Object.entries(statusCodes).map(([k, v]) => [k, { count: v }])),
  }) + '\n',
);
