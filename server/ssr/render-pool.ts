import type { DehydratedState } from '@tanstack/react-query';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { RENDER_WORKER_ROLE, type AppRenderJob, type RenderOutput } from '../../shared/ssr-contract.ts';
import { sizeNextIsolatesYoungGeneration } from '../node-flags.ts';

/**
 * A render the pool gave up on (ADR 029): the worker answered nothing for `timeoutMs` while it had a job
 * (a render that loops), or it ran out of the heap its `resourceLimits` allow. The worker is replaced;
 * the page answers 503 with Retry-After.
 */
export class RenderUnavailableError extends Error {
  readonly reason: 'timeout' | 'memory';
  constructor(reason: 'timeout' | 'memory') {
    super(reason === 'timeout' ? 'render timed out: the worker was replaced' : 'render worker ran out of memory: the worker was replaced');
    this.name = 'RenderUnavailableError';
    this.reason = reason;
  }
}

export interface RenderPoolOptions {
  /**
   * A worker with jobs in flight that answers none of them for this long is stuck (a render that
   * loops): its jobs fail with RenderUnavailableError('timeout') and another worker takes its place.
   * Counted from the later of the job's arrival at an idle worker and the worker's last answer, so a
   * healthy worker working through a queue under load is never cut off. 0: no timeout.
   */
  timeoutMs?: number;
  /** Each worker's semi-space size in MB (ADR 053); 0 or unset: the process's (NODE_FLAGS). */
  semiSpaceMb?: number;
  /** V8 limits of each worker (heap sizes in MB); a worker over them dies and is replaced. */
  resourceLimits?: ResourceLimits;
}

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
  /** Stuck-worker timer, running while jobs are in flight; restarted by every answer. */
  watchdog: NodeJS.Timeout | null;
  /** Given up on (stuck, out of memory) or closing: takes no jobs, and its exit starts no replacement. */
  retired: boolean;
  /** The worker has loaded its module and listens: the timeout counts from here, never a slow start. */
  ready: boolean;
  /** (Re)starts the stuck-worker timer. */
  arm: () => void;
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
      query.state.error || query.state.fetchFailureReason
        ? { ...query, state: { ...query.state, error: plain(query.state.error) as Error | null, fetchFailureReason: plain(query.state.fetchFailureReason) as Error | null } }
        : query,
    ),
  };
}

/** What a render worker posts: it is ready, or a job's output or error. */
interface WorkerMessage {
  id: number;
  output?: RenderOutput;
  error?: string;
  ready?: true;
}

/** Stops a slot's stuck-worker timer. */
function disarm(slot: Slot) {
  if (slot.watchdog) clearTimeout(slot.watchdog);
  slot.watchdog = null;
}

/** A worker's message: it is ready (its jobs' time starts), or a job is answered (the next job's time starts). */
function onWorkerMessage(slot: Slot, message: WorkerMessage) {
  if (message.ready) {
    slot.ready = true;
    if (slot.pending.size > 0) slot.arm();
    return;
  }
  const waiting = slot.pending.get(message.id);
  if (!waiting) return;
  slot.pending.delete(message.id);
  if (slot.pending.size === 0) {
    slot.worker.unref();
    disarm(slot);
  } else {
    // Progress: the next job's time starts now.
    slot.arm();
  }
  if (message.output) waiting.resolve(message.output);
  else waiting.reject(new Error(`render failed in worker: ${message.error}`));
}

/**
 * React rendering off the main thread (ADR 027): the main thread fetches a page's data and answers
 * requests; `size` workers, each with the SSR bundle loaded, turn the data into HTML. Under load the
 * API's answers then wait behind no render. A job goes to the worker with the fewest in flight; a worker
 * that dies fails its jobs (the page answers 500 as a failed render would) and is replaced.
 */
export function createRenderPool(entryServerPath: string, size: number, log: FastifyBaseLogger, options: RenderPoolOptions = {}): RenderPool {
  let nextId = 1;
  let closing = false;
  const slots: Slot[] = [];
  const timeoutMs = options.timeoutMs ?? 0;

  const spawn = (index: number) => {
    sizeNextIsolatesYoungGeneration(options.semiSpaceMb ?? 0);
    // The production bundle renders with React's production build whatever NODE_ENV the process has (a test run's
    // `test`): React picks its build from NODE_ENV when first loaded, and its development build renders about twice as slowly.
    const worker = new Worker(entryServerPath, {
      workerData: { role: RENDER_WORKER_ROLE },
      env: { ...process.env, NODE_ENV: 'production' },
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    });
    const slot: Slot = { worker, pending: new Map(), watchdog: null, retired: false, ready: false, arm: () => undefined };
    const fail = (error: Error) => {
      disarm(slot);
      for (const waiting of slot.pending.values()) waiting.reject(error);
      slot.pending.clear();
    };
    /** Stops using this worker and, unless closing, starts another in its place at once. */
    const retire = (error: Error) => {
      if (slot.retired) return;
      slot.retired = true;
      fail(error);
      void worker.terminate();
      if (!closing && slots[index] === slot) spawn(index);
    };
    slot.arm = () => {
      if (timeoutMs <= 0) return;
      if (slot.watchdog) clearTimeout(slot.watchdog);
      slot.watchdog = setTimeout(() => {
        log.error({ timeoutMs, jobs: slot.pending.size }, 'render worker answered nothing in time; replacing it');
        retire(new RenderUnavailableError('timeout'));
      }, timeoutMs);
      slot.watchdog.unref();
    };
    worker.on('message', (message: WorkerMessage) => onWorkerMessage(slot, message));
    worker.on('error', (error: Error & { code?: string }) => {
      log.error({ err: error }, 'render worker failed');
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') retire(new RenderUnavailableError('memory'));
      else fail(error);
    });
    worker.on('exit', (code) => {
      fail(new Error(`render worker exited (${code})`));
      if (!closing && !slot.retired) {
        log.warn({ code }, 'render worker exited; starting another');
        slot.retired = true;
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
        if (slot.pending.size === 0 && slot.ready) slot.arm();
        slot.pending.set(id, { resolve, reject });
        slot.worker.ref();
        slot.worker.postMessage({ id, job: { ...job, dehydrated: cloneable(job.dehydrated) } });
      });
    },
    threads: () => slots.map((slot) => slot.worker),
    async close() {
      closing = true;
      await Promise.all(
        slots.map((slot) => {
          if (slot.watchdog) clearTimeout(slot.watchdog);
          return slot.worker.terminate();
        }),
      );
    },
  };
}
