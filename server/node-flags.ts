import { setFlagsFromString } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

/**
 * The V8 flags the back office runs with in production (ADR 049), in this one place: `node dist/server/main.js`
 * (the image, Compose, Kubernetes), `npm start` and the benchmarks' back office all get them from here.
 *
 * `--max-semi-space-size=2`: V8 lets the young generation grow to 2 × 32 MB semi-spaces here, and once a burst of
 * allocation (start-up, the first pages, an export) has touched those pages they stay resident. With 2 MB
 * semi-spaces the main thread rests lower and a 1M-row export no longer grows it (ADR 049). The render workers
 * get their own size (RENDER_WORKER_SEMI_SPACE_MB, ADR 053): 2 MB made a page's render cost ~30 % more CPU.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/**
 * Environment the process runs with, unless already set (ADR 049). `MALLOC_MMAP_THRESHOLD_`: glibc serves
 * allocations of 64 KB and more (socket chunks, zlib windows, the TypeScript stripper's and V8's large
 * buffers) from mmap, so freeing one gives its pages back at once, instead of leaving them resident in the
 * malloc heap behind smaller live blocks; setting it also stops glibc from raising that threshold as it goes.
 * The back office rests 10-17 MB lower. Ignored where the C library is not glibc.
 */
export const NODE_ENV_DEFAULTS: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '65536' };

const flagName = (flag: string) => flag.split('=')[0]!.replace(/_/g, '-');

/** The flags of NODE_FLAGS this process was started without (one given by hand, with any value, counts as given). */
export function missingNodeFlags(execArgv: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): string[] {
  const given = new Set(execArgv.filter(Boolean).map(flagName));
  return NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/** The variables of NODE_ENV_DEFAULTS this process's environment lacks. */
export function missingNodeEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(NODE_ENV_DEFAULTS).filter(([name]) => env[name] === undefined));
}

/**
 * Started without NODE_FLAGS or NODE_ENV_DEFAULTS, the process replaces itself with `node <flags> <script> <args>` (`process.execve`:
 * same process id, same open files and environment, nothing loaded yet is kept; V8 reads heap sizes only when
 * it starts). Returns only when there is nothing to do, or where execve does not exist (Windows), where the
 * server runs with V8's defaults.
 */
export function relaunchWithNodeFlags(script: string): void {
  const missing = missingNodeFlags();
  const env = missingNodeEnv();
  if ((missing.length === 0 && Object.keys(env).length === 0) || !isMainThread || typeof process.execve !== 'function') return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, script, ...process.argv.slice(2)], { ...process.env, ...env });
}

/**
 * The semi-space size of a render worker's isolate, in MB (ADR 053): V8's default is 32, the main thread's is
 * 2 (NODE_FLAGS). A `/bicycles` render allocates more than a 2 MB semi-space holds, so with 2 MB it ran ~8
 * scavenges, promoted what was alive at each and left the rest to the full collector and its helper threads:
 * the page cost ~14 ms of the process's CPU. With 16 MB, ~10 ms; the worker keeps ~28 MB more resident once
 * it has rendered.
 */
export const RENDER_WORKER_SEMI_SPACE_MB = 16;

/**
 * Gives the isolates made from now on (the render workers, and any that replaces one) `semiSpaceMb` semi-spaces;
 * 0 leaves them on the process's flag. V8 sizes a heap once, when its isolate is made, and a process flag beats a
 * Worker's `resourceLimits.maxYoungGenerationSizeMb`; so it is the flag that changes, right before a worker
 * starts. The main isolate, made long before, keeps NODE_FLAGS' 2 MB. The flag stays set: every isolate made
 * after it gets the size, which in the back office are the render workers only (and their replacements).
 */
export function sizeNextIsolatesYoungGeneration(semiSpaceMb: number): void {
  if (semiSpaceMb > 0) setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
}
