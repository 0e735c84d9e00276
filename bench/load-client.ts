import autocannon from 'autocannon';

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

const json = { cookie, 'content-type': 'application/json', 'x-backoffice-csrf': '1' };
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const requests = [
  { method: 'GET' as const, path: `/trpc/companies.list?input=${input({ page: 1, page_size: 25 })}`, headers: { cookie } },
  { method: 'GET' as const, path: `/trpc/serviceSlots.list?input=${input({ ordering: '-start_time' })}`, headers: { cookie } },
  { method: 'GET' as const, path: '/trpc/session.me', headers: { cookie } },
  { method: 'GET' as const, path: '/companies', headers: { cookie } },
  { method: 'POST' as const, path: '/trpc/account.update', headers: json, body: JSON.stringify({ first_name: 'Ada', last_name: 'Admin' }) },
];

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
