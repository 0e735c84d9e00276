import type { DehydratedState } from '@tanstack/react-query';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { RENDER_WORKER_ROLE, type AppRenderJob, type RenderOutput } from '../../shared/ssr-contract.ts';

export interface RenderPool {
  render(job: AppRenderJob): Promise<RenderOutput>;
  close(): Promise<void>;
  readonly size: number;
  /** The worker threads now serving (a test stops one to see it replaced). */
  threads(): readonly Worker[];
}

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (output: RenderOutput) => void; reject: (error: Error) => void }>;
}

/**
 * Errors go to the worker by structured clone, which keeps an Error's message but not its own fields
 * (a tRPC error's `appCode`, which the page's error state reads). As plain objects of their own fields
 * they reach the worker as the page's state (JSON) brings them to the browser, so both render alike.
 */
function cloneable(state: DehydratedState): DehydratedState {
  const plain = (error: unknown) => (error instanceof Error ? { ...error } : error);
  return {
    ...state,
    queries: state.queries.map((query) =>
      query.state.error || query.state.fetchFailureReason ? { ...query, state: { ...query.state, error: plain(query.state.error) as Error | null, fetchFailureReason: plain(query.state.fetchFailureReason) as Error | null } } : query,
    ),
  };
}

/**
 * React rendering off the main thread (ADR 027): the main thread fetches a page's data and answers
 * requests; `size` workers, each with the SSR bundle loaded, turn the data into HTML. Under load the
 * API's answers then wait behind no render. A job goes to the worker with the fewest in flight; a worker
 * that dies fails its jobs (the page answers 500 as a failed render would) and is replaced.
 */
export function createRenderPool(entryServerPath: string, size: number, log: FastifyBaseLogger): RenderPool {
  let nextId = 1;
  let closing = false;
  const slots: Slot[] = [];

  const spawn = (index: number) => {
    const worker = new Worker(entryServerPath, { workerData: { role: RENDER_WORKER_ROLE } });
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (message: { id: number; output?: RenderOutput; error?: string }) => {
      const waiting = slot.pending.get(message.id);
      if (!waiting) return;
      slot.pending.delete(message.id);
      if (slot.pending.size === 0) worker.unref();
      if (message.output) waiting.resolve(message.output);
      else waiting.reject(new Error(`render failed in worker: ${message.error}`));
    });
    const fail = (error: Error) => {
      for (const waiting of slot.pending.values()) waiting.reject(error);
      slot.pending.clear();
    };
    worker.on('error', (error) => {
      log.error({ err: error }, 'render worker failed');
      fail(error);
    });
    worker.on('exit', (code) => {
      fail(new Error(`render worker exited (${code})`));
      if (!closing) {
        log.warn({ code }, 'render worker exited; starting another');
        spawn(index);
      }
    });
    // An idle worker does not keep the process alive; one with a job in flight does.
    worker.unref();
    slots[index] = slot;
  };
  for (let i = 0; i < size; i++) spawn(i);

  return {
    size,
    render(job) {
      const slot = slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
      const id = nextId++;
      return new Promise<RenderOutput>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.ref();
        slot.worker.postMessage({ id, job: { ...job, dehydrated: cloneable(job.dehydrated) } });
      });
    },
    threads: () => slots.map((slot) => slot.worker),
    async close() {
      closing = true;
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
