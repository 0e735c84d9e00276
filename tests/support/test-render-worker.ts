import { parentPort } from 'node:worker_threads';

/**
 * Tests only (ADR 029): a stand-in for the SSR bundle in a render worker, loaded through the render pool's
 * module path (`testWorkerModule` of the SSR mode). A job whose address says `loop` never finishes, one that
 * says `hog` allocates until the worker's heap limit stops it, `slow` takes 50 ms; any other answers at once.
 */
const port = parentPort!;
port.on('message', (message: { id: number; job: { url: string } }) => {
  const { url } = message.job;
  if (url.includes('loop')) for (;;);
  if (url.includes('hog')) {
    const kept: number[][] = [];
    for (;;) kept.push(Array.from({ length: 10_000 }, (_, i) => i * Math.random()));
  }
  if (url.includes('slow')) {
    const until = Date.now() + 50;
    while (Date.now() < until);
  }
  port.postMessage({
    id: message.id,
    output: {
      kind: 'app',
      html: `<p data-testid="test-render">${url.replace(/[<>&"]/g, '')}</p>`,
      head: '',
      title: 'test',
      state: '{}',
      modules: [],
      status: 200,
      timings: { prefetchMs: 0, renderMs: 0, renderCpuMs: 0 },
    },
  });
});
port.postMessage({ ready: true });
