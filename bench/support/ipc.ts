import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Benchmarked servers run in child processes of their own (as in production, and so the load generator
 * does not share their event loop); the orchestrator asks them for figures only they can see (event-loop
 * delay, peak RSS, render timings) over the IPC channel.
 */
export interface Child {
  process: ChildProcess;
  ready: Record<string, unknown>;
  ask<T = unknown>(cmd: string, args?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startChild(file: string, env: Record<string, string | undefined>, opts: { execArgv?: string[] } = {}): Promise<Child> {
  const child = fork(file, [], { env: { ...process.env, ...env }, execArgv: opts.execArgv ?? [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${file} exited ${code} before it was ready`));
    child.once('exit', onExit);
    child.on('message', (message: { ready?: Record<string, unknown>; id?: number; result?: unknown; error?: string }) => {
      if (message.ready) {
        child.off('exit', onExit);
        resolve(message.ready);
      } else if (message.id !== undefined) {
        pending.get(message.id)?.(message.error ? Promise.reject(new Error(message.error)) : message.result);
        pending.delete(message.id);
      }
    });
  });
  return {
    process: child,
    ready,
    ask: <T>(cmd: string, args?: unknown) =>
      new Promise<T>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve as (value: unknown) => void);
        child.send({ id, cmd, args });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** The child side: answer commands from a table of handlers. */
export function serveCommands(handlers: Record<string, (args: unknown) => unknown>) {
  process.on('message', async (message: { id: number; cmd: string; args?: unknown }) => {
    try {
      const handler = handlers[message.cmd];
      if (!handler) throw new Error(`unknown command ${message.cmd}`);
      process.send!({ id: message.id, result: await handler(message.args) });
    } catch (error) {
      process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}

/** Resets the kernel's peak-RSS mark of this process (Linux), so VmHWM covers only what follows. */
export function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux: peakRssMb falls back to the current RSS
  }
}

/** Peak resident set size of this process (VmHWM) since start or the last reset, in MB. */
export function peakRssMb(): number {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    if (kb) return Math.round(kb / 1024);
  } catch {
    // not Linux
  }
  return Math.round(process.memoryUsage().rss / 1048576);
}
