import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_ENV_DEFAULTS, NODE_FLAGS, RENDER_WORKER_SEMI_SPACE_MB, missingNodeEnv, missingNodeFlags } from '../../server/node-flags.ts';

const dir = mkdtempSync(join(tmpdir(), 'node-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script that does what server/main.ts does first, then says how it runs. */
function relaunchingScript(): string {
  const file = join(dir, 'main.ts');
  writeFileSync(
    file,
    `import { relaunchWithNodeFlags } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'server', 'node-flags.ts'))};
relaunchWithNodeFlags(import.meta.filename);
process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2), env: process.env.NODE_FLAGS_TEST, mmapThreshold: process.env.MALLOC_MMAP_THRESHOLD_ }));
`,
  );
  return file;
}

// The tests that start a Node process allow a minute: the unit project's 5 s default was passed by a child's start
// and churn on a busy two-core machine (seen: a timeout in a unit run at load 13).
describe('the V8 flags production runs with (ADR 049)', () => {
  it('names the flags a process was started without; one given by hand counts, whatever its value', () => {
    expect(NODE_FLAGS).toContain('--max-semi-space-size=2');
    expect(missingNodeFlags([])).toEqual([...NODE_FLAGS]);
    expect(missingNodeFlags(['--max-semi-space-size=16'])).toEqual([]);
    expect(missingNodeFlags(['--max_semi_space_size=16'])).toEqual([]);
    expect(missingNodeFlags(['--expose-gc'])).toEqual([...NODE_FLAGS]);
  });

  it('names the environment defaults the process lacks; a value set by hand counts', () => {
    expect(NODE_ENV_DEFAULTS).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(missingNodeEnv({})).toEqual(NODE_ENV_DEFAULTS);
    expect(missingNodeEnv({ MALLOC_MMAP_THRESHOLD_: '131072' })).toEqual({});
  });

  it('started without them, the process re-executes itself in place with them, its arguments and environment kept', { timeout: 60_000 }, () => {
    const script = relaunchingScript();
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_FLAGS_TEST: 'kept', NODE_OPTIONS: '' };
    delete env.MALLOC_MMAP_THRESHOLD_;
    const run = spawnSync(process.execPath, [script, '--some', 'argument'], { encoding: 'utf8', env });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { pid: number; execArgv: string[]; args: string[]; env: string; mmapThreshold: string };
    expect(out.execArgv).toEqual(expect.arrayContaining([...NODE_FLAGS]));
    expect(out.args).toEqual(['--some', 'argument']);
    expect(out.env).toBe('kept');
    expect(out.mmapThreshold).toBe('65536');
    // The same process (execve), not a child: signals and the process id a supervisor knows still reach the server.
    expect(out.pid).toBe(run.pid);
  });

  it('keeps values given by hand and does not re-execute', { timeout: 60_000 }, () => {
    const script = relaunchingScript();
    const run = spawnSync(process.execPath, ['--max-semi-space-size=16', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', MALLOC_MMAP_THRESHOLD_: '131072' },
    });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { pid: number; execArgv: string[]; mmapThreshold: string };
    expect(out.execArgv).toEqual(['--max-semi-space-size=16']);
    expect(out.mmapThreshold).toBe('131072');
  });
});

describe("a render worker's young generation (ADR 053)", () => {
  it('isolates made after the call get its semi-spaces; the main isolate grows on the process flag', { timeout: 60_000 }, () => {
    const file = join(dir, 'young.mjs');
    // Each isolate allocates short-lived objects until V8 has grown its new space as far as it may, then says how far.
    writeFileSync(
      file,
      `import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { getHeapSpaceStatistics } from 'node:v8';
import { sizeNextIsolatesYoungGeneration } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'server', 'node-flags.ts'))};
const churn = () => { let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 2e5) keep = []; } };
const newSpaceMb = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const inWorker = (semi) => new Promise((resolve) => {
  sizeNextIsolatesYoungGeneration(semi);
  new Worker(new URL(import.meta.url), { workerData: 'churn' }).once('message', resolve);
});
if (!isMainThread) { churn(); parentPort.postMessage(newSpaceMb()); }
else {
  const before = await inWorker(0);
  churn();
  const main = newSpaceMb();
  const sized = await inWorker(${RENDER_WORKER_SEMI_SPACE_MB});
  process.stdout.write(JSON.stringify({ before, sized, main }));
}
`,
    );
    const run = spawnSync(process.execPath, ['--max-semi-space-size=2', file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { before: number; sized: number; main: number };
    // Two semi-spaces each: 2 MB ones make at most 4 MB of new space.
    expect(out.before).toBeLessThanOrEqual(4);
    expect(out.main).toBeLessThanOrEqual(4);
    expect(out.sized).toBeGreaterThan(8);
    expect(out.sized).toBeLessThanOrEqual(2 * RENDER_WORKER_SEMI_SPACE_MB);
  });
});
