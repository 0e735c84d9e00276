import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTemplates } from '../tests/support/pglite-template.ts';
import { BUILD_STEP, runStep, runSteps, STATIC_STEPS } from './check.ts';
import { buildIsCurrent } from './ensure-build.ts';

/**
 * `npm test` (ADR 071): the build when stale (and the PGlite templates beside it), then two Vitest processes side by
 * side, one per lane, and beside them, at a lower priority, the static checks (scripts/check.ts: type check, lint,
 * format, duplicates budget). The exit code is non-zero when a check or a lane fails.
 *
 * - `browser`: the e2e project, one file at a time (each file drives one Chromium against its own stack);
 * - `server`: the unit and integration projects, as many files at once as Vitest gives the machine, and beside them
 *   the few browser files of the `e2e-tail` project (vitest.config.ts), one at a time.
 *
 * Run in one Vitest process, the e2e files form a sequential group of their own that starts only when every other
 * file has finished, so a two-core machine spent the whole run on about one core. Side by side, the lanes share
 * nothing but the machine: every file still starts its own stack, each lane keeps its server logs in its own folder
 * (`tests/.logs/<lane>/`, read for secrets when the lane ends) and the PGlite templates (migrated; migrated and seeded) are built once here.
 *
 * Each lane's lines are printed as they come, prefixed with the lane's name; a lane that fails is printed again
 * whole at the end, so its failures read as one block. The exit code is non-zero when either lane fails.
 * Arguments (`npm test -- tests/unit/foo.test.ts`) run every check first, then one plain Vitest process with them.
 */
const root = join(import.meta.dirname, '..');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

interface Lane {
  name: string;
  args: string[];
}

const lanes: Lane[] = [
  { name: 'browser', args: ['--project', 'e2e'] },
  // And a few browser files, one at a time beside its own (vitest.config.ts, E2E_TAIL): the lanes end closer together.
  { name: 'server', args: ['--project', 'unit', '--project', 'integration', '--project', 'e2e-tail'] },
];

function run(args: string[], env: NodeJS.ProcessEnv, lane?: string): Promise<{ code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', ...args], {
      cwd: root,
      env: lane ? { ...env, TEST_LANE: lane } : env,
      stdio: lane ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    const chunks: Buffer[] = [];
    let partial = '';
    const relay = (chunk: Buffer) => {
      chunks.push(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`${lane} │ ${line}\n`);
    };
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    child.on('close', (code, signal) => {
      if (partial) process.stdout.write(`${lane} │ ${partial}\n`);
      resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks).toString('utf8'), seconds: (Date.now() - started) / 1000 });
    });
  });
}

const passThrough = process.argv.slice(2);
if (passThrough.length > 0) {
  const failed = await runSteps([...(buildIsCurrent() ? [] : [BUILD_STEP]), ...STATIC_STEPS]);
  if (failed.length > 0) {
    process.stdout.write(`\nFailed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
  const { code } = await run(passThrough, process.env);
  process.exit(code);
}

// The static checks read the sources only: they run beside everything else, at a lower priority (scripts/check.ts).
const statics = runSteps(STATIC_STEPS, { nice: true });
// One migrated PGlite database, and one with the demo data too, for both lanes (tests/global-setup.ts builds its own
// only when these are not set), made while the build runs: the browser tests serve the build, so the lanes wait for it.
const templateDir = mkdtempSync(join(tmpdir(), 'bo-pglite-template-'));
let results: Awaited<ReturnType<typeof run>>[] = [];
let buildFailed = false;
try {
  const started = Date.now();
  const [buildCode, templates] = await Promise.all([buildIsCurrent() ? 0 : runStep(BUILD_STEP), buildTemplates(templateDir)]);
  buildFailed = buildCode !== 0;
  process.stdout.write(
    `PGlite templates (migrated, seeded) and the build ready in ${((Date.now() - started) / 1000).toFixed(1)} s; lanes: ${lanes.map((l) => l.name).join(', ')}\n`,
  );
  const env = { ...process.env, ...templates };
  if (!buildFailed) results = await Promise.all(lanes.map((lane) => run(lane.args, env, lane.name)));
} finally {
  rmSync(templateDir, { recursive: true, force: true });
}
const staticFailures = [...(buildFailed ? ['build'] : []), ...(await statics)];
if (buildFailed) {
  process.stdout.write(`\nFailed: ${staticFailures.join(', ')} (the tests did not run)\n`);
  process.exit(1);
}

const outcomes = lanes.map((lane, i) => ({ lane, ...results[i]! }));
for (const { lane, code, output } of outcomes) {
  if (code !== 0) process.stdout.write(`\n══ lane ${lane.name} failed; its whole output once more ══\n${output}\n`);
}
process.stdout.write(`\n${outcomes.map(({ lane, code, seconds }) => `${lane.name}: ${code === 0 ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s`).join(' · ')}\n`);
if (staticFailures.length > 0) process.stdout.write(`Failed: ${staticFailures.join(', ')}\n`);
process.exit(outcomes.some(({ code }) => code !== 0) || staticFailures.length > 0 ? 1 : 0);
