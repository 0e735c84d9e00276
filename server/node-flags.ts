import { isMainThread } from 'node:worker_threads';

/**
 * The V8 flags the back office runs with in production (ADR 049), in this one place: `node dist/server/main.js`
 * (the image, Compose, Kubernetes), `npm start` and the benchmarks' back office all get them from here.
 *
 * `--max-semi-space-size=2`: V8 lets the young generation grow to 2 × 32 MB semi-spaces here, and once a burst of
 * allocation (start-up, the first pages, an export) has touched those pages they stay resident, in the main
 * thread and in every render worker (a worker's isolate takes the process's flags). With 2 MB semi-spaces the
 * back office rests ~30 MB lower, a 1M-row export no longer grows it, and the SSR throughput is unchanged
 * within the shared machine's noise (ADR 049: figures, and 8 MB measured too).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

const flagName = (flag: string) => flag.split('=')[0]!.replace(/_/g, '-');

/** The flags of NODE_FLAGS this process was started without (one given by hand, with any value, counts as given). */
export function missingNodeFlags(execArgv: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): string[] {
  const given = new Set(execArgv.filter(Boolean).map(flagName));
  return NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/**
 * Started without NODE_FLAGS, the process replaces itself with `node <flags> <script> <args>` (`process.execve`:
 * same process id, same open files and environment, nothing loaded yet is kept; V8 reads heap sizes only when
 * it starts). Returns only when there is nothing to do, or where execve does not exist (Windows), where the
 * server runs with V8's defaults.
 */
export function relaunchWithNodeFlags(script: string): void {
  const missing = missingNodeFlags();
  if (missing.length === 0 || !isMainThread || typeof process.execve !== 'function') return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, script, ...process.argv.slice(2)], process.env);
}
