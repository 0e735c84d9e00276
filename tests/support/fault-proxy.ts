import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export type Fault = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'status'; status: number } | { kind: 'reset' };

/**
 * A loopback proxy in front of the real upstream that injects faults per request: delays, error
 * statuses, connection resets. It counts what reached it, to prove retries and their absence.
 */
export async function startFaultProxy(target: string) {
  const targetUrl = new URL(target);
  let rule: (req: IncomingMessage) => Fault = () => ({ kind: 'pass' });
  const hits: { method: string; path: string }[] = [];

  const server: Server = createServer((req, res) => {
    hits.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]! });
    const fault = rule(req);
    if (fault.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'status') {
      res
        .writeHead(fault.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: false, data: null, error: { message: 'internal_error', cause: 'Injected fault' } }));
      return;
    }
    const forward = () => {
      if (req.destroyed || res.destroyed) return; // the caller gave up while we delayed
      const upstream = request({ hostname: targetUrl.hostname, port: targetUrl.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    };
    if (fault.kind === 'delay') setTimeout(forward, fault.ms);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    hits,
    setRule(next: (req: IncomingMessage) => Fault) {
      rule = next;
    },
    reset() {
      rule = () => ({ kind: 'pass' });
      hits.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
