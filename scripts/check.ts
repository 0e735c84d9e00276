import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { buildIsCurrent } from './ensure-build.ts';

/**
 * The static half of `npm test`: the build (when stale), the type check, lint, the format check and the duplicates
 * budget, run side by side. Each is one mostly single-threaded process, so on CI's two cores the five take about the time of the two
 * longest rather than their sum. Each step's output is printed whole when it ends, so the log reads as if they
 * ran one after another; the exit code is the first failure's.
 */
const root = join(import.meta.dirname, '..');

interface Step {
  name: string;
  args: string[];
}

const steps: Step[] = [
  ...(buildIsCurrent() ? [] : [{ name: 'build', args: ['run', 'build'] }]),
  { name: 'typecheck', args: ['run', 'typecheck'] },
  { name: 'lint', args: ['run', 'lint'] },
  { name: 'format', args: ['run', 'format:check'] },
  // Code written twice in app source stays within its budget (ADR 074): about a second.
  { name: 'duplicates', args: ['run', 'duplicates:budget'] },
];

function run(step: Step): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['--silent', ...step.args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n── ${step.name}: ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

const codes = await Promise.all(steps.map(run));
const failed = steps.filter((_, i) => codes[i] !== 0).map((step) => step.name);
if (failed.length > 0) {
  process.stdout.write(`\nFailed: ${failed.join(', ')}\n`);
  process.exit(1);
}
