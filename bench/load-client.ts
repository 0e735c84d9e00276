import autocannon from 'autocannon';
import { requestMix } from './support/request-mix.ts';

/**
 * The load generator, in its own process so it does not share the server's event loop.
 * Mixed traffic of one signed-in admin session: list queries, profile reads, SSR pages, and
 * profile writes (PUT upstream), in the proportions of a busy back office.
 */
const url = process.env.TARGET!;
const cookie = process.env.COOKIE!;
const connections = Number(process.env.CONNECTIONS ?? 200);
const duration = Number(process.env.DURATION ?? 60);
/** Requests per second per virtual user (think time); unset = closed loop, as fast as answers come. */
const rate = process.env.RATE && process.env.RATE !== '0' ? Number(process.env.RATE) : undefined;

const requests = requestMix(cookie);

// ONLY=<index> runs one kind of request alone (to see which one costs what).
const only = process.env.ONLY === undefined ? requests : [requests[Number(process.env.ONLY)]!];
const result = await autocannon({ url, connections, duration, requests: only, timeout: 20, ...(rate ? { connectionRate: rate } : {}) });
process.stdout.write(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
  }) + '\n',
);
