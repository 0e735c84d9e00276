import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';

/**
 * Every server the tests start logs into `tests/.logs/` (`tests/.logs/<lane>/` in one of `npm test`'s lanes, so the
 * two lanes never empty each other's; one file per server), with the redaction the
 * production servers use; `tests/global-setup.ts` empties the directory before the run and, after it,
 * fails the run if any file holds a token, a session cookie, a password or a signed URL's signature.
 */
export const RUN_LOG_DIR = join(import.meta.dirname, '..', '.logs', process.env.TEST_LANE ?? '');

let serial = 0;

/** Logger options for a test server: info and up (warn for servers flooded on purpose), to its own file. */
export function testLogger(name: string, level: 'info' | 'warn' = 'info') {
  mkdirSync(RUN_LOG_DIR, { recursive: true });
  serial += 1;
  const stream = pino.destination({ dest: join(RUN_LOG_DIR, `${name}-${process.pid}-${serial}.ndjson`), sync: true });
  return { level, stream };
}

/** What must never appear in a log line. */
export const SECRET_PATTERNS: { name: string; pattern: RegExp }[] = [
  { name: 'a JWT (access token or Google ID token)', pattern: /eyJ[\w-]{10,}\.[\w-]{10,}/ },
  { name: 'a session cookie value', pattern: /bo_(at|rt)=v1\./ },
  { name: 'a signed URL signature', pattern: /[?&](sig|signature|X-Amz-Signature)=[^&\s"[]/ },
  { name: 'a refresh token in a body', pattern: /"refresh_token"\s*:\s*"[^"[]/ },
  { name: 'a password in a body', pattern: /"(password|new_password|old_password)"\s*:\s*"[^"[]/ },
];

/** The passwords the tests sign in with: none may reach a log. */
export const TEST_PASSWORDS = ['demo-password-1', 'flows-password-1', 'dashboard-pass', 'rules-password-1', 'race-password', 'disk-password'];

/** The leaks in one log text: `name` of each pattern found, with the offending line cut short. */
export function findSecrets(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split('\n')) {
    for (const { name, pattern } of SECRET_PATTERNS) if (pattern.test(line)) found.push(`${name}: ${line.slice(0, 200)}`);
    for (const password of TEST_PASSWORDS) if (line.includes(password)) found.push(`a test password: ${line.slice(0, 200)}`);
  }
  return found;
}
