import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../upstream/db.ts';
import { migrate, migrationsDir } from '../../upstream/migrate.ts';

/**
 * Migration 076 turns the services' fixed service types (basic, standard, premium, repair) into
 * references to the new catalogue: a database migrated before it, with services of every old value and
 * none, keeps each service's type as the catalogue row of the same name.
 */
describe('migration 076: service types become a catalogue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  let db: Db | undefined;
  afterAll(async () => {
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const copy = (accept: (file: string) => boolean) => {
    for (const file of readdirSync(migrationsDir()).filter((f) => f.endsWith('.sql') && accept(f))) copyFileSync(join(migrationsDir(), file), join(dir, file));
  };

  it('converts every existing value and drops the old column and its check', async () => {
    copy((file) => file < '076');
    db = await openDatabase();
    await migrate(db, dir);
    await db.exec(`
      insert into users (email) values ('buddy@example.com');
      insert into service_slots (name, start_time, end_time, max) values ('Morning', '08:00', '12:00', 4);
      insert into bicycles (brand_and_model, serial_number, groupset, drivetrain, front_brake, lock_model, tyre_size, tyre_diameter, valve_type, age_and_condition, purchase_date)
        values ('Crescent', 'S1', 'Nexus', 'chain', 'rim', 'Abus', '35', '622', 'presta', 'good', '2020-01-01');`);
    const oldValues = ['basic', 'standard', 'premium', 'repair', 'repair', null];
    for (const [i, value] of oldValues.entries()) {
      await db.query(
        `insert into services (service_date, service_slot_id, status, buddy_id, bicycle_id, origin_type, service_type, latitude, longitude)
         values ($1, 1, 2, 1, 1, 'one_off', $2, 59.33, 18.06)`,
        [`2030-01-0${i + 1}`, value],
      );
    }

    copy(() => true);
    expect(await migrate(db, dir)).toEqual(expect.arrayContaining(['076-service-types.sql', '077-service-rating.sql']));

    const { rows } = await db.query<{ service_date: string; name_en: string | null }>(
      "select to_char(s.service_date, 'YYYY-MM-DD') as service_date, t.name_en from services s left join service_types t on t.id = s.service_type_id order by s.service_date",
    );
    expect(rows.map((r) => r.name_en)).toEqual(['Basic', 'Standard', 'Premium', 'Repair', 'Repair', null]);
    const { rows: catalogue } = await db.query<{ name_en: string; name_sv: string; is_active: boolean }>('select name_en, name_sv, is_active from service_types order by id');
    expect(catalogue).toEqual([
      { name_en: 'Basic', name_sv: 'Bas', is_active: true },
      { name_en: 'Standard', name_sv: 'Standard', is_active: true },
      { name_en: 'Premium', name_sv: 'Premium', is_active: true },
      { name_en: 'Repair', name_sv: 'Reparation', is_active: true },
    ]);
    const { rows: columns } = await db.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_name = 'services' and column_name like 'service_type%'",
    );
    expect(columns.map((c) => c.column_name)).toEqual(['service_type_id']);
    // A type still used by a service cannot be deleted.
    await expect(db.query("delete from service_types where name_en = 'Repair'")).rejects.toThrow(/foreign key|violates/);
  });
});
