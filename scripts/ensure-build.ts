import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Builds when dist/ is missing or older than any source file, so `npm start` and `npm test` always serve current code. */
const root = join(import.meta.dirname, '..');
const outputs = [
  join(root, 'dist/client/.vite/manifest.json'),
  join(root, 'dist/client/.vite/manifest-public.json'),
  join(root, 'dist/client/.vite/module-chunks.json'),
  join(root, 'dist/server/main.js'),
  join(root, 'dist/server/entry-server.js'),
];
const sources = ['client', 'shared', 'server', 'locales', 'upstream', 'vite.config.ts', 'package.json'];

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

export function buildIsCurrent(): boolean {
  if (!outputs.every((file) => existsSync(file))) return false;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  return sources.every((source) => newest(join(root, source)) <= built);
}

/**
 * The build's own listing (every chunk of three builds, some 400 lines) is kept back: `npm start` prints one line
 * and then its banner. A failed build prints the whole output, and `npm run build` still lists every chunk.
 */
export function ensureBuild(): void {
  if (buildIsCurrent()) return;
  process.stdout.write('Building the back office (client assets and server bundle)…');
  const started = Date.now();
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    process.stdout.write(' failed:\n' + result.stdout + result.stderr);
    process.exit(result.status ?? 1);
  }
  process.stdout.write(` done in ${((Date.now() - started) / 1000).toFixed(0)} s (dist/; \`npm run build\` lists the chunks).\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBuild();
