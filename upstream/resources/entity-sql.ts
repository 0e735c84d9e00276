import { storedFields, type EntityDef, type FieldDef } from '../../shared/entity/define.ts';
import { entityByName } from '../../shared/entities/registry.ts';

const SQL_TYPE: Record<FieldDef['kind'], string> = {
  text: 'text',
  email: 'text',
  phone: 'text',
  url: 'text',
  image: 'text',
  integer: 'integer',
  decimal: 'numeric(14,2)',
  money: 'numeric(12,2)',
  boolean: 'boolean',
  date: 'date',
  time: 'time',
  datetime: 'timestamptz',
  enum: 'text',
  reference: 'bigint',
};

const INT4_MAX = 2_147_483_647;

const TEXT_KINDS = new Set<FieldDef['kind']>(['text', 'email', 'phone', 'url', 'image', 'enum']);

function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
}

function columnSql(name: string, field: FieldDef, def: EntityDef): string {
  let type = SQL_TYPE[field.kind];
  if (field.kind === 'enum' && field.options?.every((o) => typeof o === 'number')) type = 'smallint';
  if (field.kind === 'decimal' && field.scale !== undefined) type = `numeric(${12 + field.scale},${field.scale})`;
  // Ids of records kept elsewhere (a booking's service) outgrow int4.
  if (field.kind === 'integer' && field.max !== undefined && field.max > INT4_MAX) type = 'bigint';
  const parts = [`  ${name} ${type}`];
  if (field.kind === 'reference') {
    const target = entityByName(field.reference!.entity);
    if (!target) throw new Error(`${def.name}.${name}: a reference to ${field.reference!.entity}, which is no entity`);
    // A sub-collection goes with its parent record (an event's slots); other references protect their target.
    const onDelete = def.parent?.field === name ? 'cascade' : 'restrict';
    parts.push(`references ${target.table} (id) on delete ${onDelete}`);
  }
  if (field.kind === 'boolean') parts.push(`not null default ${field.default === true ? 'true' : 'false'}`);
  else if (field.readOnly && field.kind === 'integer') parts.push('not null default 0');
  else {
    if (field.required) parts.push('not null');
    if (field.default !== undefined && field.default !== null) parts.push(`default ${literal(field.default)}`);
  }
  return parts.join(' ');
}

/**
 * What a sort index `(field, id)` carries beside its keys: the entity's boolean list filters (`is_active`), so
 * a page of a filtered list in that order is read from the index alone (ADR 052): page 200 of the active
 * bicycles by serial number skips its 4 975 entries without reading a row (10.5 → 1.3 ms on 1M bicycles).
 */
export function sortIndexInclude(def: EntityDef, sortField: string): string {
  const covered = storedFields(def)
    .filter(([name, field]) => name !== sortField && field.kind === 'boolean' && field.filter === true)
    .map(([name]) => name);
  return covered.length ? ` include (${covered.join(', ')})` : '';
}

/** A sortable field's index: `(field, id)`, keyset-friendly, covering the boolean filters (`sortIndexInclude`). */
export function sortIndexSql(def: EntityDef, name: string): string {
  return `create index ${def.table}_${name}_idx on ${def.table} (${name}, id)${sortIndexInclude(def, name)};`;
}

/**
 * The table of an entity, with the indexes its list needs: unique fields (case-insensitive for text),
 * `(sort field, id)` for keyset-friendly ordering (with the boolean filters beside), and filter fields.
 * Generated, then committed as a plain SQL migration (tests/unit/entity-sql.test.ts checks they agree).
 */
export function entityTableSql(def: EntityDef): string {
  const t = def.table;
  const lines = [`create table ${t} (`, '  id bigserial primary key,'];
  for (const [name, field] of storedFields(def)) lines.push(columnSql(name, field, def) + ',');
  lines.push('  version integer not null default 1,', '  created_at timestamptz not null default now(),', '  updated_at timestamptz not null default now()', ');');
  for (const [name, field] of storedFields(def)) {
    if (field.unique) lines.push(`create unique index ${t}_${name}_key on ${t} (${TEXT_KINDS.has(field.kind) ? `lower(${name})` : name});`);
    else if (field.sortable) lines.push(sortIndexSql(def, name));
    if (field.filter && !field.sortable && !field.unique) lines.push(`create index ${t}_${name}_idx on ${t} (${name});`);
  }
  for (const group of def.unique ?? []) lines.push(`create unique index ${t}_${group.name}_key on ${t} (${group.fields.join(', ')});`);
  return lines.join('\n') + '\n';
}
