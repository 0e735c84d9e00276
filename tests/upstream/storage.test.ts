import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../upstream/db.ts';
import { migrate } from '../../upstream/migrate.ts';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';

const dir = mkdtempSync(join(tmpdir(), 'upstream-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PGlite on disk', () => {
  it('migrates once, keeps the generated JWT secret across restarts, and seeds only an empty database', async () => {
    const options = {
      port: 0,
      dataDir: join(dir, 'pglite'),
      seedDemo: true,
      demoPassword: 'disk-password',
      logger: testLogger('upstream-storage'),
      config: { scryptCost: 1024 },
    } as const;
    const first = await startUpstream(options);
    const login = await fetch(first.url + 'account/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'disk-password' }),
    });
    const { token } = ((await login.json()) as { data: { token: string } }).data;
    const secret = first.config.jwtSecret;
    const users = (await first.db.query<{ n: number }>('select count(*)::int as n from users')).rows[0]!.n;
    expect(users).toBeGreaterThanOrEqual(24);
    await first.close();

    const second = await startUpstream({ ...options, demoPassword: 'another-password' });
    try {
      expect(second.config.jwtSecret).toBe(secret);
      expect(await migrate(second.db)).toEqual([]);
      expect((await second.db.query<{ n: number }>('select count(*)::int as n from users')).rows[0]!.n).toBe(users);
      const profile = await fetch(second.url + 'account/', { headers: { authorization: `Bearer ${token}` } });
      expect(profile.status).toBe(200);
      // Upload files live beside the database, not in a temporary folder.
      expect(second.config.uploadDir).toBe(join(dir, 'uploads'));
    } finally {
      await second.close();
    }
  });
});

describe('schema', () => {
  it('rolls a failed transaction back and refuses values outside the closed sets', async () => {
    const db = await openDatabase();
    try {
      expect(await migrate(db)).toEqual(expect.arrayContaining(['001-catalogue.sql', '002-accounts.sql', '003-user-checks.sql']));
      await expect(
        db.transaction(async (tx) => {
          await tx.query("insert into users (email) values ('rollback@example.com')");
          throw new Error('stop');
        }),
      ).rejects.toThrow('stop');
      expect((await db.query("select 1 from users where email = 'rollback@example.com'")).rows).toHaveLength(0);

      await expect(db.query("insert into users (email, country) values ('fr@example.com', 'fr')")).rejects.toMatchObject({ code: '23514' });
      await expect(db.query("insert into users (email, user_type) values ('three@example.com', 3)")).rejects.toMatchObject({ code: '23514' });
      await db.query("insert into users (email) values ('Case@Example.com')");
      await expect(db.query("insert into users (email) values ('case@example.com')")).rejects.toMatchObject({ code: '23505' });
      const { rows } = await db.query<{ email: string; max_bicycles: number; version: number; invitation_status: string }>(
        "select email, max_bicycles, version, invitation_status from users where email = 'Case@Example.com'",
      );
      expect(rows[0]).toEqual({ email: 'Case@Example.com', max_bicycles: 3, version: 1, invitation_status: 'none' });
    } finally {
      await db.close();
    }
  });
});
