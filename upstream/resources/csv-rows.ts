import { csvCell } from '../../shared/csv.ts';
import type { EntityDef, FieldDef } from '../../shared/entity/define.ts';

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

/** How one value of a column is written, as normalizeRow (entity-reads.ts) would make it, then csvCell. */
function cellWriter(kind: FieldDef['kind'] | 'id' | 'timestamp' | 'label'): (value: unknown) => string {
  switch (kind) {
    case 'id':
    case 'money':
    case 'decimal':
    case 'reference':
    case 'integer':
      // A non-negative number never needs quotes or a formula guard; the rest goes through csvCell.
      return (v) => (v === null || v === undefined ? '' : typeof v === 'number' && v >= 0 ? String(v) : csvCell(Number(v)));
    case 'timestamp':
      return (v) => (v instanceof Date ? v.toISOString() : csvCell(v));
    case 'date':
      return (v) =>
        v === null || v === undefined ? '' : v instanceof Date ? `${v.getUTCFullYear()}-${pad(v.getUTCMonth() + 1)}-${pad(v.getUTCDate())}` : csvCell(String(v).slice(0, 10));
    case 'time':
      return (v) => (v === null || v === undefined ? '' : csvCell(String(v).slice(0, 5)));
    case 'datetime':
      return (v) => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
    default:
      return csvCell;
  }
}

/**
 * A CSV line writer for an entity's export columns, built once per export: each column knows its kind,
 * so a row is written without first building a normalised copy of it (the export's hot loop). Produces
 * exactly `csvRow(columns.map((c) => normalizeRow(def, row)[c]))`.
 */
export function csvRowWriter(def: EntityDef, columns: readonly string[]): (row: Record<string, unknown>) => string {
  const writers = columns.map((column) => {
    if (column === 'id' || column === 'version') return cellWriter('id');
    if (column === 'created_at' || column === 'updated_at') return cellWriter('timestamp');
    const field = def.fields[column];
    return cellWriter(field ? field.kind : 'label');
  });
  const count = columns.length;
  return (row) => {
    let line = '';
    for (let i = 0; i < count; i++) {
      if (i) line += ',';
      line += writers[i]!(row[columns[i]!]);
    }
    return line + '\r\n';
  };
}
