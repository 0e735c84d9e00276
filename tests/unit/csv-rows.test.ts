import { describe, expect, it } from 'vitest';
import { csvRow } from '../../shared/csv.ts';
import { bicyclesEntity } from '../../shared/entities/bicycles.ts';
import type { EntityDef } from '../../shared/entity/define.ts';
import { csvRowWriter } from '../../upstream/resources/csv-rows.ts';
import { normalizeRow } from '../../upstream/resources/entity-reads.ts';

describe('export row writer', () => {
  const def = bicyclesEntity as unknown as EntityDef;
  const columns = ['id', ...Object.keys(def.fields).flatMap((k) => (def.fields[k]!.kind === 'reference' ? [k, `${k}_label`] : [k])), 'created_at', 'updated_at'];
  const rows: Record<string, unknown>[] = [
    {
      id: '12',
      version: 3,
      brand_and_model: 'Trek, "Domane"',
      serial_number: '=cmd|x',
      bicycle_type_id: '2',
      bicycle_type_id_label: 'E-bike',
      owner_id: null,
      owner_id_label: null,
      groupset: ' Shimano',
      drivetrain: 'chain\nbelt',
      front_brake: '-disc',
      lock_model: '@abus',
      insurance_company: '+46',
      tyre_size: '35 ',
      tyre_diameter: '622',
      valve_type: 'presta',
      age_and_condition: 'used\tok',
      purchase_date: new Date(Date.UTC(2024, 0, 5)),
      purchase_value: '5000',
      year: '2024',
      is_active: false,
      created_at: new Date('2026-01-02T03:04:05.678Z'),
      updated_at: '2026-01-02T03:04:05.678Z',
    },
    {
      id: 7,
      bicycle_type_id: 3,
      owner_id: '-4',
      purchase_date: '2023-12-31',
      is_active: true,
      created_at: new Date(0),
      updated_at: new Date(0),
      brand_and_model: 'Plain',
      serial_number: 'X1',
    },
  ];

  it('writes exactly what normalising the row and quoting it did', () => {
    const write = csvRowWriter(def, columns);
    for (const row of rows) expect(write(row)).toBe(csvRow(columns.map((c) => normalizeRow(def, row)[c])));
  });
});
