import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { buildIsCurrent } from './ensure-build.ts';

/**
 * The static half of `npm test`: the build (when stale), the type check, lint, the format check and the duplicates
 * budget. Each is one mostly single-threaded process. `node scripts/check.ts` runs all five side by side and exits
 * with the first failure's code. `npm test` (scripts/test-lanes.ts) runs the build first, as the browser tests serve
 * it, and the other four beside the test lanes at a lower priority (`nice`): on CI's two cores the lanes leave about
 * a seventh of the CPU idle while they wait on browsers and timers, and the checks fill it (ADR 071).
 *
 * Each step's output is printed whole when it ends, so the log reads as if they ran one after another.
 */
const root = join(import.meta.dirname, '..');

export interface Step {
  name: string;
  args: string[];
}

export const BUILD_STEP: Step = { name: 'build', args: ['run', 'build'] };

/** The checks that read the sources only: none needs the build, and none writes anything. */
export const STATIC_STEPS: Step[] = [
  { name: 'typecheck', args: ['run', 'typecheck'] },
  { name: 'lint', args: ['run', 'lint'] },
  { name: 'format', args: ['run', 'format:check'] },
  // Code written twice in app source stays within its budget (ADR 074): about a second.
  { name: 'duplicates', args: ['run', 'duplicates:budget'] },
];

/** Runs one step (`npm --silent <args>`), printing its output when it ends; resolves to its exit code. */
export function runStep(step: Step, options: { nice?: boolean } = {}): Promise<number> {
  const started = Date.now();
  const [command, args] = options.nice ? ['nice', ['-n', '10', 'npm', '--silent', ...step.args]] : ['npm', ['--silent', ...step.args]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n── ${step.name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/** Runs `steps` side by side; resolves to the names of those that failed. */
export async function runSteps(steps: Step[], options: { nice?: boolean } = {}): Promise<string[]> {
  const codes = await Promise.all(steps.map((step) => runStep(step, options)));
  return steps.filter((_, i) => codes[i] !== 0).map((step) => step.name);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const failed = await runSteps([...(buildIsCurrent() ? [] : [BUILD_STEP]), ...STATIC_STEPS]);
  if (failed.length > 0) {
    process.stdout.write(`\nFailed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
}
