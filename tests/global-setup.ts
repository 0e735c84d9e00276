import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { findSecrets, RUN_LOG_DIR } from './support/run-log.ts';

/**
 * Around the whole run: start with no logs, and end by reading every test server's log (tests/.logs/).
 * A token, a session cookie, a password or a signature in any of them fails the run.
 */
export default function setup() {
  rmSync(RUN_LOG_DIR, { recursive: true, force: true });
  return () => {
    let files: string[] = [];
    try {
      files = readdirSync(RUN_LOG_DIR);
    } catch {
      return; // no server was started (a unit-only run)
    }
    const leaks: string[] = [];
    let bytes = 0;
    for (const file of files) {
      const path = join(RUN_LOG_DIR, file);
      bytes += statSync(path).size;
      for (const leak of findSecrets(readFileSync(path, 'utf8'))) leaks.push(`${file}: ${leak}`);
    }
    process.stdout.write(`\nLogs of the run: ${files.length} files, ${(bytes / 1e6).toFixed(1)} MB read for secrets, ${leaks.length} found.\n`);
    if (leaks.length) throw new Error(`secrets in the test servers' logs:\n${leaks.slice(0, 20).join('\n')}`);
  };
}
